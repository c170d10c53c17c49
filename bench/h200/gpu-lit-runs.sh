#!/usr/bin/env bash
# gpu-lit-runs.sh - runs the `ptxbench run` lines of GPU lit tests on the
# H200 (which has no FileCheck) and keeps each line's output, so that the
# test's FileCheck patterns can be applied on the development machine:
#
#   OUT=... bench/h200/gpu-lit-runs.sh PTXBENCH TEST...      (on the H200)
#   bench/h200/gpu-lit-runs.sh --check DIR TEST...           (here, on what came back)
#
# Only RUN lines of the form `[not] ptxbench run ... [| FileCheck %s --check-prefix=P]`
# are handled (`%t` becomes $OUT/lit/<test>.tmp); their outputs go to
# $OUT/lit/<test>.<n>.txt and their exit statuses to <test>.<n>.rc, which
# --check holds against the line's `not`, and the output against the
# line's FileCheck when it has one. Other RUN lines (a script reading %t's
# JSON) are not run: check what they read by hand.
set -u
cd "$(dirname "$0")/../.."
runs() { grep '^# RUN: \(not \)\?ptxbench run' "$1"; }
if [ "${1:-}" = --check ]; then
  dir=$2; shift 2; rc=0
  for t in "$@"; do
    n=0
    while read -r line; do
      n=$((n + 1))
      prefix=$(sed -n 's/.*--check-prefix=\([A-Za-z0-9_-]*\).*/\1/p' <<< "$line")
      out="$dir/$(basename "$t").$n.txt"
      status=$(cat "${out%.txt}.rc" 2>/dev/null || echo missing)
      case "$line" in "# RUN: not "*) want=nonzero;; *) want=0;; esac
      if [ "$status" = missing ] || { [ $want = 0 ] && [ "$status" != 0 ]; } ||
         { [ $want = nonzero ] && [ "$status" = 0 ]; }; then
        echo "FAIL $(basename "$t") run $n: exit status $status, expected $want"; rc=1
      elif ! grep -q '| FileCheck' <<< "$line"; then
        echo "ok   $(basename "$t") run $n (exit status only)"
      elif /usr/lib/llvm-22/bin/FileCheck "$t" ${prefix:+--check-prefix=$prefix} --input-file "$out"; then
        echo "ok   $(basename "$t") run $n${prefix:+ ($prefix)}"
      else
        echo "FAIL $(basename "$t") run $n${prefix:+ ($prefix)}"; rc=1
      fi
    done < <(runs "$t")
  done
  exit $rc
fi
PTXBENCH=$(realpath "$1"); shift
OUT=${OUT:-/tmp/ptxbench-gpu-lit}; mkdir -p "$OUT/lit"
export LD_LIBRARY_PATH="$(python3 utils/cuda-lib-path.py 2>/dev/null || echo "${LD_LIBRARY_PATH:-}")"
for t in "$@"; do
  n=0
  while read -r line; do
    n=$((n + 1))
    cmd=${line#\# RUN: }; cmd=${cmd%% | FileCheck*}; cmd=${cmd#not }
    base="$OUT/lit/$(basename "$t").$n"
    cmd=${cmd//%ptxbench_src/.}; cmd=${cmd//%t/$OUT/lit/$(basename "$t").tmp}
    cmd=${cmd/ptxbench/$PTXBENCH}
    timeout 150 bash -c "$cmd" > "$base.txt" 2>&1
    status=$?
    echo "$status" > "$base.rc"
    echo "$(basename "$t") run $n: exit $status"
  done < <(runs "$t")
done
