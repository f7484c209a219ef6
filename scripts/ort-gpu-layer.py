#!/usr/bin/env python3
"""Lay out ONNX Runtime's CUDA build for the serving image (make ort-gpu-layer).

Usage: ort-gpu-layer.py WHEELS_DIR OUT_DIR ORT_VERSION

From the onnxruntime-gpu wheel: libonnxruntime.so.<version> and the two provider libraries it
loads from its own folder (libonnxruntime_providers_shared.so, libonnxruntime_providers_cuda.so;
not the TensorRT provider, whose TensorRT is not shipped). From each nvidia-* wheel: every shared
library under nvidia/<package>/lib/. All of them flat in OUT_DIR, which the serving image puts on
LD_LIBRARY_PATH (the CUDA provider library has no RUNPATH; cuDNN dlopens its parts by name).
"""
import glob
import os
import re
import sys
import zipfile

wheels, out, version = sys.argv[1:4]
os.makedirs(out, exist_ok=True)
ort = {f"onnxruntime/capi/libonnxruntime.so.{version}",
       "onnxruntime/capi/libonnxruntime_providers_shared.so",
       "onnxruntime/capi/libonnxruntime_providers_cuda.so"}
nv = re.compile(r"^nvidia/[^/]+/lib/[^/]+\.so(\.[0-9.]+)?$")
taken = {}
for whl in sorted(glob.glob(os.path.join(wheels, "*.whl"))):
    with zipfile.ZipFile(whl) as z:
        for name in z.namelist():
            if name in ort or nv.match(name):
                base = os.path.basename(name)
                if base in taken:
                    sys.exit(f"{base} is in both {taken[base]} and {whl}")
                taken[base] = whl
                with z.open(name) as src, open(os.path.join(out, base), "wb") as dst:
                    while chunk := src.read(1 << 20):
                        dst.write(chunk)
missing = [n for n in ort if os.path.basename(n) not in taken]
if missing:
    sys.exit(f"not in the wheels: {missing}")
for base in sorted(taken):
    print(f"{base}\t{os.path.getsize(os.path.join(out, base))}\t{os.path.basename(taken[base])}")
