/* libFuzzer target: the scenario loader and `cosserat check` on arbitrary bytes.
 * Built by `make fuzz` (clang, -fsanitize=fuzzer,address,undefined); the seed corpus
 * is tests/fuzz-corpus/ (the examples), replayed in the normal suite by
 * tests/fuzz_corpus.sh. Any input must give CR_OK or a status with a message, never
 * a crash, a sanitizer report, a leak or a hang. */
#include "cosserat/cosserat.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (1u << 20)) return 0;
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    cr_scenario *sc = NULL;
    cr_error err = {0};
    if (cr_scenario_load_string(text, NULL, 0, &sc, &err) == CR_OK) {
        /* build at most a small model: the fuzzer looks for wrong answers, not for RAM */
        sc->max_memory = 64.0 * 1024 * 1024;
        cr_scenario_check(sc, &err);
        cr_scenario_destroy(sc);
    }
    free(text);
    return 0;
}
