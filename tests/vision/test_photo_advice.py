"""vision.photo_advice: what a photo's look says about how surely it can be read."""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

from scorer.tiles import Tile
from vision.detections import Detection, Detections
from vision.photo_advice import (BLURRED_BELOW, DARK_BELOW, MIN_TILES, SMALL_TILE_PX, Advice, AdviceKind, PhotoQuality,
                                 advise, measure_photo, tile_sharpness)

REAL = Path(__file__).resolve().parents[1] / "data" / "real-photos" / "images"


def hand_photo(tile: tuple[int, int] = (60, 80), count: int = 8, size: tuple[int, int] = (900, 600),
               at: tuple[int, int] = (60, 200)) -> tuple[np.ndarray, Detections]:
    """A table with a row of bright tiles, each with dark printed marks, and their boxes."""
    width, height = size
    photo = np.zeros((height, width, 3), np.uint8)
    photo[:] = (40, 90, 60)
    boxes = []
    for i in range(count):
        x0, y0 = at[0] + i * (tile[0] + 4), at[1]
        x1, y1 = x0 + tile[0], y0 + tile[1]
        photo[y0:y1, x0:x1] = 235
        for k in range(3):  # three strokes, like a character's
            sy = y0 + tile[1] * (2 + 3 * k) // 11
            photo[sy:sy + max(2, tile[1] // 12), x0 + tile[0] // 5:x1 - tile[0] // 5] = (30, 30, 160)
        boxes.append((float(x0), float(y0), float(x1), float(y1)))
    found = Detections(width, height, tuple(Detection(Tile.parse("1m"), box, 0.9) for box in boxes))
    return photo, found


def kinds(advice: tuple[Advice, ...]) -> list[str]:
    return [a.kind.value for a in advice]


def test_a_sharp_well_lit_photo_of_big_tiles_gets_no_advice():
    photo, found = hand_photo()
    quality = measure_photo(photo, found)
    assert quality.tile_px == 60 and quality.tiles == 8 and quality.tiles_at_edge == 0
    assert quality.sharpness > BLURRED_BELOW and quality.brightness > DARK_BELOW
    assert advise(photo, found) == ()


def test_blur_is_told_from_sharpness_and_only_blur_is_advised():
    photo, found = hand_photo()
    sharp = measure_photo(photo, found).sharpness
    blurred = cv2.GaussianBlur(photo, (0, 0), 2.5)
    quality = measure_photo(blurred, found)
    assert quality.sharpness < BLURRED_BELOW < sharp
    (advice,) = advise(blurred, found)
    assert advice.kind is AdviceKind.BLURRED and advice.limit == BLURRED_BELOW
    assert math.isclose(advice.measured, quality.sharpness)
    assert "hold the phone still" in advice.message
    # a shaken phone: a streak of 9 pixels across the row at an angle (the measure takes every edge's steepness,
    # so a streak exactly along the marks' edges would blur the others only)
    kernel = np.eye(9, dtype=np.float32) / 9
    assert kinds(advise(cv2.filter2D(photo, -1, kernel), found)) == ["blurred"]


def test_a_dark_photo_is_advised_more_light():
    photo, found = hand_photo()
    dark = (photo.astype(np.float32) * 0.35).astype(np.uint8)
    quality = measure_photo(dark, found)
    assert quality.brightness < DARK_BELOW
    assert kinds(advise(dark, found)) == ["dark"]
    assert "more light" in advise(dark, found)[0].message


def test_small_tiles_are_advised_a_closer_photo_with_their_size():
    photo, found = hand_photo(tile=(30, 40))
    (advice,) = advise(photo, found)
    assert advice.kind is AdviceKind.SMALL_TILES and advice.measured == 30 and advice.limit == SMALL_TILE_PX
    assert "about 30 pixels across" in advice.message and "come closer" in advice.message


def test_a_tile_touching_the_photos_edge_is_counted():
    photo, found = hand_photo(at=(0, 200))  # the first tile's box starts at the photo's left edge
    (advice,) = advise(photo, found)
    assert advice.kind is AdviceKind.CUT_OFF and advice.measured == 1
    assert advice.message.startswith("1 tile touches the photo's edge")
    photo, found = hand_photo(at=(0, 520))  # the row along the bottom edge: every tile touches it
    assert advise(photo, found)[0].message.startswith("8 tiles touch")


def test_too_few_tiles_say_nothing():
    photo, found = hand_photo(count=MIN_TILES - 1)
    assert measure_photo(photo, found) is None and advise(photo, found) == ()
    assert advise(photo, Detections(900, 600)) == ()


def test_a_picture_decoded_smaller_than_the_photo_is_measured_in_the_photos_pixels():
    """A big JPEG is decoded at a reduced scale (``Detector.picture``) while the boxes stay in the full photo's
    pixels: the tiles' size is the photo's, their look the same."""
    photo, found = hand_photo(tile=(120, 160), count=5, size=(1800, 1200), at=(100, 400))
    half = cv2.resize(photo, (900, 600), interpolation=cv2.INTER_AREA)
    full, small = measure_photo(photo, found), measure_photo(half, found)
    assert full.tile_px == small.tile_px == 120
    assert abs(full.brightness - small.brightness) < 3
    assert small.sharpness > BLURRED_BELOW and full.sharpness > BLURRED_BELOW
    assert advise(half, found) == ()


def test_a_pil_image_and_an_array_measure_alike():
    photo, found = hand_photo()
    blurred = cv2.GaussianBlur(photo, (0, 0), 1.5)
    assert measure_photo(Image.fromarray(blurred), found) == measure_photo(blurred, found)


def test_sharpness_falls_with_blur():
    mark = np.full((64, 48), 220, np.float32)
    mark[16:48, 12:36] = 40
    values = [tile_sharpness(cv2.GaussianBlur(mark, (0, 0), sigma)) for sigma in (0.5, 1.0, 2.0, 3.0)]
    assert values == sorted(values, reverse=True) and values[0] > 2 * values[-1]
    # the same mark at half the contrast is as sharp: blur, not a faint print, is what is measured
    faint = 220 - (220 - mark) / 2
    assert abs(tile_sharpness(faint) - tile_sharpness(mark)) < 0.35


def test_values_are_validated_when_built():
    with pytest.raises(ValueError, match="AdviceKind"):
        Advice("blurred", 1.0, 2.0, "x")
    with pytest.raises(ValueError, match="finite"):
        Advice(AdviceKind.DARK, float("nan"), 110, "x")
    with pytest.raises(ValueError, match="non-empty"):
        Advice(AdviceKind.DARK, 50, 110, "")
    with pytest.raises(ValueError, match="tile_px"):
        PhotoQuality(-1, 2, 200, 0, 5)
    with pytest.raises(ValueError, match="more tiles at the edge"):
        PhotoQuality(40, 2, 200, 6, 5)
    with pytest.raises(ValueError, match="whole number"):
        PhotoQuality(40, 2, 200, True, 5)
    with pytest.raises(ValueError, match="H x W x 3"):
        measure_photo(np.zeros((10, 10)), hand_photo()[1])
    assert Advice(AdviceKind.DARK, 50, 110, "more light").to_dict() == {
        "kind": "dark", "measured": 50.0, "limit": 110.0, "message": "more light"}


@pytest.fixture(scope="module")
def detector():
    from vision.detector import Detector

    return Detector()


def test_a_real_photo_read_as_taken_gets_no_advice_and_blurred_it_is_told_to_hold_still(detector):
    """The shipped detector on a real val photo (tests/data/real-photos, CC BY 4.0): as taken nothing is advised;
    blurred by 1.5 pixels (its tiles are some 50 pixels wide), the reading says to hold the phone still."""
    from vision.detector import load_image
    from vision.photo_reading import read_photo

    photo = np.asarray(load_image(REAL / "real-1.jpg"))
    _, reading = read_photo(detector, photo)
    assert len(reading.tiles) == 14 and reading.advice == ()
    assert reading.to_dict()["photo_advice"] == []
    _, blurred = read_photo(detector, cv2.GaussianBlur(photo, (0, 0), 1.5))
    assert kinds(blurred.advice) == ["blurred"]
    assert blurred.to_dict()["photo_advice"][0]["kind"] == "blurred"


def test_a_detector_that_does_not_show_its_decoding_gives_no_advice():
    from vision.photo_reading import read_photo

    photo, found = hand_photo(tile=(30, 40))

    class Blind:  # detects, but cannot show the photo as it decoded it
        def detect(self, source):
            return found

        def unsure_boxes(self, source, reported):
            return ()

    _, reading = read_photo(Blind(), photo)
    assert reading.advice == ()

    class Seeing(Blind):
        def picture(self, source):
            return Image.fromarray(source)

    _, reading = read_photo(Seeing(), photo)
    assert kinds(reading.advice) == ["small_tiles"]


def test_read_and_scan_say_how_to_take_a_better_photo(tmp_path, capsys):
    """``mjscan read`` prints the advice under the reading and in its JSON; ``mjscan scan --json`` carries it in its
    reading (the real pipeline: the shipped model on a real photo blurred by 1.5 pixels)."""
    import json

    from mjscan import cli

    blurred = tmp_path / "blurred.jpg"
    with Image.open(REAL / "real-1.jpg") as photo:
        Image.fromarray(cv2.GaussianBlur(np.asarray(photo.convert("RGB")), (0, 0), 1.5)).save(blurred, quality=95)
    cli.main(["read", str(blurred)])
    out = capsys.readouterr().out
    assert "photo advice: The tiles look blurred: hold the phone still" in out
    cli.main(["read", "--json", str(blurred)])
    assert [a["kind"] for a in json.loads(capsys.readouterr().out)["reading"]["photo_advice"]] == ["blurred"]
    cli.main(["scan", "--rules", "mcr", "--json", "--no-input", str(blurred)])
    assert [a["kind"] for a in json.loads(capsys.readouterr().out)["reading"]["photo_advice"]] == ["blurred"]
    cli.main(["read", str(REAL / "real-1.jpg")])
    assert "photo advice" not in capsys.readouterr().out


def test_a_scored_scan_gives_the_advice_on_stderr(monkeypatch, capsys):
    """The score stands on stdout; the advice for a second photo goes to stderr."""
    from dataclasses import replace

    from mjscan import cli
    from vision.grouping import group
    from vision.photo_advice import PhotoQuality

    photo, _ = hand_photo()
    row = [Detection(Tile.parse(code), (40.0 + 44 * i, 200.0, 80.0 + 44 * i, 256.0), 0.95)
           for i, code in enumerate("1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 1p 1p 5s".split())]
    row.append(Detection(Tile.parse("5s"), (40.0 + 44 * 13 + 30, 200.0, 80.0 + 44 * 13 + 30, 256.0), 0.95))
    found = Detections(900, 600, tuple(row))
    advice = PhotoQuality(30, 3.0, 200, 0, 14).advice()
    monkeypatch.setattr(cli, "_read_photo", lambda args: (photo, found, replace(group(found), advice=advice)))
    assert cli.main(["scan", "--rules", "mcr", "--no-input", "photo.jpg"]) == 0
    captured = capsys.readouterr()
    assert "Pure Straight" in captured.out and "photo advice" not in captured.out
    assert "mjscan: photo advice: The tiles are only about 30 pixels across" in captured.err
