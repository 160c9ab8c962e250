"""Things on the table beside the hand (datasets/render/clutter.py): each is painted, lies off the tiles and in
view, is never labelled, and leaves every photo rendered without it as it was."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from datasets.render import RenderOptions, procedural_bundle, render_photo, select_styles
from datasets.render import clutter
from datasets.render.camera import look_at
from datasets.render.scene import CLUTTER_STREAM


@pytest.fixture(scope="module")
def styles():
    return select_styles(procedural_bundle(face_size=(64, 48)))


@pytest.mark.parametrize("kind", sorted(clutter.KINDS))
def test_each_kind_paints_an_object_of_its_size_in_millimetres(kind):
    sizes = {"phone": (60, 165), "scoring_sticks": (20, 130), "die": (10, 22), "coin": (15, 42), "cup": (60, 100),
             "pen": (6, 155), "score_sheet": (85, 215)}
    for seed in range(5):
        picture = clutter.KINDS[kind](np.random.default_rng(seed))
        assert picture.dtype == np.uint8 and picture.shape[2] == 4
        alpha = picture[..., 3] > 0
        assert alpha.mean() > 0.3, (kind, seed)  # drawn, not an empty picture
        lo, hi = sizes[kind]
        long_mm = max(picture.shape[:2]) / clutter.PX_PER_MM
        assert lo <= long_mm <= hi, (kind, long_mm)
        painted = picture[..., :3][alpha]
        assert painted.std() > 1.0  # grain and markings: never one flat colour


def _top_down_camera(width=960, height=720):
    return look_at(np.array([0.0, 0.0, 0.0]), 900.0, 20.0, 10.0, 15.0, width, height, 1000.0)


def test_objects_lie_off_the_tiles_and_in_view():
    cam = _top_down_camera()
    tiles = np.array([[x, y] for x in np.arange(-100, 101, 28.0) for y in (0.0, 40.0)])
    seen = []
    for seed in range(12):
        canvas = np.full((cam.height, cam.width, 3), 90, np.uint8)
        drawn = clutter.draw_clutter(np.random.default_rng(seed), canvas, cam, tiles, 28.0,
                                     np.array([0.3, -0.2, 0.93]), count=3)
        assert drawn, seed
        tile_px = cam.project(np.c_[tiles, np.zeros(len(tiles))])
        for thing in drawn:
            seen.append(thing["kind"])
            outline = np.array(thing["outline"], np.float32)
            centre = outline.mean(axis=0)
            assert 0 <= centre[0] < cam.width and 0 <= centre[1] < cam.height
            for point in tile_px:  # no tile's centre lies under an object
                assert cv2.pointPolygonTest(outline, (float(point[0]), float(point[1])), False) < 0, thing["kind"]
        assert (canvas != 90).any(axis=2).mean() > 0.002  # something was painted (and its shadow)
    assert len(set(seen)) >= 5  # the kinds are drawn, not one alone


def test_no_room_means_nothing_drawn_not_an_object_on_the_tiles():
    cam = _top_down_camera(200, 150)  # a tiny field of view, filled by the tiles
    tiles = np.array([[x, y] for x in np.arange(-600, 601, 28.0) for y in np.arange(-600, 601, 38.0)])
    canvas = np.full((cam.height, cam.width, 3), 90, np.uint8)
    assert clutter.draw_clutter(np.random.default_rng(0), canvas, cam, tiles, 28.0, np.array([0, 0, 1.0]),
                                count=4) == []
    assert (canvas == 90).all()


def test_clutter_is_never_labelled_and_leaves_photos_without_it_unchanged(styles):
    """A photo with clutter has the same labels and tiles as without; one without clutter is drawn from the
    same random stream as before the option existed (its own stream: default_rng([seed, index, 43]))."""
    assert CLUTTER_STREAM == 43
    with_clutter = 0
    for index in range(6):
        plain = render_photo(styles, 3, index, RenderOptions(size=640))
        again = render_photo(styles, 3, index, RenderOptions(size=640, clutter=0.0))
        assert plain.jpeg == again.jpeg
        cluttered = render_photo(styles, 3, index, RenderOptions(size=640, clutter=1.0))
        assert cluttered.labels == plain.labels
        assert cluttered.sidecar["tiles"] == plain.sidecar["tiles"]
        assert cluttered.sidecar["hand"] == plain.sidecar["hand"]
        things = cluttered.sidecar["scene"]["finish"].get("clutter", [])
        assert "clutter" not in plain.sidecar["scene"]["finish"]
        if things:
            with_clutter += 1
            assert not np.array_equal(cluttered.image, plain.image)
            assert all(t["kind"] in clutter.KINDS and len(t["outline"]) == 4 for t in things)
    assert with_clutter >= 4  # clutter 1.0: nearly every photo (one may have no room)


def test_mjscan_synth_clutter_option(cli, tmp_path):
    out = tmp_path / "set"
    run = cli("synth", "--count", "2", "--out", str(out), "--seed", "2", "--size", "480", "--workers", "1",
              "--procedural-art", "--quiet", "--clutter", "1")
    assert run.status == 0, run.err
    assert json.loads((out / "synth.json").read_text())["options"]["clutter"] == 1.0
    kinds = [json.loads((out / "sidecars" / f"00000{i}.json").read_text())["scene"]["finish"].get("clutter")
             for i in range(2)]
    assert any(kinds)
    for bad in ("1.5", "-0.1", "nan"):
        run = cli("synth", "--count", "1", "--out", str(tmp_path / "bad"), "--procedural-art", "--clutter", bad)
        assert run.status == 2 and "--clutter" in run.err and "Traceback" not in run.err
        assert not (tmp_path / "bad").exists()
