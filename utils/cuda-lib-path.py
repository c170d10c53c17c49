#!/usr/bin/env python3
"""Prints the library folders of the CUDA wheels python3 sees (cuDNN, the
CUDA runtime), joined by ':', for LD_LIBRARY_PATH: the harness dlopens
libcudnn.so.9 for the attention baselines, and on the GPU hosts it comes
from PyPI (nvidia-cudnn-cu13), not from the toolkit. Prints nothing when
there are none."""
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
print(":".join(dirs))
