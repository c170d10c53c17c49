#!/usr/bin/env python3
"""triton-do-bench.py - times a Triton solution of the corpus with Triton's
own `triton.testing.do_bench`, launched the way its `# @ptxbench` plan says
(grid, num_warps, num_stages, constexprs; host-side tensor descriptors for
`tensormap` lines), on every workload of a task, so that its median can be
set beside the harness's `ptxbench run` time of the same file.

    python3 bench/h200/triton-do-bench.py TASK_DIR SOLUTION.py [SHAPES]

SHAPES is dev (default), heldout, all or one workload's name. Prints two lines per workload,
do_bench as it comes (its L2 flush before every launch) and without the
flush: name, median ms, 20th and 80th percentiles, TFLOP/s.
The inputs are random normal (the kernel's time does not depend on values
for these tasks); the output is not checked here (the harness checks it).
"""
import importlib.util
import json
import math
import re
import sys

import torch
import triton
import triton.testing

DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32,
          "fp8_e4m3": torch.float8_e4m3fn, "e4m3": torch.float8_e4m3fn}


def ceildiv(a, b):
    return -(-a // b)


def evaluate(expr, env):
    return eval(expr, {"__builtins__": {}, "ceildiv": ceildiv, "min": min, "max": max},
                dict(env))


def balanced(text):
    """The text up to the first space outside parentheses."""
    depth = 0
    for i, c in enumerate(text):
        depth += (c == "(") - (c == ")")
        if c == " " and depth == 0:
            return text[:i]
    return text


def parse_plan(text):
    plan = {"tensormaps": {}, "constexpr": {}, "args": []}
    for line in text.splitlines():
        m = re.match(r"\s*#\s*@ptxbench\s+(.*)", line)
        if not m:
            continue
        stmt = m.group(1).strip()
        head, _, rest = stmt.partition(" ")
        if head == "kernel":
            name, _, opts = rest.partition(" ")
            plan["kernel"] = name
            plan["grid"] = balanced(opts.split("grid=", 1)[1])
            for key in ("num_warps", "num_stages"):
                k = re.search(key + r"=(\d+)", opts)
                if k:
                    plan[key] = int(k.group(1))
        elif head == "args":
            plan["args"] = [a.strip() for a in rest.split(",") if a.strip()]
        elif head == "constexpr":
            for item in rest.split():
                k, v = item.split("=", 1)
                plan["constexpr"][k] = evaluate(v, {})
        elif head == "tensormap":
            name, _, opts = rest.partition(" ")
            tensor = re.search(r"tensor=(\w+)", opts).group(1)
            box = evaluate(re.search(r"box=(\([^)]*\))", opts).group(1), {})
            plan["tensormaps"][name] = (tensor, list(box))
    return plan


def bench(launch, flush):
    """do_bench's median and quartiles; without flush, do_bench's 256 MB
    memset before every launch (its L2 flush) is left out."""
    driver = triton.runtime.driver.active
    clear = driver.clear_cache
    if not flush:
        driver.clear_cache = lambda cache: None
    try:
        return triton.testing.do_bench(launch, quantiles=[0.5, 0.2, 0.8])
    finally:
        driver.clear_cache = clear


def main():
    task_dir, solution = sys.argv[1], sys.argv[2]
    shapes = sys.argv[3] if len(sys.argv) > 3 else "dev"
    task = json.load(open(f"{task_dir}/task.json"))
    text = open(solution).read()
    plan = parse_plan(text)
    spec = importlib.util.spec_from_file_location("solution", solution)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    kernel = getattr(module, plan["kernel"])
    workloads = []
    for split in (["dev", "heldout"] if shapes == "all" else [shapes]):
        workloads += task["workloads"].get(split, [])
    if shapes not in ("dev", "heldout", "all"):
        workloads = [w for split in task["workloads"].values() for w in split
                     if w["name"] == shapes]
    if not workloads:
        sys.exit(f"no workload {shapes!r} in {task_dir}")
    print(f"triton {triton.__version__}, torch {torch.__version__}, "
          f"{torch.cuda.get_device_name()}")
    for w in workloads:
        env = {k: v for k, v in w.items() if k != "name"}
        tensors = {}
        for t in task["tensors"]:
            shape = [evaluate(str(d), env) for d in t["shape"]]
            x = torch.randn(shape, device="cuda", dtype=torch.float32)
            tensors[t["name"]] = x.to(DTYPES[t["dtype"]])
        args = []
        for a in plan["args"]:
            if a in plan["tensormaps"]:
                from triton.tools.tensor_descriptor import TensorDescriptor
                tensor, box = plan["tensormaps"][a]
                args.append(TensorDescriptor.from_tensor(tensors[tensor], box))
            elif a in tensors:
                args.append(tensors[a])
            else:
                args.append(evaluate(a, env))
        grid = evaluate(plan["grid"], env)
        grid = grid if isinstance(grid, tuple) else (grid,)
        options = {k: plan[k] for k in ("num_warps", "num_stages") if k in plan}

        def launch():
            kernel[grid](*args, **plan["constexpr"], **options)

        launch()
        torch.cuda.synchronize()
        flops = evaluate(task["flops"], env)
        for flush in (True, False):
            median, p20, p80 = bench(launch, flush)
            print(f"{w['name']:>24}  {'L2 flushed' if flush else 'no flush  '}  "
                  f"{median:.4f} ms  (p20 {p20:.4f}, p80 {p80:.4f})  "
                  f"{flops / median / 1e9:.1f} TFLOP/s")


if __name__ == "__main__":
    main()
