"""Writes internal/raster/testdata/resample-pillow.json: classifier crops cut by training/classifier.py
(Pillow) from a patterned image, which internal/raster's TestResampleMatchesPillow compares its own
crops with, so training and service see the same pixels.

    python training/resample_golden.py internal/raster/testdata/resample-pillow.json
"""
import json, sys
import numpy as np
sys.path.insert(0, 'training')
import classifier as C
H, W = 200, 300
y, x = np.mgrid[0:H, 0:W]
gray = ((x * 7 + y * 13 + (x * y) % 31) % 256).astype(np.uint8)
boxes = [[100.3, 50.7, 130.9, 71.2], [10, 20, 150, 160], [-20.5, -10.25, 30, 40], [250, 150, 320, 230], [120, 80, 122, 83]]
out = []
for b in boxes:
    ink = C.crop(gray, b)[0]
    out.append({"box": b, "gray": [int(round(255 - 255 * v)) for v in ink.ravel()]})
json.dump({"size": C.SIZE, "context": C.CONTEXT, "width": W, "height": H, "crops": out}, open(sys.argv[1], "w"))
