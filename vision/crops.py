"""Tile crops: the classifier's input, cut the same way at training and at inference.

A crop is the box widened by a small margin (the localiser's boxes are a few pixels off), turned a
quarter when it is wider than tall (a sideways tile, or an upright tile in a photo turned a quarter), so
that every face stands portrait, and resized to ``CROP_WIDTH`` x ``CROP_HEIGHT``. Which way up the face
then stands (0 or 180 degrees) is left to the classifier, which is trained on both. A box more than
``STRETCHED_ASPECT`` times wider than tall is not turned: no tile lies that flat in a photo of the right
shape, so it is an upright tile of a photo squeezed one way (some published photos were resized to a
square whatever their shape), and resizing the crop undoes the squeeze.

>>> image = np.zeros((100, 200, 3), dtype=np.uint8)
>>> tile_crops(image, np.array([[10, 10, 40, 50], [50, 10, 110, 50]], dtype=np.float32)).shape
(2, 64, 48, 3)
"""

from __future__ import annotations

import numpy as np
from PIL import Image

CROP_WIDTH = 48
CROP_HEIGHT = 64
MARGIN = 0.08
"""Share of the box's width and height added on each side before cropping."""
STRETCHED_ASPECT = 5.0
"""A box wider than this many heights is a squeezed photo's upright tile, not a sideways one (a 4:3 face lying
sideways reaches it only when seen at 75 degrees of tilt). Measured on the real val photos' true boxes: the 395
tiles of the 34 photos stretched 5-15 times one way are named right 94.4 % of the time instead of 83.3 %; the
other 6,218 tiles and the held-out art style's 3,223 are named as before (96.75 % and 85.9 %)."""


def tile_crop(image: Image.Image, box: np.ndarray | tuple[float, float, float, float], *,
              margin: float = MARGIN) -> np.ndarray:
    """One crop (CROP_HEIGHT x CROP_WIDTH x 3, uint8) of a PIL RGB image; outside the photo is black."""
    x1, y1, x2, y2 = (float(v) for v in box)
    w, h = max(x2 - x1, 1.0), max(y2 - y1, 1.0)
    left, top = x1 - margin * w, y1 - margin * h
    right, bottom = x2 + margin * w, y2 + margin * h
    region = image.crop((int(round(left)), int(round(top)), max(int(round(right)), int(round(left)) + 1),
                         max(int(round(bottom)), int(round(top)) + 1)))
    if h < w <= STRETCHED_ASPECT * h:
        region = region.transpose(Image.Transpose.ROTATE_90)
    region = region.resize((CROP_WIDTH, CROP_HEIGHT), Image.Resampling.BILINEAR)
    return np.asarray(region, dtype=np.uint8)


def tile_crops(image: np.ndarray | Image.Image, boxes: np.ndarray, *, margin: float = MARGIN) -> np.ndarray:
    """Crops of every box (N x 4, x1 y1 x2 y2 in the image's pixels): N x CROP_HEIGHT x CROP_WIDTH x 3 uint8."""
    picture = image if isinstance(image, Image.Image) else Image.fromarray(np.ascontiguousarray(image))
    picture = picture.convert("RGB")
    out = np.zeros((len(boxes), CROP_HEIGHT, CROP_WIDTH, 3), dtype=np.uint8)
    for i, box in enumerate(np.asarray(boxes, dtype=np.float32).reshape(-1, 4)):
        out[i] = tile_crop(picture, box, margin=margin)
    return out


def to_tensor(crops: np.ndarray) -> np.ndarray:
    """N x H x W x 3 uint8 crops -> the classifier's N x 3 x H x W float32 input in 0..1."""
    return np.ascontiguousarray(crops.transpose(0, 3, 1, 2), dtype=np.float32) / 255.0
