/* cosserat — status codes, errors and version.
 *
 * Conventions (SUNDIALS style): every fallible function returns a cr_status;
 * CR_OK is 0, positive codes are recoverable (the caller may retry, e.g. with a
 * smaller load increment or step), negative codes are fatal. Functions that can
 * fail for a reason worth explaining also take a cr_error* and write a message
 * the caller can print. The library never exits or aborts.
 */
#ifndef COSSERAT_BASE_H
#define COSSERAT_BASE_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cr_status {
    CR_OK = 0,
    /* recoverable */
    CR_NOT_CONVERGED = 1,    /* Newton/integrator did not converge */
    CR_SINGULAR = 2,         /* a linear system was singular */
    CR_NONFINITE = 3,        /* a residual or state became NaN/Inf */
    CR_INTERRUPTED = 4,      /* the caller asked to stop (e.g. SIGINT) */
    /* fatal */
    CR_BAD_INPUT = -1,       /* invalid definition, scenario or argument */
    CR_NO_MEMORY = -2,
    CR_IO = -3,              /* a file could not be read or written */
    CR_UNSUPPORTED = -4      /* valid input this build cannot handle */
} cr_status;

/* Message buffer filled by functions that fail. `message` is always a
 * NUL-terminated string (empty when nothing went wrong). */
#define CR_ERROR_MESSAGE_SIZE 512
typedef struct cr_error {
    cr_status status;
    char message[CR_ERROR_MESSAGE_SIZE];
} cr_error;

/* A short static description of a status code ("ok", "not converged", ...). */
const char *cr_status_string(cr_status status);

/* Writes a printf-style message into err (if non-NULL) and returns status. */
cr_status cr_error_set(cr_error *err, cr_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Library version, "MAJOR.MINOR.PATCH". */
const char *cr_version(void);

#ifdef __cplusplus
}
#endif
#endif
