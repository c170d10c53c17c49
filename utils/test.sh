#!/usr/bin/env bash
# test.sh - build (installing what is missing) and run the whole test suite:
# lit (tools, passes, importer diagnostics, the corpus cubin round trip) and
# the GoogleTest unit tests, then every libFuzzer target for a few seconds
# (utils/fuzz.sh: built with clang-22, ASan and UBSan in build-fuzz; a
# crash, leak, timeout or out-of-memory fails the suite and prints the
# reproducer). Exits non-zero on any failure.
#
# PTXBENCH_FUZZ_SECONDS sets the seconds per fuzz target (default 10);
# PTXBENCH_SKIP_FUZZ=1 leaves the fuzz step out.
set -euo pipefail
cd "$(dirname "$0")/.."
utils/setup.sh
cmake --build build --target check-ptxbench
if [ -z "${PTXBENCH_SKIP_FUZZ:-}" ]; then
  utils/fuzz.sh --seconds "${PTXBENCH_FUZZ_SECONDS:-10}"
fi
