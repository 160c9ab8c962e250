"""datasets.stretch: bands of labelled photos resized to the whole photo, with the labels following."""

from __future__ import annotations

import json

import numpy as np
import pytest
from PIL import Image

from datasets.labels import read_yolo, yolo_line
from datasets.stretch import band_labels, stretch_band, write_stretched_set


def _row_photo(width=800, height=600, tiles=5, top=260, tile_w=40, tile_h=56):
    """A grey photo with a row of white tiles, each with a dark mark in its upper half, and their boxes."""
    image = np.full((height, width, 3), 90, dtype=np.uint8)
    boxes = []
    for i in range(tiles):
        x1 = 40 + i * (tile_w + 6)
        image[top:top + tile_h, x1:x1 + tile_w] = 240
        image[top + 8:top + 20, x1 + 10:x1 + 30] = 20
        boxes.append((x1, top, x1 + tile_w, top + tile_h))
    return Image.fromarray(image), np.array(boxes, dtype=np.float32), np.arange(tiles)


def test_band_labels_keep_mostly_inside_tiles_clipped():
    boxes = np.array([[10, 10, 30, 40], [10, 30, 30, 60], [10, 38, 30, 70]], dtype=np.float32)
    kept, classes = band_labels(boxes, np.array([4, 5, 6]), axis=1, start=5, end=50)
    # the first lies inside; the second has 20 of 30 inside (kept, clipped); the third 12 of 32 (dropped)
    assert classes.tolist() == [4, 5]
    assert kept.tolist() == [[10, 5, 30, 35], [10, 25, 30, 45]]


@pytest.mark.parametrize("seed", range(12))
def test_a_stretched_photo_keeps_its_size_and_its_boxes_lie_on_the_tiles(seed):
    image, boxes, classes = _row_photo()
    result = stretch_band(image, boxes, classes, np.random.default_rng(seed))
    assert result is not None
    band, kept, kept_classes = result
    assert band.size in (image.size, image.size[::-1]) and len(kept) == len(kept_classes) >= 1
    pixels = np.asarray(band)
    for box in kept:
        x1, y1, x2, y2 = np.round(box).astype(int)
        assert 0 <= x1 < x2 <= band.width and 0 <= y1 < y2 <= band.height
        # the inside of every box is tile (bright or its mark), and the box is tight: just outside it is table
        inner = pixels[y1 + (y2 - y1) // 4:y2 - (y2 - y1) // 4, x1 + (x2 - x1) // 4:x2 - (x2 - x1) // 4]
        assert inner.mean() > 150
    # the band is one to four tiles thick, so in a photo over ten tiles across each way the tiles are stretched
    # (or squeezed) at least 2.5 times one way
    aspects = (kept[:, 3] - kept[:, 1]) / (kept[:, 2] - kept[:, 0])
    original = 56 / 40
    assert np.all((aspects > 2.4 * original) | (aspects < original / 2.4))


def test_a_photo_without_tiles_gives_nothing():
    image, _, _ = _row_photo(tiles=0)
    assert stretch_band(image, np.zeros((0, 4), np.float32), np.zeros(0, np.int64), np.random.default_rng(0)) is None


def test_a_stretched_set_is_written_the_same_way_twice(tmp_path):
    source = tmp_path / "source"
    (source / "images").mkdir(parents=True)
    (source / "labels").mkdir()
    for i in range(3):
        image, boxes, classes = _row_photo(tiles=3 + i)
        image.save(source / "images" / f"p{i}.jpg", quality=95)
        (source / "labels" / f"p{i}.txt").write_text(
            "".join(yolo_line(int(c), tuple(b), *image.size) + "\n" for b, c in zip(boxes.tolist(), classes)))
    first = write_stretched_set(source, tmp_path / "a", count=6, seed=5, progress=False)
    second = write_stretched_set(source, tmp_path / "b", count=6, seed=5, progress=False)
    names = sorted(p.name for p in first.iterdir())
    assert len(names) == 6 and names == sorted(p.name for p in second.iterdir())
    for name in names:
        stem = name.rsplit(".", 1)[0]
        size = Image.open(first / name).size
        assert size in ((800, 600), (600, 800)) and size == Image.open(second / name).size
        a = read_yolo(tmp_path / "a" / "labels" / f"{stem}.txt", *size)
        assert a and a == read_yolo(tmp_path / "b" / "labels" / f"{stem}.txt", *size)
        assert all(0 <= c < 6 for c, _ in a)
    assert json.loads((tmp_path / "a" / "stretch.json").read_text()) == {"source": str(source), "count": 6, "seed": 5}
    with pytest.raises(ValueError, match="no labelled photos"):
        write_stretched_set(tmp_path / "a" / "images", tmp_path / "c", count=1, seed=0, progress=False)
