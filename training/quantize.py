"""Quantise the exported detector to int8 (ONNX Runtime static quantisation, QDQ format).

    python training/quantize.py --data DIR --out internal/raster/model

Convolution weights become int8 per channel and activations uint8, calibrated (min/max) on
tiles cut from the training sheets with a fixed seed; the decoding head (sigmoid, max, peaks)
stays float. Writes detector-int8.onnx beside detector.onnx; internal/raster loads whichever
the JSON's "model" names (--use switches it to the int8 file; the README records both
accuracies and speeds).
"""

import argparse
import hashlib
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import data  # noqa: E402
import export  # noqa: E402

INT8_FILE = "detector-int8.onnx"


def tiles(sheets, tile, n, seed):
    """Calibration inputs: n inked tiles of the training sheets, in a fixed order."""
    rng = np.random.default_rng(seed)
    items = []
    while len(items) < n:
        s = sheets[rng.integers(len(sheets))]
        H, W = s.gray.shape
        if H < tile or W < tile:
            continue
        y, x = int(rng.integers(0, H - tile + 1)), int(rng.integers(0, W - tile + 1))
        win = s.gray[y:y + tile, x:x + tile]
        if (win < 128).sum() < 200:
            continue
        items.append({"ink": ((255.0 - win.astype(np.float32)) / 255.0)[None, None]})
    return items


def static_int8(src, dst, items, op_types):
    """ONNX Runtime static quantisation of src into dst (QDQ, per-channel int8 weights, uint8
    activations, min/max calibrated on items: input-name -> array dicts, read in order) and
    the SHA-256 of the result. The detector and the classifier (classifier.py) both go
    through here."""
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.i = 0

        def get_next(self):
            self.i += 1
            return items[self.i - 1] if self.i <= len(items) else None

        def rewind(self):
            self.i = 0

    pre = dst + ".pre.onnx"
    quant_pre_process(src, pre, skip_symbolic_shape=True)
    quantize_static(pre, dst, Reader(), quant_format=QuantFormat.QDQ, activation_type=QuantType.QUInt8,
                    weight_type=QuantType.QInt8, per_channel=True, op_types_to_quantize=op_types)
    os.remove(pre)
    with open(dst, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", required=True)
    p.add_argument("--catalog", default="internal/catalog/symbols.json")
    p.add_argument("--out", default="internal/raster/model")
    p.add_argument("--tiles", type=int, default=48)
    p.add_argument("--seed", type=int, default=20251123)
    p.add_argument("--max-sheets", type=int, default=40)
    p.add_argument("--use", action="store_true", help="make the JSON name the int8 model (what the service loads)")
    a = p.parse_args()
    classes = data.load_classes(a.catalog)
    sheets = data.load_sheets(a.data, classes, a.max_sheets)
    with open(os.path.join(a.out, export.META_FILE)) as f:
        meta = json.load(f)
    dst = os.path.join(a.out, INT8_FILE)
    digest = static_int8(os.path.join(a.out, export.MODEL_FILE), dst, tiles(sheets, meta["tile"], a.tiles, a.seed),
                         ["Conv", "Add", "Resize", "Relu"])
    print(f"int8 model {dst}: {os.path.getsize(dst)} bytes, sha256 {digest}")
    if a.use:
        meta["model"], meta["sha256"] = INT8_FILE, digest
        export.write_meta(os.path.join(a.out, export.META_FILE), meta)
        print(f"{export.META_FILE} now names {INT8_FILE}")


if __name__ == "__main__":
    main()
