# lit configuration for the ptxbench tests.
import os
import shutil

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "PTXBENCH"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".ptx", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.ptxbench_obj_root, "test")
config.excludes = ["Unit", "lit.cfg.py", "lit.site.cfg.py", "CMakeLists.txt",
                   "Inputs", "corpus"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%ptxbench_src", config.ptxbench_src_root))
config.substitutions.append(("%ptxbench_obj", config.ptxbench_obj_root))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP",
                                     "PTXBENCH_NVDISASM"])
llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tool_dirs = [config.ptxbench_tools_dir, config.llvm_tools_dir]
tools = ["ptxbench", "ptxbench-opt", "ptxbench-translate"]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# ptxas assembles the round-trip tests; without it they are unsupported
# (lit prints them as such, so a missing toolkit is visible).
ptxas = config.ptxas_executable
if not ptxas or not os.path.exists(ptxas):
    ptxas = shutil.which("ptxas")
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))

# nvcc compiles the helper headers the prompts offer and the harness's own
# kernels (beside ptxas, else on PATH, else in /usr/local/cuda/bin); without
# it those tests are unsupported, and lit says why.
nvcc = os.path.join(os.path.dirname(ptxas), "nvcc") if ptxas else None
if not nvcc or not os.path.exists(nvcc):
    nvcc = shutil.which("nvcc")
if not nvcc and os.path.exists("/usr/local/cuda/bin/nvcc"):
    nvcc = "/usr/local/cuda/bin/nvcc"
if nvcc:
    config.available_features.add("nvcc")
    config.substitutions.append(("%nvcc", nvcc))
else:
    lit_config.note("no nvcc (beside ptxas, on PATH or in /usr/local/cuda/bin): "
                    "tests marked 'REQUIRES: nvcc' are skipped")

# A GPU is present when the NVIDIA driver's device node and nvidia-smi are.
# Without one, the tests that need it are unsupported; say so by name, since
# lit's summary only counts them.
if os.path.exists("/dev/nvidiactl") and shutil.which("nvidia-smi"):
    config.available_features.add("cuda")
else:
    lit_config.note("no GPU (no /dev/nvidiactl or nvidia-smi): "
                    "tests marked 'REQUIRES: cuda' are skipped")

# NVRTC compiles .cu submissions; the tool opens it with dlopen by these
# names, and so does this check.
import ctypes
for name in ("libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"):
    try:
        ctypes.CDLL(name)
    except OSError:
        continue
    config.available_features.add("nvrtc")
    break

# nvdisasm confirms features in machine code (`ptxbench analyze --sass`).
# Found the way lib/Toolchain/Sass.cpp's findNvdisasm looks: $PTXBENCH_NVDISASM,
# PATH, /usr/local/cuda/bin, then PyPI's nvidia-cuda-nvdisasm wheel
# (site-packages/nvidia/cu13|cu12/bin). The path found is passed on, so the
# tool under test uses the same one.
def find_nvdisasm():
    env = os.environ.get("PTXBENCH_NVDISASM")
    if env:
        return env
    found = shutil.which("nvdisasm")
    if found:
        return found
    if os.access("/usr/local/cuda/bin/nvdisasm", os.X_OK):
        return "/usr/local/cuda/bin/nvdisasm"
    import subprocess
    python = shutil.which("python3")
    if not python:
        return None
    try:
        purelib = subprocess.run(
            [python, "-c",
             "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    for cuda in ("cu13", "cu12"):
        path = os.path.join(purelib, "nvidia", cuda, "bin", "nvdisasm")
        if os.access(path, os.X_OK):
            return path
    return None


def python_purelib():
    import subprocess
    python = shutil.which("python3")
    if not python:
        return None
    try:
        return subprocess.run(
            [python, "-c",
             "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None


# PyPI's CUDA wheels (torch brings them; utils/setup.sh installs torch) hold
# an NVRTC of their own, often newer than the toolkit's ptxas: the tool must
# still pair the toolkit's NVRTC with its ptxas
# (test/Runtime/nvrtc-beside-wheels.test).
purelib = python_purelib()
if purelib:
    for cuda in ("cu13", "cu12"):
        wheel_lib = os.path.join(purelib, "nvidia", cuda, "lib")
        if any(n.startswith("libnvrtc.so") for n in
               (os.listdir(wheel_lib) if os.path.isdir(wheel_lib) else [])):
            config.available_features.add("wheel-nvrtc")
            config.substitutions.append(("%wheel_cuda_lib", wheel_lib))
            break

# Triton submissions compile with the interpreter utils/setup.sh installed
# Triton for (python3 on PATH, resolved past shims); the tool is pointed at
# the same one. Tests that compile Triton need it (REQUIRES: triton).
def find_triton_python():
    import subprocess
    python = shutil.which("python3")
    if not python:
        return None
    try:
        probe = subprocess.run(
            [python, "-c", "import sys, importlib.metadata as m; "
             "m.version('triton'); print(sys.executable)"],
            capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return probe.stdout.strip() if probe.returncode == 0 else None


triton_python = find_triton_python()
if triton_python:
    config.available_features.add("triton")
    config.environment["PTXBENCH_PYTHON"] = triton_python
    config.substitutions.append(("%triton_python", triton_python))
else:
    lit_config.note("no Triton for python3: the tests that compile Triton "
                    "submissions (REQUIRES: triton) are skipped")

# Python task references (tasks/*/reference.py) run on PyTorch in the
# interpreter the tool resolves (PTXBENCH_PYTHON or python3 on PATH); their
# tests (REQUIRES: torch) check them with NumPy in the same interpreter.
def find_torch_python():
    import subprocess
    python = os.environ.get("PTXBENCH_PYTHON") or shutil.which("python3")
    if not python:
        return None
    try:
        probe = subprocess.run(
            [python, "-c", "import sys, torch, numpy; print(sys.executable)"],
            capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.SubprocessError):
        return None
    return probe.stdout.strip() if probe.returncode == 0 else None


torch_python = find_torch_python()
if torch_python:
    config.available_features.add("torch")
    config.substitutions.append(("%torch_python", torch_python))
else:
    lit_config.note("no PyTorch for python3: the Python reference tests "
                    "(REQUIRES: torch) are skipped")

nvdisasm = find_nvdisasm()
if nvdisasm:
    config.available_features.add("nvdisasm")
    config.environment["PTXBENCH_NVDISASM"] = nvdisasm

# Headless Chromium renders the HTML report for the screenshot test
# (test/Eval/report-screenshot.test); utils/setup.sh installs it.
chromium = (os.environ.get("PTXBENCH_CHROMIUM") or shutil.which("chromium")
            or shutil.which("chromium-browser")
            or shutil.which("google-chrome"))
if chromium:
    config.available_features.add("chromium")
    config.substitutions.append(("%chromium", chromium))
else:
    lit_config.note("no Chromium: the HTML report's screenshot test "
                    "(REQUIRES: chromium) is skipped")

# The compile child and the GPU worker sandbox themselves with Landlock
# (lib/Support/Sandbox.cpp); the tests that need the kernel to refuse a
# file need it. Probed the way the tool does: landlock_create_ruleset's
# version query (444 on x86-64 and aarch64).
try:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.syscall(444, None, ctypes.c_size_t(0), ctypes.c_uint(1)) >= 1:
        config.available_features.add("landlock")
    else:
        lit_config.note("no Landlock in this kernel: the tests of the "
                        "sandbox's file rules (REQUIRES: landlock) are skipped")
except (OSError, AttributeError):
    pass
