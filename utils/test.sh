#!/usr/bin/env bash
# test.sh - build (installing what is missing) and run the whole test suite:
# lit (tools, passes, importer diagnostics, the corpus cubin round trip) and
# the GoogleTest unit tests. Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
utils/setup.sh
cmake --build build --target check-ptxbench
