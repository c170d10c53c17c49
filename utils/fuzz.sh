#!/usr/bin/env bash
# fuzz.sh - build the libFuzzer targets and run each for a while.
#
#   utils/fuzz.sh [--seconds N] [--build-only] [TARGET...]
#
# Configures build-fuzz/ (clang-22, PTXBENCH_FUZZERS=ON: the libraries the
# targets link instrumented with ASan, UBSan and libFuzzer's coverage),
# builds only the targets and what they link, collects the seed corpora
# from the tree (fuzz/collect-seeds.py), then runs every target (or those
# named) for N seconds each (default 10), one process at a time. New inputs
# accumulate in build-fuzz/corpus/TARGET between runs. A crash, leak,
# timeout (-timeout=10 s per input) or out-of-memory (-rss_limit_mb=2048)
# fails the script, with the reproducer's path and the command that
# replays it; the last lines of each target's log are printed too. Each
# run's final counts (executions, exec/s, cov, ft) are summed up at the
# end. docs/fuzzing.md has the details.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=10
build_only=0
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --build-only) build_only=1; shift ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "fuzz: unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done

for tool in clang-22 clang++-22; do
  if ! command -v "$tool" >/dev/null; then
    echo "fuzz: $tool not found; utils/setup.sh installs clang-22 and libclang-rt-22-dev" >&2
    exit 2
  fi
done

build=build-fuzz
launcher=()
command -v ccache >/dev/null &&
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
# No CUDA: the parsers need none of it, and the device sources and the cuDNN
# baseline are most of the runtime's compile time.
mkdir -p "$build"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
  -DPTXBENCH_FUZZERS=ON -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON \
  -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
  -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit "${launcher[@]}" >"$build/configure.log" 2>&1 ||
  { cat "$build/configure.log"; exit 1; }
cmake --build "$build" --target ptxbench-fuzzers -j "${PTXBENCH_JOBS:-2}"
[ "$build_only" -eq 1 ] && exit 0

if [ ${#targets[@]} -eq 0 ]; then
  targets=(ptx-import-fuzzer task-fuzzer task-import-fuzzer launch-plan-fuzzer openai-wire-fuzzer
           anthropic-wire-fuzzer sse-fuzzer extract-fuzzer json-fuzzer analysis-report-fuzzer
           run-result-fuzzer)
fi
rm -rf "$build/seeds"
python3 fuzz/collect-seeds.py "$build/seeds"

failed=()
summary=""
for target in "${targets[@]}"; do
  exe="$build/fuzz/$target"
  if [ ! -x "$exe" ]; then
    echo "fuzz: no target $target (fuzz/CMakeLists.txt lists them)" >&2
    exit 2
  fi
  corpus="$build/corpus/$target"
  artifacts="$build/artifacts/$target"
  log="$build/logs/$target.log"
  mkdir -p "$corpus" "$artifacts" "$build/logs"
  echo "fuzz: $target for ${seconds}s"
  rc=0
  "$exe" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$artifacts/" \
    "$corpus" "$build/seeds/$target" >"$log" 2>&1 || rc=$?
  # The final counts; a run that stopped on a failure has no DONE line,
  # so its last progress line stands in.
  done_line=$(grep -a -E '^#[0-9]+[[:space:]].*cov: ' "$log" | tail -1 || true)
  runs=$(grep -a -E '^stat::number_of_executed_units:' "$log" | awk '{print $2}' || true)
  summary+=$(printf '%-22s runs %-9s %s' "$target" "${runs:-?}" \
    "$(sed -E 's/.*(cov: [0-9]+ ft: [0-9]+).*(exec\/s: [0-9]+).*/\1 \2/' <<<"$done_line")")$'\n'
  if [ "$rc" -ne 0 ]; then
    tail -n 40 "$log" | grep -a -v '^"' || true
    repro=$(grep -a -o "Test unit written to [^ ]*" "$log" | tail -1 | sed 's/Test unit written to //' || true)
    echo "fuzz: $target FAILED (exit $rc); log: $log"
    if [ -n "$repro" ]; then
      echo "fuzz: reproducer: $repro"
      echo "fuzz: replay it: $exe $repro"
    fi
    failed+=("$target")
  fi
done

echo "fuzz: ${seconds}s per target"
printf '%s' "$summary"
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: failed: ${failed[*]}"
  exit 1
fi
echo "fuzz: no crash, leak, timeout or out-of-memory"
