#!/usr/bin/env bash
# Regenerate the PTX corpus in ptx/ from the sources in src/.
#
# For each src/*.cu, the header lines
#   // corpus-archs: sm_80 sm_90a        (required) archs to compile for
#   // corpus-variants: lineinfo G      (optional) extra debug variants (first arch only)
#   // corpus-flags: -rdc=true          (optional) extra nvcc flags
# select how it is compiled.  Output: ptx/<name>.<arch>[.lineinfo|.G].ptx
# Hand-written src/*.ptx files are copied as-is to ptx/<name>.ptx; their
# target is read from the .target directive.
# Every output is checked with `ptxas -arch=<arch> -o /dev/null`.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SRC="$HERE/src"
OUT="$HERE/ptx"
CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}"
NVCC="${NVCC:-$CUDA_HOME/bin/nvcc}"
PTXAS="${PTXAS:-$CUDA_HOME/bin/ptxas}"
export LC_ALL=C

die() { echo "generate.sh: error: $*" >&2; exit 1; }
[[ -x "$NVCC" ]] || die "nvcc not found at $NVCC"
[[ -x "$PTXAS" ]] || die "ptxas not found at $PTXAS"

# Build in a fixed scratch directory: nvcc records the absolute source path
# and working directory in .file directives and DWARF (-lineinfo/-G), so a
# fixed path keeps the output identical wherever the repository lives.  A lock
# serializes concurrent runs.  Outputs are only copied into ptx/ if every file
# compiled and assembled, so a failed run never leaves a half-updated corpus.
BUILD="${CORPUS_BUILD_DIR:-/tmp/ptxbench-corpus-build}"
exec 9>"$BUILD.lock"
flock 9
rm -rf "$BUILD"
mkdir -p "$BUILD/out"
TMP="$BUILD/out"
trap 'rm -rf "$BUILD"' EXIT
cp "$SRC"/*.cu "$BUILD"/

header() { # header <file> <key>
  sed -n "s|^// *corpus-$2: *||p" "$1" | head -n1
}

ncu=0; nhand=0; nout=0
failures=()

cd "$BUILD"
for cu in $(ls *.cu | sort); do
  name="${cu%.cu}"
  archs="$(header "$cu" archs)"
  [[ -n "$archs" ]] || die "$cu: missing '// corpus-archs:' line"
  variants="$(header "$cu" variants)"
  flags="$(header "$cu" flags)"
  ncu=$((ncu+1))
  first=1
  for arch in $archs; do
    carch="compute_${arch#sm_}"
    vlist=("")
    if [[ $first -eq 1 ]]; then
      for v in $variants; do vlist+=("$v"); done
    fi
    first=0
    for v in "${vlist[@]}"; do
      vflags=(); suffix=""
      case "$v" in
        "") ;;
        lineinfo) vflags=(-lineinfo); suffix=".lineinfo" ;;
        G) vflags=(-G); suffix=".G" ;;
        *) die "$cu: unknown variant '$v'" ;;
      esac
      out="$TMP/$name.$arch$suffix.ptx"
      # shellcheck disable=SC2086
      if ! "$NVCC" -std=c++17 --ptx -arch="$carch" ${vflags[@]+"${vflags[@]}"} $flags \
            "$cu" -o "$out" 2>"$TMP/err.txt"; then
        cat "$TMP/err.txt" >&2
        failures+=("nvcc: $cu ($arch$suffix)")
        continue
      fi
      nout=$((nout+1))
    done
  done
done

for p in $(cd "$SRC" && ls *.ptx 2>/dev/null | sort); do
  cp "$SRC/$p" "$TMP/$p"
  nhand=$((nhand+1)); nout=$((nout+1))
done

# Verify every output with ptxas.
for f in $(cd "$TMP" && ls *.ptx | sort); do
  arch="$(sed -n 's/^[[:space:]]*\.target[[:space:]]\{1,\}\([a-z0-9_]*\).*/\1/p' "$TMP/$f" | head -n1)"
  [[ -n "$arch" ]] || { failures+=("no .target: $f"); continue; }
  if ! "$PTXAS" -arch="$arch" -o /dev/null "$TMP/$f" 2>"$TMP/err.txt"; then
    cat "$TMP/err.txt" >&2
    failures+=("ptxas: $f ($arch)")
  fi
done

if [[ ${#failures[@]} -ne 0 ]]; then
  printf 'generate.sh: FAILED: %s\n' "${failures[@]}" >&2
  exit 1
fi

mkdir -p "$OUT"
rm -f "$OUT"/*.ptx
cp "$TMP"/*.ptx "$OUT"/
bytes="$(cat "$OUT"/*.ptx | wc -c)"
echo "corpus: $nout PTX files ($ncu .cu sources, $nhand hand-written), $((bytes/1024)) KiB, all assembled by ptxas"
