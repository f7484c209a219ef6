"""A small anchor-free detector (CenterNet-style) for symbols on drawings.

Grayscale ink in, stride-8 maps out. Plain 3x3 convolutions with batch norm (folded into the
convolutions at export) and ReLU: every operator is a stock ONNX one that ONNX Runtime runs
fast on CPU and quantises to int8. A stride-16 stage widens the receptive field (~150 px) past
the largest symbol (~110 px at 300 DPI) and is added back onto the stride-8 map.

Heads: a class heat map (one channel per catalog class, focal loss) and a regression map
(centre offset within the cell, log width and height in cells).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


def conv(cin, cout, stride=1):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class Res(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.a = conv(c, c)
        self.b = nn.Sequential(nn.Conv2d(c, c, 3, 1, 1, bias=False), nn.BatchNorm2d(c))

    def forward(self, x):
        return F.relu(x + self.b(self.a(x)))


class Detector(nn.Module):
    def __init__(self, num_classes, width=1.0):
        super().__init__()
        c1, c2, c3, c4 = (int(v * width) for v in (16, 24, 48, 96))
        self.stem = nn.Sequential(conv(1, c1, 2), conv(c1, c2, 2), conv(c2, c2))  # stride 4
        self.s8 = nn.Sequential(conv(c2, c3, 2), Res(c3))  # stride 8
        self.s16 = nn.Sequential(conv(c3, c4, 2), Res(c4))  # stride 16
        self.lat = nn.Conv2d(c4, c3, 1)
        self.fuse = conv(c3, c3)
        self.head = conv(c3, 64)
        self.heat = nn.Conv2d(64, num_classes, 1)
        self.reg = nn.Conv2d(64, 4, 1)
        nn.init.constant_(self.heat.bias, -4.6)  # prior 0.01: focal loss starts stable

    def forward(self, x):
        f8 = self.s8(self.stem(x))
        f16 = self.s16(f8)
        f = self.fuse(f8 + F.interpolate(self.lat(f16), scale_factor=2.0, mode="nearest"))
        h = self.head(f)
        return self.heat(h), self.reg(h)


class Deploy(nn.Module):
    """The exported graph: per stride-8 cell the best class's probability, that class, whether
    the cell is a 3x3 local maximum of the best-class map (a detection peak), and the box
    regression. Decoding peaks above a threshold is all that is left to the caller."""

    def __init__(self, det):
        super().__init__()
        self.det = det

    def forward(self, x):
        logits, reg = self.det(x)
        prob = torch.sigmoid(logits)
        score, cls = prob.max(dim=1, keepdim=True)
        peak = (F.max_pool2d(score, 3, 1, 1) == score).to(torch.float32)
        return score, cls.to(torch.int32), peak, reg


def focal_loss(logits, target):
    """CenterNet's penalty-reduced focal loss, normalised by the number of objects."""
    p = torch.sigmoid(logits).clamp(1e-4, 1 - 1e-4)
    pos = target.eq(1).float()
    neg = 1 - pos
    pos_loss = torch.log(p) * (1 - p) ** 2 * pos
    neg_loss = torch.log(1 - p) * p ** 2 * (1 - target) ** 4 * neg
    n = pos.sum().clamp(min=1)
    return -(pos_loss.sum() + neg_loss.sum()) / n


def reg_loss(reg, target, mask):
    m = mask.unsqueeze(1)
    n = mask.sum().clamp(min=1)
    return (F.smooth_l1_loss(reg * m, target * m, reduction="sum", beta=0.1)) / n
