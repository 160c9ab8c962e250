"""Stretched bands of labelled photos: training data for photos squeezed one way.

Some published tile photos were resized to a square whatever their shape (an export's "stretch to
640 x 640"): a strip holding one row of tiles became a square photo of tiles 5 to 15 times longer one
way than the other. The localiser, trained on photos of the right shape, found almost none of their tiles
(real val, round 4: 15 of the 395 tiles of 34 such photos). Ultralytics' augmentations scale both axes together, so this module
makes such photos from labelled ones: it cuts a band across the photo, through whole tiles, and resizes
the band to the photo's own size, with the labels following.

    write_stretched_set(Path("../shared/data/real-photos/train"), Path("data/real-stretched"), count=800, seed=5)

A band runs the whole width (stretched tall) or the whole height (stretched wide). Its thickness is drawn
log-uniformly from one tile to ``MAX_TILES_ACROSS`` tiles; its edges lie just outside a chosen tile. Half the
photos are then turned a quarter, so that stretched rows become stretched columns. A tile the band cuts keeps its label, clipped, when at least
``MIN_VISIBLE`` of it lies inside; less than that and the tile is dropped.

>>> boxes = np.array([[10, 10, 30, 40], [40, 10, 60, 40], [10, 60, 30, 90]], dtype=np.float32)
>>> band_labels(boxes, np.array([0, 1, 2]), axis=1, start=5, end=45)[1].tolist()
[0, 1]
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Iterator

import numpy as np
from PIL import Image

from datasets.labels import read_yolo, yolo_line
from vision.evaluate import list_images

MIN_VISIBLE = 0.5
"""Share of a tile's extent across the band that must lie inside it for the tile to keep its label."""

MAX_TILES_ACROSS = 4.0
"""The thickest band, in tiles: in a photo ten to fifteen tiles across, a band of one to four tiles resized to
the whole photo is stretched 2.5 to 15 times, the range of the published photos; unstretched photos are
plentiful in the other training sets."""


def band_labels(boxes: np.ndarray, classes: np.ndarray, *, axis: int, start: float, end: float,
                min_visible: float = MIN_VISIBLE) -> tuple[np.ndarray, np.ndarray]:
    """The boxes (N x 4, x1 y1 x2 y2) and classes left in the band ``start..end`` along ``axis`` (0: x,
    1: y), clipped to it, in the band's own coordinates along that axis (the other axis is unchanged)."""
    low, high = boxes[:, axis], boxes[:, axis + 2]
    inside = np.clip(np.minimum(high, end) - np.maximum(low, start), 0, None)
    keep = inside >= min_visible * np.maximum(high - low, 1e-6)
    kept = boxes[keep].copy()
    kept[:, axis] = np.clip(kept[:, axis], start, end) - start
    kept[:, axis + 2] = np.clip(kept[:, axis + 2], start, end) - start
    return kept, classes[keep]


def stretch_band(image: Image.Image, boxes: np.ndarray, classes: np.ndarray,
                 rng: np.random.Generator) -> tuple[Image.Image, np.ndarray, np.ndarray] | None:
    """One stretched photo of the same size as ``image`` (turned a quarter, half the time), its boxes and
    classes; None when the photo has no tile to build a band around."""
    if not len(boxes):
        return None
    width, height = image.size
    axis = int(rng.integers(2))                   # 1: a band across the width, stretched tall; 0: the other way
    length = height if axis == 1 else width
    tile = boxes[int(rng.integers(len(boxes)))]
    tile_low, tile_high = float(tile[axis]), float(tile[axis + 2])
    extent = max(tile_high - tile_low, 2.0)
    thinnest = min(extent * 1.1, float(length))
    thickness = math.exp(rng.uniform(math.log(thinnest), math.log(max(thinnest, min(length, extent * MAX_TILES_ACROSS)))))
    before = rng.uniform(0.05, 1.0) * (thickness - extent) if thickness > extent else 0.0
    start = max(0.0, tile_low - before)
    end = min(float(length), start + thickness)
    start = max(0.0, min(start, end - thickness))
    if end - start < 2:
        return None
    kept, kept_classes = band_labels(boxes, classes, axis=axis, start=start, end=end)
    if not len(kept):
        return None
    crop = (0, int(start), width, int(math.ceil(end))) if axis == 1 else (int(start), 0, int(math.ceil(end)), height)
    band = image.crop(crop).resize((width, height), Image.Resampling.BILINEAR)
    scale = length / (crop[axis + 2] - crop[axis])
    kept[:, axis] = (kept[:, axis] + start - crop[axis]) * scale
    kept[:, axis + 2] = (kept[:, axis + 2] + start - crop[axis]) * scale
    if rng.random() < 0.5:  # a quarter turn: rows of stretched tiles become columns (as in real exports)
        band = band.transpose(Image.Transpose.ROTATE_90)
        kept = np.stack([kept[:, 1], width - kept[:, 2], kept[:, 3], width - kept[:, 0]], axis=1)
    return band, kept, kept_classes


def labelled_photos(source: Path) -> list[tuple[Path, Path]]:
    """(image, label) pairs of a folder with images/ and labels/ (YOLO), sorted by name."""
    return [(p, source / "labels" / (p.stem + ".txt")) for p in list_images(source)]


def _stretched_photos(source: Path, count: int, seed: int) -> Iterator[tuple[str, Image.Image, np.ndarray, np.ndarray]]:
    pairs = [pair for pair in labelled_photos(source) if pair[1].is_file()] if (source / "images").is_dir() else []
    if not pairs:
        raise ValueError(f"'{source}' holds no labelled photos (images/ with labels/).")
    made = attempt = 0
    while made < count and attempt < 20 * count:
        rng = np.random.default_rng([seed, attempt])
        image_path, label_path = pairs[int(rng.integers(len(pairs)))]
        attempt += 1
        with Image.open(image_path) as opened:
            image = opened.convert("RGB")
        labels = read_yolo(label_path, *image.size)
        boxes = np.array([box for _, box in labels], dtype=np.float32).reshape(-1, 4)
        classes = np.array([cls for cls, _ in labels], dtype=np.int64)
        stretched = stretch_band(image, boxes, classes, rng)
        if stretched is None:
            continue
        yield f"stretched_{made:05d}_{image_path.stem}", *stretched
        made += 1


def write_stretched_set(source: Path, out: Path, *, count: int, seed: int, progress: bool = True) -> Path:
    """Write ``count`` stretched photos made from ``source`` (images/ + labels/) to ``out``/images and
    ``out``/labels, with ``out``/stretch.json recording how; answers the images folder. Photo i depends only
    on (seed, the attempts before it), so a set is the same on every machine."""
    images, labels = out / "images", out / "labels"
    images.mkdir(parents=True, exist_ok=True)
    labels.mkdir(parents=True, exist_ok=True)
    photos = _stretched_photos(source, count, seed)
    if progress:
        from tqdm import tqdm

        photos = tqdm(photos, total=count, desc="stretched photos", unit="photo")
    for name, image, boxes, classes in photos:
        image.save(images / f"{name}.jpg", quality=90)
        (labels / f"{name}.txt").write_text(
            "".join(yolo_line(int(c), tuple(b), *image.size) + "\n" for b, c in zip(boxes.tolist(), classes)))
    (out / "stretch.json").write_text(json.dumps({"source": str(source), "count": count, "seed": seed}, indent=1))
    return images
