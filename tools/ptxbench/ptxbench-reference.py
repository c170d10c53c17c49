"""ptxbench's PyTorch reference driver: computes one task's reference outputs.

`ptxbench reference-child` (a contained child of ptxbench: time, memory and
file-size limits, a scrubbed environment, its own temporary folder as the
working directory, a sandbox with no network and nothing writable but that
folder) runs this script as
`python3 -E -B ptxbench-reference.py REQUEST.json RESULT.json`.

The request names the task's reference module (copied into the folder), its
entry function (`run`), the precision (float32 or float64), the device (cpu
or cuda), the task's tensors in order with their dtype, shape, role and the
file holding each input's raw little-endian bytes, the workload's parameter
values and the task's constants. Inputs are read in their own dtype, float
inputs are widened to the precision (exactly: bf16, f16 and e4m3 values are
all representable; that is also the default dtype, and the device the
default device, of tensors the reference makes), TF32 is off, and the entry is called with keyword arguments bound by
name: an input tensor, a parameter (a Python int) or a constant. It returns
the outputs: one tensor, a tuple or list in the order of the task's output
tensors, or a dict by output name. Each is checked for its shape and
written as raw fp32 (the reference the harness checks against). The result
is JSON: ok, the stage that failed (import, bind, call, outputs) and why.
"""
import inspect
import json
import os
import sys
import time
import traceback

MAX_LOG = 8000

DTYPES = {}  # filled once torch is imported


def fail(result_path, stage, log):
    with open(result_path, "w") as f:
        json.dump({"ok": False, "stage": stage, "log": log[-MAX_LOG:]}, f)
    return 1


def short_traceback(module_file):
    """The traceback from the reference module's frames on, for messages."""
    lines = traceback.format_exc().splitlines()
    for i, line in enumerate(lines):
        if module_file in line:
            return "\n".join([lines[0]] + lines[i:])
    return "\n".join(lines)


def main(request_path, result_path):
    with open(request_path) as f:
        request = json.load(f)
    module_file = request["module"]
    try:
        import torch
    except Exception:
        return fail(result_path, "import",
                    "PyTorch does not import in this interpreter "
                    "(utils/setup.sh installs it):\n" + traceback.format_exc())
    DTYPES.update({"bf16": torch.bfloat16, "f16": torch.float16,
                   "f32": torch.float32, "i32": torch.int32,
                   "e4m3": torch.float8_e4m3fn})
    precision = {"f32": torch.float32, "f64": torch.float64}[request["precision"]]
    device = request["device"]
    if device == "cuda" and not torch.cuda.is_available():
        return fail(result_path, "import",
                    "the reference is to run on the GPU, but PyTorch sees no "
                    "CUDA device")
    # An fp32 reference must not round through TF32 on the GPU.
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    torch.set_default_dtype(precision)
    # Tensors the reference makes itself are made where its inputs are.
    torch.set_default_device(device)
    torch.manual_seed(0)

    # The module, executed from its own file, with nothing of the caller's.
    namespace = {"__name__": "ptxbench_reference", "__file__": module_file}
    try:
        with open(module_file) as f:
            source = f.read()
        code = compile(source, module_file, "exec")
        exec(code, namespace)
    except Exception:
        return fail(result_path, "import",
                    "the reference module does not load:\n" +
                    short_traceback(module_file))
    entry = request["entry"]
    fn = namespace.get(entry)
    if not callable(fn):
        return fail(result_path, "import",
                    f"the reference module defines no function '{entry}'")

    tensors = request["tensors"]
    values = {}
    for t in tensors:
        if t["role"] != "input":
            continue
        dtype = DTYPES[t["dtype"]]
        with open(t["file"], "rb") as f:
            raw = bytearray(f.read())
        x = torch.frombuffer(raw, dtype=torch.uint8).view(dtype).reshape(t["shape"])
        if x.is_floating_point():
            x = x.to(precision)
        values[t["name"]] = x.to(device)
    for name, value in request["params"].items():
        values.setdefault(name, int(value))
    for name, value in request["constants"].items():
        values.setdefault(name, value)

    kwargs = {}
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return fail(result_path, "bind", f"'{entry}' has no signature to bind")
    for name, p in signature.parameters.items():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            return fail(result_path, "bind",
                        f"'{entry}' takes *{name}; its parameters must be "
                        "named (tensors, parameters or constants of the task)")
        if name in values:
            kwargs[name] = values[name]
        elif p.default is p.empty:
            known = ", ".join(sorted(values))
            return fail(result_path, "bind",
                        f"'{entry}' parameter '{name}' is no tensor, parameter "
                        f"or constant of the task (it has {known})")

    start = time.monotonic()
    try:
        with torch.no_grad():
            out = fn(**kwargs)
        if device == "cuda":
            torch.cuda.synchronize()
    except Exception:
        return fail(result_path, "call",
                    f"'{entry}' raised:\n" + short_traceback(module_file))
    seconds = time.monotonic() - start

    outputs = [t for t in tensors if t["role"] == "output"]
    if isinstance(out, dict):
        missing = [t["name"] for t in outputs if t["name"] not in out]
        extra = [k for k in out if k not in {t["name"] for t in outputs}]
        if missing or extra:
            return fail(result_path, "outputs",
                        f"'{entry}' returned a dict with keys "
                        f"{sorted(map(str, out))}; expected the outputs "
                        f"{[t['name'] for t in outputs]}")
        got = [out[t["name"]] for t in outputs]
    elif isinstance(out, (tuple, list)):
        got = list(out)
    else:
        got = [out]
    if len(got) != len(outputs):
        return fail(result_path, "outputs",
                    f"'{entry}' returned {len(got)} value(s); the task has "
                    f"{len(outputs)} output(s) "
                    f"({', '.join(t['name'] for t in outputs)}), in that order")
    written = []
    for t, value in zip(outputs, got):
        if not isinstance(value, torch.Tensor):
            return fail(result_path, "outputs",
                        f"output '{t['name']}' is a {type(value).__name__}, "
                        "not a tensor")
        if list(value.shape) != list(t["shape"]):
            return fail(result_path, "outputs",
                        f"output '{t['name']}' has shape {list(value.shape)}; "
                        f"the task's is {t['shape']}")
        v = value.detach().to(torch.float32).contiguous().cpu()
        nonfinite = int((~torch.isfinite(v)).sum().item())
        with open(t["file"], "wb") as f:
            f.write(v.numpy().tobytes())
        written.append({"name": t["name"], "nonfinite": nonfinite})
    with open(result_path, "w") as f:
        json.dump({"ok": True, "outputs": written, "seconds": seconds,
                   "torch": torch.__version__, "device": device,
                   "sandbox": os.environ.get("PTXBENCH_REFERENCE_SANDBOX", "")},
                  f)
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print("usage: ptxbench-reference.py REQUEST.json RESULT.json",
              file=sys.stderr)
        sys.exit(2)
    try:
        sys.exit(main(sys.argv[1], sys.argv[2]))
    except Exception:
        sys.exit(fail(sys.argv[2], "child", traceback.format_exc()))
