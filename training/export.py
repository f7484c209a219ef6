"""Export a trained Detector to ONNX with its JSON beside it (what internal/raster loads).

    python training/export.py --work build/train --out models/raster   # from the last checkpoint

The JSON holds the class list (model output index -> catalog class), the input (grayscale ink
(255 - luma) / 255, NCHW float32, any tile size divisible by 16), the stride, the tile size and
overlap internal/raster uses, the score threshold and the score-to-confidence calibration,
and the ONNX file's SHA-256.
"""

import argparse
import hashlib
import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import data  # noqa: E402
import model  # noqa: E402

OPSET = 17  # ONNX Runtime 1.24 runs opsets up to 23; 17 is the TorchScript exporter's sure ground
MODEL_FILE = "detector.onnx"
META_FILE = "detector.json"


def write_meta(path, meta):
    """Write the model JSON as json.dump(meta, indent=1) would, except that a list holding only
    numbers, or only lists of numbers (a calibration, a box correction), takes one line: a
    calibration per class is then one line per class."""
    def number(x):
        return isinstance(x, (int, float)) and not isinstance(x, bool)

    def flat(v):
        return isinstance(v, list) and all(number(x) or (isinstance(x, list) and all(map(number, x))) for x in v)

    def encode(v, depth):
        pad, end = " " * (depth + 1), " " * depth
        if flat(v):
            return json.dumps(v, separators=(",", ":"))
        if isinstance(v, dict) and v:
            return "{\n" + ",\n".join(f"{pad}{json.dumps(k)}: {encode(x, depth + 1)}" for k, x in v.items()) + f"\n{end}}}"
        if isinstance(v, list) and v:
            return "[\n" + ",\n".join(pad + encode(x, depth + 1) for x in v) + f"\n{end}]"
        return json.dumps(v)

    with open(path, "w") as f:
        f.write(encode(meta, 0) + "\n")


def export(net, classes, out, tile, log=print):
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, MODEL_FILE)
    dep = model.Deploy(net).eval()
    x = torch.zeros(1, 1, tile, tile)
    torch.onnx.export(dep, (x,), path, opset_version=OPSET, dynamo=False, do_constant_folding=True,
                      input_names=["ink"], output_names=["score", "class", "peak", "box"],
                      dynamic_axes={"ink": {0: "n", 2: "h", 3: "w"}, "score": {0: "n", 2: "gh", 3: "gw"},
                                    "class": {0: "n", 2: "gh", 3: "gw"}, "peak": {0: "n", 2: "gh", 3: "gw"},
                                    "box": {0: "n", 2: "gh", 3: "gw"}})
    with open(path, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    meta_path = os.path.join(out, META_FILE)
    meta = {}
    if os.path.exists(meta_path):  # keep thresholds and calibration measured on an evaluation set
        with open(meta_path) as f:
            meta = json.load(f)
    meta.update({
        "model": MODEL_FILE,
        "sha256": digest,
        "opset": OPSET,
        "input": {"name": "ink", "channels": 1, "value": "(255 - luma) / 255, luma = (299 R + 587 G + 114 B) / 1000",
                  "multiple_of": 16},
        "outputs": ["score", "class", "peak", "box"],
        "stride": data.STRIDE,
        "tile": tile,
        "overlap": 128,
        "classes": classes,
    })
    meta.setdefault("score_threshold", 0.2)
    meta.setdefault("calibration", [[0.0, 0.0], [0.2, 0.3], [0.4, 0.5], [1.0, 1.0]])
    write_meta(meta_path, meta)
    log(f"onnx {path}: {os.path.getsize(path)} bytes, sha256 {digest}")
    return path


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--work", default="build/train")
    p.add_argument("--catalog", default="internal/catalog/symbols.json")
    p.add_argument("--out", default="internal/raster/model")
    p.add_argument("--tile", type=int, default=1024)
    a = p.parse_args()
    classes = data.load_classes(a.catalog)
    net = model.Detector(len(classes))
    ck = torch.load(os.path.join(a.work, "checkpoint.pt"), weights_only=False)
    net.load_state_dict(ck["model"])
    net.eval()
    export(net, classes, a.out, a.tile)


if __name__ == "__main__":
    main()
