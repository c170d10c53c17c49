#!/usr/bin/env python3
"""Prints LD_LIBRARY_PATH with the library folders of the CUDA wheels
python3 sees (cuDNN, the CUDA runtime) put in front, for
`export LD_LIBRARY_PATH=$(python3 utils/cuda-lib-path.py)`: the harness
dlopens libcudnn.so.9 for the attention baselines, and on the GPU hosts it
comes from PyPI (nvidia-cudnn-cu13), not from the toolkit. Without such
wheels it prints LD_LIBRARY_PATH unchanged."""
import importlib
import os

dirs = []
for mod in ("nvidia.cudnn", "nvidia.cuda_runtime", "nvidia.cu13"):
    try:
        m = importlib.import_module(mod)
    except ImportError:
        continue
    for p in m.__path__:
        if os.path.isdir(os.path.join(p, "lib")):
            dirs.append(os.path.join(p, "lib"))
current = os.environ.get("LD_LIBRARY_PATH", "")
print(":".join(dirs + ([current] if current else [])))
