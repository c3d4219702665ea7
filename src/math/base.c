#include "cosserat/base.h"

#include <stdarg.h>
#include <stdio.h>

#ifndef COSSERAT_VERSION
#define COSSERAT_VERSION "0.0.0"
#endif

const char *cr_status_string(cr_status status)
{
    switch (status) {
    case CR_OK: return "ok";
    case CR_NOT_CONVERGED: return "not converged";
    case CR_SINGULAR: return "singular linear system";
    case CR_NONFINITE: return "non-finite value";
    case CR_INTERRUPTED: return "interrupted";
    case CR_BAD_INPUT: return "bad input";
    case CR_NO_MEMORY: return "out of memory";
    case CR_IO: return "input/output error";
    case CR_UNSUPPORTED: return "unsupported";
    }
    return "unknown status";
}

cr_status cr_error_set(cr_error *err, cr_status status, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
        err->status = status;
    }
    return status;
}

const char *cr_version(void) { return COSSERAT_VERSION; }
