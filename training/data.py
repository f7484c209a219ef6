"""Training data: generated raster sheets (make synth KIND=raster) cut into crops.

Each sheet is a scan-like PNG/JPEG with its ground truth JSON beside it (the dataset format of
internal/synth). Sheets are loaded once as 8-bit grayscale; every training step cuts fresh
crops from them: most centred near a random symbol (so every class is seen often), the rest
anywhere (background: walls, text, furniture, look-alikes), then degrades them further than
the generator does (scale, blur, noise, contrast, JPEG) so that scans and photos unlike the
generator's still look familiar.

The model input is ink, not brightness: x = (255 - gray) / 255, so blank paper is 0.
internal/raster feeds the same values (BT.601 luma, the generator's weights).
"""

import glob
import io
import json
import math
import os

import numpy as np
from PIL import Image, ImageFilter

STRIDE = 8


def load_classes(catalog_path):
    with open(catalog_path) as f:
        cat = json.load(f)
    return [s["class"] for s in cat["symbols"]]


def to_gray(img):
    """8-bit luma with the weights the generator and internal/raster use (299/587/114)."""
    if img.mode == "L":
        return np.asarray(img, dtype=np.uint8)
    rgb = np.asarray(img.convert("RGB"), dtype=np.uint32)
    g = (299 * rgb[..., 0] + 587 * rgb[..., 1] + 114 * rgb[..., 2] + 500) // 1000
    return g.astype(np.uint8)


class Sheet:
    def __init__(self, gray, boxes, labels):
        self.gray = gray  # HxW uint8
        self.boxes = boxes  # Nx4 float32 x0,y0,x1,y1 pixels
        self.labels = labels  # N int64


def load_sheets(data_dir, classes, limit=0, skip=0):
    """The raster sheets of data_dir in name order: the first limit (0: all) after the first skip."""
    index = {c: i for i, c in enumerate(classes)}
    sheets = []
    for js in sorted(glob.glob(os.path.join(data_dir, "*.json")))[skip:]:
        with open(js) as f:
            t = json.load(f)
        if t.get("kind") != "raster":
            continue
        path = os.path.join(os.path.dirname(js), t["file"])
        Image.MAX_IMAGE_PIXELS = None
        gray = to_gray(Image.open(path))
        boxes, labels = [], []
        for s in t["pages"][0]["symbols"]:
            b = s["bbox_px"]
            boxes.append([b["x"], b["y"], b["x"] + b["width"], b["y"] + b["height"]])
            labels.append(index[s["class"]])
        sheets.append(Sheet(gray, np.array(boxes, np.float32).reshape(-1, 4), np.array(labels, np.int64)))
        if limit and len(sheets) >= limit:
            break
    return sheets


def gaussian_radius(h, w, min_overlap=0.7):
    """CenterNet's radius: how far a centre may move and keep IoU >= min_overlap."""
    a1, b1 = 1, h + w
    c1 = w * h * (1 - min_overlap) / (1 + min_overlap)
    r1 = (b1 + math.sqrt(b1 ** 2 - 4 * a1 * c1)) / 2
    a2, b2 = 4, 2 * (h + w)
    c2 = (1 - min_overlap) * w * h
    r2 = (b2 + math.sqrt(b2 ** 2 - 4 * a2 * c2)) / 2
    a3, b3 = 4 * min_overlap, -2 * min_overlap * (h + w)
    c3 = (min_overlap - 1) * w * h
    r3 = (b3 + math.sqrt(b3 ** 2 - 4 * a3 * c3)) / 2
    return max(0.0, min(r1, r2, r3))


def encode(boxes, labels, size, num_classes):
    """CenterNet targets on the stride-8 grid of a size x size crop.

    heat: C x g x g gaussian peaks at box centres; reg: 4 x g x g (centre offset in cells,
    log of width and height in cells) and mask: g x g, set only at centre cells."""
    g = size // STRIDE
    heat = np.zeros((num_classes, g, g), np.float32)
    reg = np.zeros((4, g, g), np.float32)
    mask = np.zeros((g, g), np.float32)
    ys, xs = np.mgrid[0:g, 0:g]
    for (x0, y0, x1, y1), c in zip(boxes, labels):
        w, h = (x1 - x0) / STRIDE, (y1 - y0) / STRIDE
        cx, cy = (x0 + x1) / 2 / STRIDE, (y0 + y1) / 2 / STRIDE
        ix, iy = int(cx), int(cy)
        if not (0 <= ix < g and 0 <= iy < g) or w <= 0 or h <= 0:
            continue
        r = max(0.5, gaussian_radius(h, w))
        sigma = (2 * r + 1) / 6
        peak = np.exp(-((xs - ix) ** 2 + (ys - iy) ** 2) / (2 * sigma * sigma))
        np.maximum(heat[c], peak, out=heat[c])
        reg[:, iy, ix] = (cx - ix, cy - iy, math.log(w), math.log(h))
        mask[iy, ix] = 1
    return heat, reg, mask


def symbols_by_class(sheets, num_classes):
    """Every symbol as (sheet index, symbol index), listed by class, and the classes present:
    samplers draw a class first, so that rare classes are drawn as often as common ones."""
    by_class = [[] for _ in range(num_classes)]
    for si, s in enumerate(sheets):
        for bi, c in enumerate(s.labels):
            by_class[c].append((si, bi))
    return by_class, [c for c in range(num_classes) if by_class[c]]


class Sampler:
    """Cuts augmented crops with targets from loaded sheets, reproducibly for a seed."""

    def __init__(self, sheets, num_classes, size, seed, symbol_share=0.75):
        self.sheets = sheets
        self.num_classes = num_classes
        self.size = size
        self.rng = np.random.default_rng(seed)
        self.symbol_share = symbol_share
        self.by_class, self.present = symbols_by_class(sheets, num_classes)

    def batch(self, n):
        xs, hs, rs, ms = [], [], [], []
        for _ in range(n):
            x, h, r, m = self.crop()
            xs.append(x)
            hs.append(h)
            rs.append(r)
            ms.append(m)
        return np.stack(xs), np.stack(hs), np.stack(rs), np.stack(ms)

    def crop(self):
        rng = self.rng
        scale = float(np.exp(rng.uniform(math.log(0.7), math.log(1.4))))
        src = int(math.ceil(self.size / scale))  # source window, resized to size
        if rng.random() < self.symbol_share:
            c = self.present[rng.integers(len(self.present))]
            si, bi = self.by_class[c][rng.integers(len(self.by_class[c]))]
            s = self.sheets[si]
            x0, y0, x1, y1 = s.boxes[bi]
            cx = (x0 + x1) / 2 + rng.uniform(-0.4, 0.4) * src
            cy = (y0 + y1) / 2 + rng.uniform(-0.4, 0.4) * src
            left, top = int(cx - src / 2), int(cy - src / 2)
        else:
            s = self.sheets[rng.integers(len(self.sheets))]
            H, W = s.gray.shape
            left, top = int(rng.integers(-src // 4, max(1, W - src + src // 4))), int(rng.integers(-src // 4, max(1, H - src + src // 4)))
        H, W = s.gray.shape
        paper = int(np.median(s.gray[:: 64, :: 64]))
        win = np.full((src, src), paper, np.uint8)
        sx0, sy0 = max(0, left), max(0, top)
        sx1, sy1 = min(W, left + src), min(H, top + src)
        if sx1 > sx0 and sy1 > sy0:
            win[sy0 - top:sy1 - top, sx0 - left:sx1 - left] = s.gray[sy0:sy1, sx0:sx1]
        img = Image.fromarray(win)
        if src != self.size:
            img = img.resize((self.size, self.size), Image.BILINEAR)
        k = self.size / src
        img = self.degrade(img)
        arr = (255.0 - np.asarray(img, np.float32)) / 255.0

        boxes, labels = [], []
        if len(s.boxes):
            b = s.boxes.copy()
            b[:, [0, 2]] = (b[:, [0, 2]] - left) * k
            b[:, [1, 3]] = (b[:, [1, 3]] - top) * k
            cx, cy = (b[:, 0] + b[:, 2]) / 2, (b[:, 1] + b[:, 3]) / 2
            keep = (cx >= 0) & (cy >= 0) & (cx < self.size) & (cy < self.size)
            # A symbol cut by the crop edge is still a symbol if most of it shows; tiles at
            # inference overlap by more than a symbol, so each is whole in some tile.
            vis = (np.clip(b[:, 2], 0, self.size) - np.clip(b[:, 0], 0, self.size)) * \
                  (np.clip(b[:, 3], 0, self.size) - np.clip(b[:, 1], 0, self.size))
            area = np.maximum((b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1]), 1e-6)
            keep &= vis / area > 0.6
            boxes, labels = b[keep], s.labels[keep]
        heat, reg, mask = encode(boxes, labels, self.size, self.num_classes)
        return arr[None], heat, reg, mask

    def degrade(self, img):
        return degrade(img, self.rng)


def degrade(img, rng):
    """Scan and photo degradations beyond the generator's: blur, contrast and fading,
    gamma, noise and JPEG, each on a share of crops."""
    if rng.random() < 0.3:
        img = img.filter(ImageFilter.GaussianBlur(radius=float(rng.uniform(0.3, 1.2))))
    a = np.asarray(img, np.float32)
    if rng.random() < 0.5:
        lo, hi = float(rng.uniform(0, 80)), float(rng.uniform(190, 255))
        a = lo + a * (hi - lo) / 255.0
    if rng.random() < 0.3:
        a = 255.0 * (a / 255.0) ** float(rng.uniform(0.6, 1.6))
    if rng.random() < 0.3:
        a = a + rng.normal(0, rng.uniform(2, 12), a.shape)
    img = Image.fromarray(np.clip(a + 0.5, 0, 255).astype(np.uint8))
    if rng.random() < 0.3:
        buf = io.BytesIO()
        img.save(buf, format="JPEG", quality=int(rng.integers(30, 90)))
        buf.seek(0)
        img = Image.open(buf).convert("L")
    return img
