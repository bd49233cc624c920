// libFuzzer's driver, linked in by `-sanitize=fuzzer` (compiler-rt's libclang_rt.fuzzer).
//
// SwiftPM links a Swift executable's entry point as `main`, so libFuzzer's own `main` is never linked;
// each target's `@main` hands its arguments and LLVMFuzzerTestOneInput to this driver instead.
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*UserCb)(const uint8_t *Data, size_t Size));
