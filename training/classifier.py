"""Second stage of the raster detector: a crop classifier that names each proposal.

    python training/classifier.py --data DIR --detector internal/raster/model/detector-int8.onnx \
        --out internal/raster/model [--steps N] [--seed S]

The one-stage detector (train.py) finds where symbols are far better than it tells them apart:
on a fresh generated set 97 % of symbols lay under a detection, 83 % under one of the right
class. So the detector proposes boxes at a low score threshold and this network looks at each
proposal on its own: a square crop around the box (CONTEXT times its longer side), scaled to
SIZE x SIZE pixels of ink, classified into the catalog classes plus "background" (not a
symbol: walls, text, furniture, look-alikes, boxes that miss).

Training crops come from three sources, each a fixed share of a batch:
  - ground-truth symbols, class-balanced, with the box jittered as the detector's are;
  - the detector's own proposals on the training sheets (mined once with ONNX Runtime, exactly
    the tiling and threshold the service uses), labelled with the class of the symbol they
    match at IoU >= POS_IOU, or background below NEG_IOU (between: left out);
  - random inked windows away from every symbol: background.
All are degraded like the detector's crops (data.degrade). One process, two threads, every seed
fixed; checkpoints every --ckpt-every steps into --work and a rerun resumes from them. At the
end the network is exported to ONNX (softmax inside) and quantised to int8; the detector's JSON
gets a "classifier" section naming the file, its input, context and background index.
"""

import argparse
import hashlib
import json
import math
import os
import random
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from PIL import Image, ImageFilter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import data  # noqa: E402
import export  # noqa: E402
from model import Res, conv  # noqa: E402
import quantize as int8  # noqa: E402
import train  # noqa: E402

SIZE = 64  # classifier input side, pixels
CONTEXT = 2.0  # crop side / longer proposal side: room for a symbol the proposal box cut short
MODEL_FILE = "classifier.onnx"
INT8_FILE = "classifier-int8.onnx"
PROPOSAL_THRESHOLD = 0.1  # detector score at which a peak becomes a proposal
# A proposal overlapping a symbol by POS_IOU or more is that symbol (its box is refined here);
# one overlapping every symbol by less than NEG_IOU is background; in between it is left out.
POS_IOU, NEG_IOU = 0.3, 0.15
BOX_WEIGHT = 5.0  # box loss weight against the class loss
CHANNELS = (24, 32, 64, 128, 192)  # the committed network's widths, stride 2, 2, 4, 8, 16


class Classifier(nn.Module):
    """Plain convolutions to a 4x4 map at stride 16, then fully connected layers: the
    flattened map keeps where in the crop each feature is (a tick on the left or the right of
    a lever is the class). Outputs: logits over the catalog classes and background (last),
    and the symbol's box as its edges x0, y0, x1, y1 in crop units (0..1 spans the crop)."""

    def __init__(self, num_classes, channels=CHANNELS, res16=True):
        super().__init__()
        c = channels
        layers = [conv(1, c[0], 2), conv(c[0], c[1]), conv(c[1], c[2], 2)]
        if res16:  # the residual block on the 16x16 map: a third of the committed network's arithmetic
            layers.append(Res(c[2]))
        self.features = nn.Sequential(*layers, conv(c[2], c[3], 2), Res(c[3]), conv(c[3], c[4], 2))
        self.fc = nn.Sequential(nn.Flatten(), nn.Linear(c[4] * (SIZE // 16) ** 2, 256), nn.ReLU(inplace=True),
                                nn.Dropout(0.2))
        self.cls = nn.Linear(256, num_classes + 1)
        self.box = nn.Linear(256, 4)

    def forward(self, x):
        f = self.fc(self.features(x))
        return self.cls(f), self.box(f)


class Deploy(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x):
        logits, box = self.net(x)
        return F.softmax(logits, dim=1), box


def iou_matrix(a, b):
    """IoU of every box in a (Nx4 x0,y0,x1,y1) with every box in b (Mx4)."""
    if len(a) == 0 or len(b) == 0:
        return np.zeros((len(a), len(b)), np.float32)
    x0 = np.maximum(a[:, None, 0], b[None, :, 0])
    y0 = np.maximum(a[:, None, 1], b[None, :, 1])
    x1 = np.minimum(a[:, None, 2], b[None, :, 2])
    y1 = np.minimum(a[:, None, 3], b[None, :, 3])
    inter = np.clip(x1 - x0, 0, None) * np.clip(y1 - y0, 0, None)
    aa = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    ab = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    return inter / np.maximum(aa[:, None] + ab[None, :] - inter, 1e-6)


def positions(n, t, overlap):
    """internal/raster's tiling of one side: the fewest windows of one length (a multiple of
    16, at most t) overlapping by at least overlap, spread evenly, the last flush."""
    k = 1
    if n > t:
        k = (n - overlap + t - overlap - 1) // (t - overlap)
    length = min(t, (n + (k - 1) * overlap + 15) // 16 * 16)
    return [0 if k == 1 else i * (n - length) // (k - 1) for i in range(k)], length


def propose(sess, gray, meta, threshold):
    """The detector's peaks on one sheet (boxes x0,y0,x1,y1 and scores) after the service's
    class-agnostic suppression, as internal/raster computes them before classification."""
    H, W = gray.shape
    tile, overlap, stride = meta["tile"], meta["overlap"], meta["stride"]
    xs, tw = positions(W, tile, overlap)
    ys, th = positions(H, tile, overlap)
    boxes, scores = [], []
    for y in ys:
        for x in xs:
            win = np.full((th, tw), 255, np.uint8)
            part = gray[y:y + th, x:x + tw]
            win[:part.shape[0], :part.shape[1]] = part
            if (win < 128).sum() == 0:
                continue
            ink = ((255.0 - win.astype(np.float32)) / 255.0)[None, None]
            score, _, peak, box = sess.run(None, {"ink": ink})
            sel = np.argwhere((score[0, 0] >= threshold) & (peak[0, 0] > 0))
            for gy, gx in sel:
                cx = x + (gx + box[0, 0, gy, gx]) * stride
                cy = y + (gy + box[0, 1, gy, gx]) * stride
                w = math.exp(min(float(box[0, 2, gy, gx]), 6)) * stride
                h = math.exp(min(float(box[0, 3, gy, gx]), 6)) * stride
                boxes.append([max(cx - w / 2, 0), max(cy - h / 2, 0), min(cx + w / 2, W), min(cy + h / 2, H)])
                scores.append(float(score[0, 0, gy, gx]))
    if not boxes:
        return np.zeros((0, 4), np.float32), np.zeros(0, np.float32)
    boxes, scores = np.array(boxes, np.float32), np.array(scores, np.float32)
    order = np.argsort(-scores, kind="stable")
    keep = []
    for i in order:
        if keep and iou_matrix(boxes[i:i + 1], boxes[keep]).max() > 0.5:
            continue
        keep.append(i)
    return boxes[keep], scores[keep]


# A pair box spans two proposals that could be the two ends of a beam detector (two small boxes
# joined by a dashed line, their centres about four box sides apart): both nearly square
# (sides within PAIR_SQUARE of each other), of similar size (longer sides within PAIR_SIZE), in
# line (centres off the line by at most PAIR_ACROSS of their mean size) and PAIR_NEAR..PAIR_FAR
# mean sizes apart. On seed 26112621, 76 of its 207 beam detectors lay under a proposal at IoU
# 0.5 and 72 more only under such a pair box.
PAIR_SQUARE, PAIR_SIZE, PAIR_ACROSS, PAIR_NEAR, PAIR_FAR = 1.6, 1.5, 0.3, 3.0, 5.5


def pair_boxes(boxes):
    """The pair boxes (x0, y0, x1, y1) of one sheet's proposals, in proposal order."""
    out = []
    sq = []
    for b in boxes:
        w, h = float(b[2] - b[0]), float(b[3] - b[1])
        sq.append(w <= PAIR_SQUARE * h and h <= PAIR_SQUARE * w)
    for i, a in enumerate(boxes):
        if not sq[i]:
            continue
        sa = float(max(a[2] - a[0], a[3] - a[1]))
        for j in range(i + 1, len(boxes)):
            b = boxes[j]
            if not sq[j]:
                continue
            sb = float(max(b[2] - b[0], b[3] - b[1]))
            if sb > PAIR_SIZE * sa or sa > PAIR_SIZE * sb:
                continue
            size = (sa + sb) / 2
            dx = abs(float(a[0] + a[2] - b[0] - b[2])) / 2
            dy = abs(float(a[1] + a[3] - b[1] - b[3])) / 2
            along, across = max(dx, dy), min(dx, dy)
            if across > PAIR_ACROSS * size or along < PAIR_NEAR * size or along > PAIR_FAR * size:
                continue
            out.append([min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])])
    return np.array(out, np.float32).reshape(-1, 4)


def with_pairs(proposals):
    """Each sheet's proposals followed by its pair boxes (scored 0: they come from no peak)."""
    out = []
    for pb, ps in proposals:
        pairs = pair_boxes(pb)
        out.append((np.concatenate([pb, pairs]), np.concatenate([ps, np.zeros(len(pairs), ps.dtype)])))
    return out


# The service's coarse look (internal/raster/coarse.go, detector.json "coarse_look"): the detector
# looks at the page once more at half its pixels along each side, and keeps what it proposes there
# that is at least COARSE_MIN_SIDE page pixels long, scores at least COARSE_MIN_SCORE and overlaps
# no full-resolution proposal by more than IoU 0.5 (beam detectors 120-160 pixels long, which the
# full-resolution look proposes end by end). With --coarse the tune cycle learns from those
# proposals as it does from the others, and the JSON gets the same "coarse_look".
COARSE_FACTOR, COARSE_MIN_SIDE, COARSE_MIN_SCORE = 0.5, 80.0, 0.3


def coarse_propose(sess, gray, meta, kept):
    """The coarse look's proposals on one sheet (page pixels), given its full-resolution
    proposals kept: the page shrunk with Pillow's bilinear filter (as the service's gray.scaled),
    proposed as propose does, mapped back and filtered as the service filters them."""
    H, W = gray.shape
    small = np.asarray(Image.fromarray(gray).resize((max(round(W * COARSE_FACTOR), 1), max(round(H * COARSE_FACTOR), 1)),
                                                    Image.BILINEAR))
    boxes, scores = propose(sess, small, meta, PROPOSAL_THRESHOLD)
    boxes = boxes / COARSE_FACTOR
    side = np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])
    keep = (side >= COARSE_MIN_SIDE) & (scores >= COARSE_MIN_SCORE)
    if len(kept):
        keep &= iou_matrix(boxes, kept).max(axis=1) <= 0.5
    return boxes[keep].astype(np.float32).reshape(-1, 4), scores[keep].astype(np.float32)


def mine_coarse(sheets, proposals, detector, meta, cache, log, first=0):
    """coarse_propose on every sheet (proposals: their full-resolution proposals), cached as mine's."""
    def describe(out, secs):
        return f"coarse look: {sum(len(b) for b, _ in out)} proposals on {len(sheets)} sheets in {secs:.0f} s"
    return cached(sheets, detector, cache, log, first, "coarse", f"{COARSE_FACTOR}-{COARSE_MIN_SIDE}-{COARSE_MIN_SCORE}",
                  lambda sess, i, s: coarse_propose(sess, s.gray, meta, proposals[i][0]), describe)


def with_coarse(proposals, coarse, weight):
    """Each sheet's proposals followed by its coarse-look proposals, each weight times (so the
    few of them are drawn as often as a share of the crops worth learning from)."""
    out = []
    for (pb, ps), (cb, cs) in zip(proposals, coarse):
        out.append((np.concatenate([pb] + [cb] * weight), np.concatenate([ps] + [cs] * weight)))
    return out


def mine(sheets, detector, meta, threshold, cache, log, first=0):
    """Proposals on every sheet, cached by the detector's SHA-256, the threshold and the
    sheets' span (first: the index of sheets[0] in --data)."""
    return cached(sheets, detector, cache, log, first, "proposals", f"{threshold}",
                  lambda sess, i, s: propose(sess, s.gray, meta, threshold),
                  lambda out, secs: f"mined proposals on {len(sheets)} sheets in {secs:.0f} s")


def cached(sheets, detector, cache, log, first, kind, tag, fn, describe):
    """fn(session, index, sheet) -> (boxes, scores) for every sheet, the detector run by ONNX
    Runtime on two threads, kept in cache as kind-SHA-tag-span.npz (the detector's SHA-256; span:
    the sheets' place in --data, first the index of sheets[0]) and read back from there."""
    path = cache_path(detector, cache, kind, tag, first, len(sheets))
    if os.path.exists(path):
        z = np.load(path)
        return [(z[f"b{i}"], z[f"s{i}"]) for i in range(len(sheets))]
    sess = detector_session(detector)
    t0 = time.time()
    out = [fn(sess, i, s) for i, s in enumerate(sheets)]
    save_cached(path, out)
    log(describe(out, time.time() - t0))
    return out


def cache_path(detector, cache, kind, tag, first, n):
    """Where cached keeps kind's results for the n sheets of --data from index first."""
    with open(detector, "rb") as f:
        key = hashlib.sha256(f.read()).hexdigest()[:16]
    span = f"{n}" if first == 0 else f"{first}-{first + n}"
    return os.path.join(cache, f"{kind}-{key}-{tag}-{span}.npz")


def save_cached(path, out):
    """Writes a list of (boxes, scores), one per sheet, where cached reads it back."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    np.savez(path + ".tmp.npz", **{f"b{i}": b for i, (b, _) in enumerate(out)}, **{f"s{i}": s for i, (_, s) in enumerate(out)})
    os.replace(path + ".tmp.npz", path)


def detector_session(detector):
    """The proposal network in ONNX Runtime on two threads, as mining runs it."""
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = 2
    return ort.InferenceSession(detector, so, providers=["CPUExecutionProvider"])


class Sampler:
    """Classifier crops with labels (class index, background = num_classes), reproducible."""

    def __init__(self, sheets, proposals, num_classes, seed, shares=(0.45, 0.35, 0.20), weights=None):
        """weights, per class, is how often its symbols are drawn against the others' (None: all
        alike: class-balanced)."""
        self.sheets, self.C = sheets, num_classes
        self.rng = np.random.default_rng(seed)
        self.shares = np.cumsum(shares)
        self.turn_share = 0.5
        self.bold = 0.0  # share of crops with thickened strokes (crop)
        self.tiny = 0.0  # share of crops shrunk and enlarged back (crop)
        self.by_class, self.present = data.symbols_by_class(sheets, num_classes)
        self.draw = None
        if weights is not None:
            w = np.array([weights[c] for c in self.present], np.float64)
            self.draw = w / w.sum()
        # Proposals labelled against the ground truth.
        self.props = []  # (sheet index, proposal box, label, symbol box or None)
        for si, (s, (pb, _)) in enumerate(zip(sheets, proposals)):
            if len(pb) == 0:
                continue
            m = iou_matrix(pb, s.boxes)
            for j, b in enumerate(pb):
                best = int(m[j].argmax()) if m.shape[1] else -1
                v = float(m[j, best]) if best >= 0 else 0.0
                if v >= POS_IOU:
                    self.props.append((si, b, int(s.labels[best]), s.boxes[best]))
                elif v < NEG_IOU:
                    self.props.append((si, b, num_classes, None))
        sizes = [np.maximum(s.boxes[:, 2] - s.boxes[:, 0], s.boxes[:, 3] - s.boxes[:, 1]) for s in sheets if len(s.boxes)]
        self.sizes = np.concatenate(sizes) if sizes else np.array([32.0])

    def stats(self):
        neg = sum(1 for p in self.props if p[2] == self.C)
        return len(self.props), neg

    def batch(self, n):
        """n crops (n x 1 x SIZE x SIZE ink), their labels, box targets in crop units (zeros
        for background) and box loss weights (0 for background and inexact targets)."""
        xs, ys, bs, ws = [], [], [], []
        for _ in range(n):
            x, y, b, w = self.sample()
            xs.append(x)
            ys.append(y)
            bs.append(b)
            ws.append(w)
        return np.stack(xs), np.array(ys, np.int64), np.stack(bs).astype(np.float32), np.array(ws, np.float32)

    def sample(self):
        """One crop: (ink, label, box target, box weight). The proposal box is what the crop
        is cut around; the target is the symbol's box in crop units. Symbols are drawn at any
        angle, mirrored or not, and the class does not change with either: half the crops are
        turned (a quarter turn or any angle) and some mirrored; the box is learnt only where
        the turn keeps it exact."""
        rng = self.rng
        s, prop, label, gt = self.pick()
        left, top, side = crop_box(prop)
        turn = None
        if rng.random() < self.turn_share:
            degrees = float(90 * rng.integers(1, 4)) if rng.random() < 0.5 else float(rng.uniform(0, 360))
            turn = (degrees, bool(rng.random() < 0.3))
        ink = crop(s.gray, prop, rng, turn, self.bold, self.tiny)
        if gt is None:
            return ink, label, np.zeros(4, np.float32), 0.0
        t = np.array([(gt[0] - left) / side, (gt[1] - top) / side, (gt[2] - left) / side, (gt[3] - top) / side], np.float32)
        if turn is None:
            return ink, label, t, 1.0
        return ink, label, turn_box(t, *turn), float(turn[0] % 90 == 0)

    def pick(self):
        """(sheet, proposal box, label, symbol box or None) from one of the three sources."""
        rng = self.rng
        u = rng.random()
        if u < self.shares[0] or not self.props:
            # A symbol, class-balanced, its box disturbed as the detector's are: centre off by
            # a few percent, each side's length off by up to a factor of two (the detector
            # cuts long symbols short).
            if self.draw is None:
                c = self.present[rng.integers(len(self.present))]
            else:
                c = self.present[rng.choice(len(self.present), p=self.draw)]
            si, bi = self.by_class[c][rng.integers(len(self.by_class[c]))]
            s = self.sheets[si]
            gt = s.boxes[bi]
            x0, y0, x1, y1 = gt
            w, h = x1 - x0, y1 - y0
            cx = (x0 + x1) / 2 + rng.normal(0, 0.08) * w
            cy = (y0 + y1) / 2 + rng.normal(0, 0.08) * h
            w *= math.exp(float(np.clip(rng.normal(0, 0.25), -0.7, 0.4)))
            h *= math.exp(float(np.clip(rng.normal(0, 0.25), -0.7, 0.4)))
            return s, (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2), int(c), gt
        if u < self.shares[1]:
            si, b, label, gt = self.props[rng.integers(len(self.props))]
            return self.sheets[si], b, label, gt
        # A random inked window of a symbol's size that holds no symbol.
        for _ in range(50):
            s = self.sheets[rng.integers(len(self.sheets))]
            H, W = s.gray.shape
            side = float(self.sizes[rng.integers(len(self.sizes))]) * math.exp(rng.normal(0, 0.2))
            cx, cy = rng.uniform(0, W), rng.uniform(0, H)
            b = np.array([[cx - side / 2, cy - side / 2, cx + side / 2, cy + side / 2]], np.float32)
            xi, yi = int(min(max(cx, 0), W - 1)), int(min(max(cy, 0), H - 1))
            r = max(2, int(side / 4))
            if s.gray[max(0, yi - r):yi + r, max(0, xi - r):xi + r].min(initial=255) > 128:
                continue  # blank paper: the detector does not propose it
            if len(s.boxes) and iou_matrix(b, s.boxes).max() >= 0.1:
                continue
            return s, b[0], self.C, None
        return self.sheets[0], (0, 0, 32, 32), self.C, None


# The side, in pixels, a tiny crop (crop) is shrunk to: the window around a symbol 11-17 pixels
# long (twice its side), the sizes of a sheet at symbol scale 0.3 (0.6 at 150 DPI).
TINY_SIDES = (22, 34)


def crop_box(box):
    """The square window a proposal is classified from: CONTEXT times its longer side."""
    x0, y0, x1, y1 = (float(v) for v in box)
    side = max(x1 - x0, y1 - y0, 4.0) * CONTEXT
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    return cx - side / 2, cy - side / 2, side


def crop(gray, box, rng=None, turn=None, bold=0.0, tiny=0.0):
    """SIZE x SIZE ink of the window crop_box gives, bilinear, paper beyond the sheet; with an
    rng, degraded as training crops are. turn=(degrees, mirror) mirrors the window left to
    right, then turns it counter-clockwise about its centre (cut from a window half as large
    again at the same scale, so the corners hold page, not fill). With an rng, a share bold of
    crops has its strokes thickened first (a 3 x 3 minimum filter on the SIZE-pixel crop: sheets
    drawn with a heavy pen at a small symbol scale fill a symbol's inside with ink); bold 0 draws
    no extra random number, so the crops are those of a run without it. A share tiny of crops is
    first shrunk to TINY_SIDES pixels and enlarged back, as a symbol a dozen pixels long on a large
    sheet scanned at 150 DPI reaches the classifier; tiny 0 draws nothing either."""
    left, top, side = crop_box(box)
    if turn is None:
        img = resized(gray, left, top, side, SIZE)
    else:
        degrees, mirror = turn
        big = SIZE * 3 // 2
        bs = side * big / SIZE
        img = resized(gray, left - (bs - side) / 2, top - (bs - side) / 2, bs, big)
        if mirror:
            img = img.transpose(Image.FLIP_LEFT_RIGHT)
        if degrees:
            img = img.rotate(degrees, resample=Image.BILINEAR, fillcolor=255)
        o = (big - SIZE) // 2
        img = img.crop((o, o, o + SIZE, o + SIZE))
    if rng is not None:
        if tiny > 0 and rng.random() < tiny:
            k = int(rng.integers(TINY_SIDES[0], TINY_SIDES[1] + 1))
            img = img.resize((k, k), Image.BILINEAR).resize((SIZE, SIZE), Image.BILINEAR)
        if bold > 0 and rng.random() < bold:
            img = img.filter(ImageFilter.MinFilter(3))
        img = data.degrade(img, rng)
    return ((255.0 - np.asarray(img, np.float32)) / 255.0)[None]


def turn_box(t, degrees, mirror):
    """A box in crop units (x0, y0, x1, y1) after crop's turn: exact for quarter turns; for
    other angles the bounding box of the turned corners (larger than the symbol's own)."""
    xs, ys = np.array([t[0], t[2], t[2], t[0]]), np.array([t[1], t[1], t[3], t[3]])
    if mirror:
        xs = 1 - xs
    a = math.radians(degrees)
    dx, dy = xs - 0.5, ys - 0.5
    rx = 0.5 + dx * math.cos(a) + dy * math.sin(a)
    ry = 0.5 - dx * math.sin(a) + dy * math.cos(a)
    return np.array([rx.min(), ry.min(), rx.max(), ry.max()], np.float32)


def resized(gray, left, top, side, out):
    """out x out pixels of the square window (left, top, side) of gray, as Pillow resizes."""
    H, W = gray.shape
    l, t = int(math.floor(left)), int(math.floor(top))
    n = int(math.ceil(side)) + 1
    win = np.full((n, n), 255, np.uint8)
    sx0, sy0, sx1, sy1 = max(0, l), max(0, t), min(W, l + n), min(H, t + n)
    if sx1 > sx0 and sy1 > sy0:
        win[sy0 - t:sy1 - t, sx0 - l:sx1 - l] = gray[sy0:sy1, sx0:sx1]
    fx, fy = left - l, top - t
    return Image.fromarray(win).resize((out, out), Image.BILINEAR, box=(fx, fy, fx + side, fy + side))


def widths(text):
    """--channels: five positive convolution widths, comma-separated."""
    try:
        c = tuple(int(v) for v in text.split(","))
    except ValueError:
        c = ()
    if len(c) != 5 or min(c) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not five positive widths, comma-separated")
    return c


def parse():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", required=True, help="directory of make synth KIND=raster sheets")
    p.add_argument("--detector", default="internal/raster/model/detector-int8.onnx", help="the proposal network (ONNX)")
    p.add_argument("--catalog", default="internal/catalog/symbols.json")
    p.add_argument("--out", default="internal/raster/model")
    p.add_argument("--work", default="build/train-classifier")
    p.add_argument("--seed", type=int, default=20251124)
    p.add_argument("--steps", type=int, default=8000)
    p.add_argument("--batch", type=int, default=128)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--device", default="cpu",
                   help="torch device to train on (cuda: iterate faster on a lent GPU; make train uses the CPU, "
                        "and the weights differ from a CPU run's in the low bits)")
    p.add_argument("--workers", type=int, default=0,
                   help="processes drawing the batches (0: this one, the reproducible run; with more the "
                        "batches differ from it, see Batches)")
    p.add_argument("--ckpt-every", type=int, default=100)
    p.add_argument("--val-sheets", type=int, default=8)
    p.add_argument("--extra", type=int, default=0,
                   help="after --steps, a second cosine cycle of this many steps from half the learning rate "
                        "(a warm restart; identical to the plain run up to --steps, so it resumes one)")
    p.add_argument("--tune", type=int, default=0,
                   help="after --steps and --extra, a third cosine cycle of this many steps from a quarter of the "
                        "learning rate, on the training sheets plus the next --tune-sheets of --data, drawing the "
                        "--hard classes' symbols --hard-weight times as often (the run is the same as without it up to there)")
    p.add_argument("--tune-sheets", type=int, default=0, help="sheets of --data after the --max-sheets the tune cycle adds")
    p.add_argument("--hard", default="", help="comma-separated classes the tune cycle draws more often")
    p.add_argument("--hard-weight", type=float, default=3.0)
    p.add_argument("--pairs", action="store_true",
                   help="the tune cycle also learns from pair boxes (pair_boxes): a box over two similar, aligned "
                        "proposals, a beam detector where it covers one, background where it covers nothing")
    p.add_argument("--tiny", type=float, default=0.0,
                   help="share of the tune cycle's crops shrunk to TINY_SIDES pixels and enlarged back (symbols a "
                        "dozen pixels long); 0 leaves every crop as it was")
    p.add_argument("--tiny-all", action="store_true",
                   help="--tiny applies from the first step, not only in the tune cycle")
    p.add_argument("--coarse", type=int, default=0,
                   help="the tune cycle also learns from the service's coarse-look proposals (coarse_propose), each "
                        "drawn this many times as often as a proposal; the JSON gets the coarse_look (0: neither)")
    p.add_argument("--stop-at", type=int, default=0, help="stop and export at this step (0: at the end)")
    p.add_argument("--max-sheets", type=int, default=0, help="the first this many sheets of --data (0: all)")
    p.add_argument("--bf16", action="store_true", help=train.BF16_HELP)
    p.add_argument("--channels", type=widths, default=CHANNELS, metavar="C0,C1,C2,C3,C4",
                   help="the five convolution widths (the committed network's by default)")
    p.add_argument("--no-res16", action="store_true",
                   help="leave out the residual block on the 16x16 map (a cheaper network)")
    p.add_argument("--channels-last", action="store_true",
                   help="float32 in the channels-last layout: the network's arithmetic about a quarter faster "
                        "on an AVX-512 CPU; other bits than the default layout")
    p.add_argument("--bold", type=float, default=0.0,
                   help="share of training crops with thickened strokes (0: none; the committed model used 0.15: "
                        "the Makefile's CLASSIFIER_FLAGS)")
    return p.parse_args()


def losses(net, x, y, b, w, num_classes, device="cpu", bf16=False, channels_last=False):
    """Cross-entropy over classes and background, plus the box loss where its target is exact.
    The batch is NumPy arrays (one process) or tensors (a --workers loader). With bf16 the
    network runs in bfloat16 under autocast, channels last (the losses in float32)."""
    x, y, b, w = (torch.as_tensor(v).to(device) for v in (x, y, b, w))
    logits, box = train.forward(net, x, bf16, channels_last)
    loss = F.cross_entropy(logits, y, label_smoothing=0.05)
    if w.sum() > 0:
        per = F.smooth_l1_loss(box, b, beta=0.05, reduction="none").mean(dim=1)
        loss = loss + BOX_WEIGHT * (per * w).sum() / w.sum()
    return loss


class Batches(torch.utils.data.IterableDataset):
    """An endless stream of a sampler's batches for a --workers loader: each worker draws
    from its own generator, seeded from the run's seed and its index, so the stream is
    reproducible for a given worker count but is not the one-process run's."""

    def __init__(self, smp, n, seed):
        super().__init__()
        self.smp, self.n, self.seed = smp, n, seed

    def __iter__(self):
        info = torch.utils.data.get_worker_info()
        self.smp.rng = np.random.default_rng([self.seed, info.id if info else 0])
        while True:
            yield self.smp.batch(self.n)


def batches(smp, n, workers, seed):
    """smp's batches: drawn in this process (workers 0, the reproducible run) or by worker
    processes (--workers, for iterating on a lent GPU, where one process cannot keep it busy)."""
    if workers <= 0:
        while True:
            yield smp.batch(n)
    yield from torch.utils.data.DataLoader(Batches(smp, n, seed), batch_size=None, num_workers=workers,
                                           prefetch_factor=4, persistent_workers=False)


def export_onnx(net, out, log):
    path = os.path.join(out, MODEL_FILE)
    dep = Deploy(net).eval()
    torch.onnx.export(dep, (torch.zeros(1, 1, SIZE, SIZE),), path, opset_version=export.OPSET, dynamo=False,
                      do_constant_folding=True, input_names=["crop"], output_names=["prob", "box"],
                      dynamic_axes={"crop": {0: "n"}, "prob": {0: "n"}, "box": {0: "n"}})
    log(f"onnx {path}: {os.path.getsize(path)} bytes")
    return path


def quantize(src, dst, sheets, proposals, num_classes, seed, log):
    """int8 (quantize.static_int8; min/max on 512 training crops, unturned)."""
    smp = Sampler(sheets, proposals, num_classes, seed)
    smp.turn_share = 0.0
    items = [{"crop": smp.batch(64)[0]} for _ in range(8)]
    digest = int8.static_int8(src, dst, items, ["Conv", "Add", "Relu", "Gemm", "MatMul"])
    log(f"int8 {dst}: {os.path.getsize(dst)} bytes, sha256 {digest}")
    return digest


def main():
    a = parse()
    torch.set_num_threads(a.threads)
    random.seed(a.seed)
    np.random.seed(a.seed)
    torch.manual_seed(a.seed)
    classes = data.load_classes(a.catalog)
    C = len(classes)
    ckpt_path = os.path.join(a.work, "checkpoint.pt")
    resume = os.path.exists(ckpt_path)
    log = train.Log(os.path.join(a.out, "classifier-log.txt"), fresh=not resume)
    with open(os.path.join(a.out, export.META_FILE)) as f:
        meta = json.load(f)
    t0 = time.time()
    sheets = data.load_sheets(a.data, classes, a.max_sheets)
    proposals = mine(sheets, a.detector, meta, PROPOSAL_THRESHOLD, a.work, log)
    fit, val = sheets[:-a.val_sheets], sheets[-a.val_sheets:]
    smp = Sampler(fit, proposals[:-a.val_sheets], C, a.seed)
    smp.bold = a.bold
    if a.tiny_all:
        smp.tiny = a.tiny
    vsmp = Sampler(val, proposals[-a.val_sheets:], C, a.seed + 1)
    hard = [c for c in a.hard.split(",") if c]
    for c in hard:
        if c not in classes:
            sys.exit(f"--hard: {c} is not a catalog class")
    cycles = a.steps + max(0, a.extra)  # where the tune cycle starts
    total = cycles + max(0, a.tune)

    def tune_sampler():
        """The tune cycle's sampler: the training sheets and the next --tune-sheets, hard classes
        drawn more often, its own seed (so a run resumed inside the cycle builds it the same)."""
        more = data.load_sheets(a.data, classes, a.tune_sheets, skip=len(sheets)) if a.tune_sheets > 0 else []
        more_props = mine(more, a.detector, meta, PROPOSAL_THRESHOLD, a.work, log, first=len(sheets)) if more else []
        weights = [a.hard_weight if classes[c] in hard else 1.0 for c in range(C)]
        props = proposals[:-a.val_sheets] + more_props
        if a.coarse > 0:
            coarse = mine_coarse(fit, proposals[:-a.val_sheets], a.detector, meta, a.work, log)
            if more:
                coarse += mine_coarse(more, more_props, a.detector, meta, a.work, log, first=len(sheets))
            props = with_coarse(props, coarse, a.coarse)
        if a.pairs:
            props = with_pairs(props)
        t = Sampler(fit + more, props, C, a.seed + 3, weights=weights)
        t.bold = a.bold
        t.tiny = a.tiny
        n_p, n_n = t.stats()
        log(f"tune cycle: {len(fit) + len(more)} training sheets ({len(more)} more), {n_p} proposals ({n_n} background), "
            f"{len(hard)} classes drawn {a.hard_weight} times as often" + (", pair boxes" if a.pairs else "")
            + (f", tiny {a.tiny}" if a.tiny else "") + (f", coarse look x{a.coarse}" if a.coarse else ""))
        return t

    n_prop, n_neg = smp.stats()
    log(f"data {a.data}: {len(fit)} training sheets, {len(val)} held out; {n_prop} proposals ({n_neg} background) "
        f"at detector score {PROPOSAL_THRESHOLD}; loaded in {time.time() - t0:.0f} s")
    vsmp.turn_share = 0.0
    vx, vy, vb, _ = vsmp.batch(1024)

    net = Classifier(C, a.channels, res16=not a.no_res16).to(a.device)
    if a.bf16 or a.channels_last:
        net = net.to(memory_format=torch.channels_last)
    opt = torch.optim.AdamW(net.parameters(), lr=a.lr, weight_decay=1e-4)
    step = 0
    if resume:
        ck_step = train.checkpoint_step(ckpt_path)
        if a.tune > 0 and ck_step > cycles:
            smp = tune_sampler()
        step = train.load_checkpoint(ckpt_path, net, opt, smp.rng)
        log(f"resumed at step {step} from {ckpt_path}")
    log(f"classifier: {sum(p.numel() for p in net.parameters())} parameters, {C}+1 classes, input {SIZE}, "
        f"context {CONTEXT}, batch {a.batch}, steps {a.steps}+{a.extra}, seed {a.seed}, threads {a.threads}"
        + (f", bold {a.bold}" if a.bold else "") + (f", tiny {a.tiny} from step 0" if a.tiny_all and a.tiny else "")
        + (f", tune {a.tune}" if a.tune else "") + (", bfloat16" if a.bf16 else "")
        + (f", channels {','.join(map(str, a.channels))}" if a.channels != CHANNELS else "") + (", no 16x16 residual block" if a.no_res16 else "")
        + (", channels last" if a.channels_last else ""))
    end = a.stop_at if 0 < a.stop_at < total else total

    def lr(step):
        return train.lr_at(step, a.steps, a.lr, extra=a.extra, tune=a.tune)
    net.train()
    run, t_run = 0.0, time.time()
    stream = batches(smp, a.batch, a.workers, a.seed + 10 + step)
    while step < end:
        if a.tune > 0 and step == cycles:
            smp = tune_sampler()
            stream = batches(smp, a.batch, a.workers, a.seed + 13)
        for g in opt.param_groups:
            g["lr"] = lr(step)
        loss = losses(net, *next(stream), C, a.device, a.bf16, a.channels_last)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(net.parameters(), 10.0)
        opt.step()
        step += 1
        run += loss.item()
        if step % 25 == 0:
            log(f"step {step}/{total} loss {run / 25:.4f} lr {lr(step):.2e} {(time.time() - t_run) / 25:.2f} s/step")
            run, t_run = 0.0, time.time()
        if step % a.ckpt_every == 0 or step == end:
            train.save_checkpoint(ckpt_path, net, opt, smp.rng, step)
            net.eval()
            with torch.no_grad():
                outs = [net(torch.from_numpy(vx[i:i + 256]).to(a.device)) for i in range(0, len(vx), 256)]
            net.train()
            pred = torch.cat([o[0] for o in outs]).argmax(1).cpu().numpy()
            box = torch.cat([o[1] for o in outs]).cpu().numpy()
            sym = vy < C
            iou = np.diag(iou_matrix(box[sym], vb[sym])) if sym.any() else np.zeros(1)
            log(f"checkpoint step {step}: held-out accuracy {np.mean(pred == vy):.4f} "
                f"(symbols {np.mean(pred[sym] == vy[sym]):.4f}, background {np.mean(pred[~sym] == vy[~sym]):.4f}), "
                f"box IoU >= 0.5 {np.mean(iou >= 0.5):.4f}")

    net = net.cpu().to(memory_format=torch.contiguous_format).eval()
    src = export_onnx(net, a.out, log)
    digest = quantize(src, os.path.join(a.out, INT8_FILE), fit, proposals[:-a.val_sheets], C, a.seed + 2, log)
    # keep the threshold, views, calibrations, box corrections and long looks measured on a set
    old = meta.get("classifier", {})
    meta["classifier"] = {
        "model": INT8_FILE,
        "sha256": digest,
        "input": {"name": "crop", "size": SIZE, "value": meta["input"]["value"]},
        "outputs": ["prob", "box"],
        "context": CONTEXT,
        "background": C,
        "proposal_threshold": PROPOSAL_THRESHOLD,
        "score_threshold": old.get("score_threshold", 0.1),
        "views": old.get("views", 1),
        "refine_views": old.get("refine_views", 0),
        "calibration": old.get("calibration", [[0, 0], [1, 1]]),
    }
    for key in ("class_calibration", "box_scale", "long_look"):
        if key in old:
            meta["classifier"][key] = old[key]
    if a.pairs and a.tune > 0:
        meta["classifier"]["pairs"] = True  # the service proposes pair boxes to this classifier
    if a.coarse > 0 and a.tune > 0:  # the service looks coarsely for this classifier
        meta["coarse_look"] = {"factor": COARSE_FACTOR, "min_side": COARSE_MIN_SIDE, "min_score": COARSE_MIN_SCORE}
    export.write_meta(os.path.join(a.out, export.META_FILE), meta)
    log(f"classifier exported; wall {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
