"""The tile art bundle: its loader and checks, the tileset cutters' mappings, the face painter, prepare_art.

Everything here runs without the Debian packages the real bundle is made from, except the one
integration test, which is skipped (saying so) where they are missing.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from datasets.art.bundle import CODES, StyleToWrite, contact_sheet, fit_face, load_bundle, write_bundle
from scorer.tiles import ALL_TILES

SIZE = (12, 16)


def _faces(seed: int, size=SIZE) -> dict[str, np.ndarray]:
    """42 distinct little faces: a coloured block whose position and colour encode the code."""
    width, height = size
    faces = {}
    for index, code in enumerate(CODES):
        face = np.zeros((height, width, 4), np.uint8)
        face[index % height, :, :] = (seed * 40 % 256, index * 6, 255 - index * 5, 255)
        face[:, (index + seed) % width, 3] = 200
        faces[code] = face
    return faces


def _write_tiny(root: Path, *, back: bool = True) -> Path:
    styles = [StyleToWrite("alpha", "procedural:1", "test art", _faces(1), _faces(9)["1m"] if back else None),
              StyleToWrite("beta", "procedural:2", "test art", _faces(2), None)]
    return write_bundle(root, styles, held_out="beta", face_size=SIZE)


@pytest.fixture
def tiny(tmp_path) -> Path:
    return _write_tiny(tmp_path / "art")


def _edit_manifest(root: Path, change) -> None:
    path = root / "manifest.json"
    manifest = json.loads(path.read_text())
    change(manifest)
    path.write_text(json.dumps(manifest))


# ------------------------------------------------------------------------------------------- loader

def test_codes_follow_the_detector_class_order():
    assert CODES == tuple(tile.code for tile in ALL_TILES)
    assert len(CODES) == 42 and CODES[27] == "1z" and CODES[34] == "1f"


def test_load_a_tiny_bundle(tiny):
    art = load_bundle(tiny)
    assert art.face_size == SIZE
    assert art.names == ("alpha", "beta")
    assert [s.name for s in art.training_styles()] == ["alpha"]
    held = art.held_out_style()
    assert held.name == "beta" and held.held_out and held.back is None
    alpha = art.style("alpha")
    assert not alpha.held_out and alpha.source == "procedural:1" and alpha.license == "test art"
    assert set(alpha.faces) == set(CODES)
    for code in CODES:
        face = alpha.face(code)
        assert face.dtype == np.uint8 and face.shape == (SIZE[1], SIZE[0], 4)
        assert np.array_equal(face, _faces(1)[code])  # exact: PNG is lossless, sizes already match
    assert alpha.back is not None and alpha.back.shape == (16, 12, 4)
    with pytest.raises(ValueError):
        alpha.faces["1m"][0, 0, 0] = 1  # read-only arrays
    with pytest.raises(TypeError):
        alpha.faces["1m"] = alpha.faces["2m"]  # read-only mapping
    with pytest.raises(KeyError, match="no face for tile code 'back'"):
        alpha.face("back")
    with pytest.raises(KeyError, match="alpha, beta"):
        art.style("gamma")


def test_manifest_matches_the_documented_format(tiny):
    manifest = json.loads((tiny / "manifest.json").read_text())
    assert manifest["version"] == 1 and manifest["face_size"] == [12, 16] and manifest["held_out"] == "beta"
    alpha = manifest["styles"][0]
    assert set(alpha) == {"name", "source", "license", "faces", "back"}
    assert alpha["faces"]["7z"] == "alpha/7z.png" and alpha["back"] == "alpha/back.png"
    assert manifest["styles"][1]["back"] is None


def test_rewriting_drops_a_stale_back(tmp_path):
    root = _write_tiny(tmp_path / "art")
    assert (root / "alpha" / "back.png").exists()
    _write_tiny(root, back=False)
    assert not (root / "alpha" / "back.png").exists()
    assert load_bundle(root).style("alpha").back is None


def _break(root: Path, how: str) -> None:
    if how == "no manifest":
        (root / "manifest.json").unlink()
    elif how == "not json":
        (root / "manifest.json").write_text("{nope")
    elif how == "version":
        _edit_manifest(root, lambda m: m.update(version=2))
    elif how == "face size":
        _edit_manifest(root, lambda m: m.update(face_size=[12]))
    elif how == "no styles":
        _edit_manifest(root, lambda m: m.update(styles=[]))
    elif how == "missing code":
        _edit_manifest(root, lambda m: m["styles"][0]["faces"].pop("7f"))
    elif how == "unknown code":
        _edit_manifest(root, lambda m: m["styles"][0]["faces"].update({"0x": "alpha/1m.png"}))
    elif how == "missing file":
        (root / "alpha" / "3p.png").unlink()
    elif how == "wrong size":
        Image.new("RGBA", (13, 16)).save(root / "beta" / "9s.png")
    elif how == "not an image":
        (root / "beta" / "2z.png").write_bytes(b"not a png")
    elif how == "held out unknown":
        _edit_manifest(root, lambda m: m.update(held_out="gamma"))
    elif how == "duplicate name":
        _edit_manifest(root, lambda m: m["styles"][1].update(name="alpha"))
    elif how == "bad name":
        _edit_manifest(root, lambda m: m["styles"][1].update(name="Beta Style"))
    elif how == "bad source":
        _edit_manifest(root, lambda m: m["styles"][0].update(source="somewhere"))
    elif how == "no license":
        _edit_manifest(root, lambda m: m["styles"][0].update(license=""))
    elif how == "escaping path":
        _edit_manifest(root, lambda m: m["styles"][0]["faces"].update({"1m": "../elsewhere.png"}))
    elif how == "only held out":
        _edit_manifest(root, lambda m: (m.update(styles=m["styles"][1:])))
    else:
        raise AssertionError(how)


@pytest.mark.parametrize("how, words", [
    ("no manifest", "has no manifest.json"),
    ("not json", "not readable JSON"),
    ("version", "has version 2"),
    ("face size", "face_size"),
    ("no styles", "lists no styles"),
    ("missing code", "lacks the faces of 1 tile codes: 7f"),
    ("unknown code", "unknown tile codes: 0x"),
    ("missing file", "lacks the file alpha/3p.png"),
    ("wrong size", "is 13x16 pixels; every face must be 12x16"),
    ("not an image", "beta/2z.png (the face 2z of style 'beta') is not a readable image"),
    ("held out unknown", "must name its held-out style"),
    ("duplicate name", "lists the style 'alpha' twice"),
    ("bad name", "has no valid name"),
    ("bad source", "needs a source like"),
    ("no license", "does not say its license"),
    ("escaping path", "leaves the bundle folder"),
    ("only held out", "needs at least one training style"),
])
def test_a_broken_bundle_is_refused_with_a_sentence(tiny, how, words):
    _break(tiny, how)
    with pytest.raises(ValueError) as caught:
        load_bundle(tiny)
    message = str(caught.value)
    assert words in message
    assert message[0].isupper() and message.endswith("."), message
    assert "Traceback" not in message


def test_a_missing_folder_says_how_to_make_one(tmp_path):
    with pytest.raises(ValueError, match="does not exist: run `mjscan synth prepare-art --out"):
        load_bundle(tmp_path / "nowhere")


def test_write_bundle_refuses_an_incomplete_style(tmp_path):
    faces = _faces(1)
    del faces["8f"]
    with pytest.raises(ValueError, match="lacks faces for 8f"):
        write_bundle(tmp_path, [StyleToWrite("a", "procedural:1", "x", faces)], held_out="a", face_size=SIZE)


def test_fit_face_resizes_without_dark_fringes():
    face = np.zeros((64, 48, 4), np.uint8)
    face[16:48, 12:36] = (200, 30, 40, 255)  # a red block on transparency
    small = fit_face(face, (12, 16))
    assert small.shape == (16, 12, 4)
    edge = small[(small[..., 3] > 10) & (small[..., 3] < 245)]
    assert len(edge) > 0
    assert np.all(np.abs(edge[:, :3].astype(int) - (200, 30, 40)) <= 12)  # colour kept where half transparent
    with pytest.raises(ValueError, match="RGBA"):
        fit_face(np.zeros((4, 4, 3), np.uint8), (2, 2))


def test_contact_sheet(tiny, tmp_path):
    out = contact_sheet(load_bundle(tiny), tmp_path / "sheet.png", label_width=40)
    with Image.open(out) as image:
        assert image.size[0] == 40 + 43 * (12 + 4) + 4


# ------------------------------------------------------------------------------- tileset mappings

def test_kde_mapping_covers_every_code_once():
    from datasets.art.kde import KDE_THEMES, RAW_IDS, kde_ids

    for theme in KDE_THEMES:
        ids = kde_ids(theme)
        assert set(ids) == set(CODES)
        assert sorted(ids.values()) == sorted(RAW_IDS)
    assert kde_ids("default")["1p"] == "ROD_1" and kde_ids("default")["1s"] == "BAMBOO_1"
    assert [kde_ids("default")[c] for c in ("1z", "2z", "3z", "4z")] == ["WIND_3", "WIND_2", "WIND_4", "WIND_1"]
    assert (kde_ids("classic")["1f"], kde_ids("classic")["2f"]) == ("FLOWER_2", "FLOWER_1")
    assert (kde_ids("traditional")["1f"], kde_ids("traditional")["2f"]) == ("FLOWER_1", "FLOWER_2")


def test_gnome_mapping_covers_every_code():
    from datasets.art.gnome import BLANK, gnome_columns

    smooth = gnome_columns("smooth")
    assert set(smooth) == set(CODES) and len(set(smooth.values())) == 42 and BLANK not in smooth.values()
    assert (smooth["1f"], smooth["2f"], smooth["5z"]) == (35, 33, 37)
    postmodern = gnome_columns("postmodern")
    assert set(postmodern) == set(CODES) and postmodern["5z"] == BLANK and 37 not in postmodern.values()
    with pytest.raises(ValueError):
        gnome_columns("edu_kang_xi")


def test_gnome_key_out_makes_the_surface_transparent():
    from datasets.art.gnome import key_out

    blank = np.full((4, 4, 4), (208, 208, 190, 255), np.uint8)
    face = blank.copy()
    face[1, 1, :3] = (30, 30, 120)
    layer = key_out(face, blank)
    assert layer[0, 0, 3] == 0 and layer[1, 1, 3] == 255
    assert tuple(layer[1, 1, :3]) == (30, 30, 120)


def _xmahjongg_sheet(path, theme):
    """A GIF laid out as xmahjongg's ``theme`` sheet: ivory tiles with a bevel, each face marked with its own colour
    in the middle (the blank tile, where the theme has one, unmarked)."""
    from PIL import Image

    from datasets.art.xmahjongg import XMAHJONGG_THEMES

    columns, rows, positions, _, blank = XMAHJONGG_THEMES[theme]
    cell_w, cell_h = 64, 80
    sheet = np.zeros((rows * cell_h, columns * cell_w, 3), np.uint8)
    for row in range(rows):
        for column in range(columns):
            y, x = row * cell_h, column * cell_w
            sheet[y:y + cell_h, x:x + cell_w] = (120, 100, 70)            # the bevel
            sheet[y + 6:y + cell_h - 6, x + 6:x + cell_w - 6] = (236, 230, 210)  # the flat face
    colours = {}
    for k, (code, (row, column)) in enumerate(sorted(positions.items())):  # marks in three places, as prints vary
        colours[code] = (20 + 5 * k, 200 - 4 * k, (37 * k) % 200)
        y, x = row * cell_h + (24, 32, 40)[k % 3], column * cell_w + (16, 24, 32)[k % 3]
        sheet[y:y + 16, x:x + 16] = colours[code]
    Image.fromarray(sheet).save(path)
    return colours


@pytest.mark.parametrize("theme", ["real", "dorothys"])
def test_xmahjongg_tilesets_are_cut_into_every_face(tmp_path, monkeypatch, theme):
    """Stop 41: xmahjongg's GIF sheets, cut by their grid; the surface (the blank tile, or each pixel's commonest
    colour) keyed out, each face's print kept where its code's cell has it."""
    from datasets.art import xmahjongg

    colours = _xmahjongg_sheet(tmp_path / f"{theme}.gif", theme)
    monkeypatch.setattr(xmahjongg, "XMAHJONGG_DIRS", (tmp_path,))
    faces = xmahjongg.xmahjongg_faces(theme, 120, 160)
    assert set(faces) == set(CODES)
    for code, face in faces.items():
        assert face.shape == (160, 120, 4)
        assert face[:20, :20, 3].max() == 0 and face[-20:, -20:, 3].max() == 0  # the surface, keyed out
        printed = face[..., 3] == 255
        near = np.abs(face[..., :3].astype(int) - colours[code]).max(axis=2) <= 12
        assert (printed & near).sum() > 400, code  # its own mark, some 16 x 16 sheet pixels enlarged
        assert printed.sum() < 1.5 * (printed & near).sum(), code  # and nothing else
    assert xmahjongg.license_of(theme).startswith("GPL-2.0-or-later")
    monkeypatch.setattr(xmahjongg, "XMAHJONGG_DIRS", (tmp_path / "none",))
    with pytest.raises(FileNotFoundError, match="package xmahjongg"):
        xmahjongg.xmahjongg_faces(theme, 120, 160)
    with pytest.raises(ValueError, match="not one we know"):
        xmahjongg.xmahjongg_faces("gnome", 120, 160)


def test_xmahjongg_mapping_covers_every_code_once():
    from datasets.art.xmahjongg import XMAHJONGG_THEMES

    for theme, (columns, rows, positions, _, blank) in XMAHJONGG_THEMES.items():
        assert set(positions) == set(CODES)
        assert len(set(positions.values())) == 42 and blank not in positions.values()
        assert all(0 <= r < rows and 0 <= c < columns for r, c in positions.values())
    real = XMAHJONGG_THEMES["real"][2]
    assert (real["1s"], real["5f"], real["1f"], real["5z"]) == ((1, 0), (3, 0), (4, 0), (4, 5))
    dorothys = XMAHJONGG_THEMES["dorothys"][2]
    assert (dorothys["7m"], dorothys["1s"], dorothys["1f"], dorothys["4f"]) == ((1, 0), (1, 3), (1, 19), (1, 17))


def test_svg_face_rectangles(tmp_path):
    from datasets.art.kde import SvgTileset
    from datasets.art.svgutil import compose, parse_transform
    import xml.etree.ElementTree as ET

    assert parse_transform("translate(10,5) scale(2)") == (2.0, 0.0, 0.0, 2.0, 10.0, 5.0)
    assert compose(parse_transform("scale(2)"), parse_transform("translate(1,1)"))[4:] == (2.0, 2.0)
    svg = """<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="200" height="100">
      <g id="layer" transform="translate(100,0)">
        <g id="A_1"><rect id="frame" x="0" y="0" width="30" height="40" style="stroke:black"/>
          <circle cx="15" cy="20" r="10" fill="red"/></g>
        <g id="A_2" transform="translate(-50,10)"><use xlink:href="#frame" transform="translate(5,0)"/>
          <circle cx="20" cy="20" r="10" fill="blue"/></g>
      </g></svg>"""
    tileset = SvgTileset(ET.fromstring(svg))
    assert tileset.face_rect("A_1") == (100.0, 0.0, 130.0, 40.0)
    assert tileset.face_rect("A_2") == (55.0, 10.0, 85.0, 50.0)
    if shutil.which("rsvg-convert"):
        face = tileset.render("A_2", 30, 40)
        assert face.shape == (40, 30, 4)
        assert face[20, 15, 2] > 200 and face[20, 15, 0] < 60  # the blue disc, not the red one
        assert face[0, 0, 3] == 0  # the frame is not drawn


# ------------------------------------------------------------------------------------------ painter

def _cjk_font():
    from datasets.art.fonts import any_cjk_font

    return any_cjk_font()


def _assert_distinct(faces: dict[str, np.ndarray]) -> None:
    keys = {code: faces[code].tobytes() for code in CODES}
    assert len(set(keys.values())) == 42, "two codes got the same face"


def test_painter_paints_42_distinct_deterministic_faces():
    from datasets.art.painter import SCHEMES, FacePainter

    if _cjk_font() is None:
        pytest.skip("no CJK font is installed (e.g. apt-get install fonts-noto-cjk); the fallback test covers the rest")
    for scheme in (SCHEMES[0], SCHEMES[3]):
        painter = FacePainter(scheme, (30, 40))
        assert not painter.uses_fallback
        faces = painter.faces()
        assert set(faces) == set(CODES)
        for code, face in faces.items():
            assert face.shape == (40, 30, 4) and face.dtype == np.uint8
            if code != "5z" or scheme.white != "blank":
                assert face[..., 3].max() > 200, code
        _assert_distinct(faces)
        again = FacePainter(scheme, (30, 40))
        for code in ("1s", "7z", "6f"):
            assert np.array_equal(again.paint(code), faces[code])


def test_painter_styles_differ_and_backs_are_opaque():
    from datasets.art.painter import SCHEMES, FacePainter

    assert len({s.name for s in SCHEMES}) == len(SCHEMES) >= 6
    assert len({s.seed for s in SCHEMES}) == len(SCHEMES)
    one = [FacePainter(scheme, (30, 40)).paint("5p").tobytes() for scheme in SCHEMES]
    assert len(set(one)) == len(SCHEMES)
    for scheme in SCHEMES:
        back = FacePainter(scheme, (30, 40)).paint_back()
        assert (back is None) == (scheme.back is None)
        if back is not None:
            assert back.shape == (40, 30, 4) and back[..., 3].min() == 255


def test_random_schemes_are_reproducible_and_differ():
    from datasets.art.painter import FacePainter, random_scheme

    schemes = [random_scheme(seed) for seed in range(12)]
    assert random_scheme(3) == schemes[3]  # the same seed, the same style
    assert [s.name for s in schemes] == [f"painted-random-{k}" for k in range(12)]
    # twelve draws use more than one option of each kind: they are not one style renamed
    for option in ("font", "dots", "sticks", "white", "bonus", "index"):
        assert len({getattr(s, option) for s in schemes}) > 1, option
    assert len({s.palette.red for s in schemes}) == 12
    faces = [FacePainter(s, (30, 40)).paint("6z").tobytes() for s in schemes[:4]]
    assert len(set(faces)) == 4
    for scheme in schemes:
        back = FacePainter(scheme, (30, 40)).paint_back()
        assert (back is None) == (scheme.back is None)


def test_second_generation_random_schemes_add_options_and_leave_the_first_alone():
    """Generation 2 is generation 1's style (same seed) plus flowers without seat numbers, the 1s as one stick
    and other White frames; generation 1 is unchanged, so older recipes paint the same styles."""
    from datasets.art.painter import Scheme, random_scheme, random_style_name

    first = [random_scheme(seed) for seed in range(40)]
    second = [random_scheme(seed, generation=2) for seed in range(40)]
    assert first[5] == random_scheme(5, generation=1)
    assert [s.name for s in second] == [f"painted-random-g2-{k}" for k in range(40)]
    assert random_style_name(7, 2) == "painted-random-g2-7"
    extra = {"name", "bonus_numeral", "bird", "white_inset", "white_line"}
    for old, new in zip(first, second):
        assert {k: v for k, v in vars(old).items() if k not in extra} == {k: v for k, v in vars(new).items() if k not in extra}
        assert (old.white_inset, old.white_line) == (Scheme("x", 0).white_inset, Scheme("x", 0).white_line)
        assert old.bonus_numeral != "none" and old.bird != "stick"
    assert {s.bonus_numeral for s in second} == {"arabic", "chinese", "none"}
    assert "stick" in {s.bird for s in second}
    assert len({s.white_inset for s in second}) == 40
    with pytest.raises(ValueError, match="generation must be one of"):
        random_scheme(1, generation=7)


def test_third_generation_draws_the_one_stick_1s_every_way_and_leaves_the_second_alone():
    """Generation 3 is generation 2's style plus a one-stick 1s more often, in any suit ink, width and length;
    generation 2's styles keep the green stick they always had."""
    from datasets.art.painter import Scheme, random_scheme

    second = [random_scheme(seed, generation=2) for seed in range(60)]
    third = [random_scheme(seed, generation=3) for seed in range(60)]
    assert [s.name for s in third] == [f"painted-random-g3-{k}" for k in range(60)]
    for old, new in zip(second, third):
        assert {k: v for k, v in vars(old).items() if k not in {"name", "bird", "one_stick"}} == \
            {k: v for k, v in vars(new).items() if k not in {"name", "bird", "one_stick"}}
        assert old.one_stick == Scheme("x", 0).one_stick
        assert new.bird == "stick" or new.bird == old.bird
    sticks = [s for s in third if s.bird == "stick"]
    assert len(sticks) > sum(s.bird == "stick" for s in second)
    assert {s.one_stick[0] for s in third} == {"green", "red", "blue"}
    assert min(s.one_stick[1] for s in third) < 0.1 < 0.18 < max(s.one_stick[1] for s in third)
    assert all(0.45 <= s.one_stick[2] <= 0.85 for s in third)


def test_fourth_generation_writes_by_brush_and_leaves_the_third_alone():
    """Generation 4 is generation 3's style plus a brush font four styles in five; generation 3 has none."""
    from dataclasses import replace

    from datasets.art.fonts import BRUSH_KINDS
    from datasets.art.painter import Scheme, random_scheme

    third = [random_scheme(seed, generation=3) for seed in range(80)]
    fourth = [random_scheme(seed, generation=4) for seed in range(80)]
    assert [s.name for s in fourth] == [f"painted-random-g4-{k}" for k in range(80)]
    for old, new in zip(third, fourth):
        assert old.brush is None
        assert replace(new, name=old.name, brush=None) == old
    brushes = [s.brush for s in fourth]
    assert set(brushes) == {*BRUSH_KINDS, None}
    assert 0.6 < sum(b is not None for b in brushes) / len(brushes) < 0.95
    with pytest.raises(ValueError, match="brush must be None or one of"):
        Scheme("x", 0, brush="comic")


def test_fifth_generation_prints_half_its_numerals_in_a_display_face_and_leaves_the_fourth_alone():
    """Generation 5 is generation 4's style, its brush kept in about half the styles and a printed display face in
    the others; generation 4 never has a display face."""
    from dataclasses import replace

    from datasets.art.fonts import BRUSH_KINDS, DISPLAY_KINDS, NPM_FONTS, NUMERAL_KINDS
    from datasets.art.painter import random_scheme

    fourth = [random_scheme(seed, generation=4) for seed in range(200)]
    fifth = [random_scheme(seed, generation=5) for seed in range(200)]
    assert [s.name for s in fifth[:2]] == ["painted-random-g5-0", "painted-random-g5-1"]
    kept = 0
    for old, new in zip(fourth, fifth):
        assert old.brush is None or old.brush in BRUSH_KINDS
        assert replace(new, name=old.name, brush=old.brush) == old
        assert new.brush == old.brush or new.brush in DISPLAY_KINDS
        kept += new.brush == old.brush
    assert 0.35 < kept / len(fifth) < 0.65
    assert set(DISPLAY_KINDS) <= {s.brush for s in fifth} <= {*NUMERAL_KINDS, None}
    assert set(NUMERAL_KINDS) <= set(NPM_FONTS)  # every numeral hand can be fetched


def test_sixth_generation_outlines_four_styles_in_five_and_leaves_the_fifth_alone():
    """Generation 6 is generation 5's style plus an outline of every mark (edged, hollow or lined) in about four
    styles of five; generation 5 has none, and a wrong outline is refused when the scheme is built."""
    from dataclasses import replace

    from datasets.art.painter import OUTLINE_KINDS, Scheme, random_scheme

    fifth = [random_scheme(seed, generation=5) for seed in range(200)]
    sixth = [random_scheme(seed, generation=6) for seed in range(200)]
    assert [s.name for s in sixth[:2]] == ["painted-random-g6-0", "painted-random-g6-1"]
    for old, new in zip(fifth, sixth):
        assert old.outline is None
        assert replace(new, name=old.name, outline=None) == old
    outlined = [s.outline for s in sixth if s.outline is not None]
    assert 0.7 < len(outlined) / len(sixth) < 0.9
    assert {kind for kind, _, _ in outlined} == set(OUTLINE_KINDS)
    assert all(3 <= width <= 10 for _, width, _ in outlined)
    assert all(rim is None for kind, _, rim in outlined if kind == "hollow")
    assert any(rim is not None for kind, _, rim in outlined if kind == "edged")
    for bad in [("dotted", 4, None), ("edged", 0, None), ("edged", 4)]:
        with pytest.raises(ValueError, match="outline must be None or"):
            Scheme("x", 0, outline=bad)


@pytest.mark.parametrize("kind", ["edged", "hollow", "lined"])
def test_an_outline_changes_each_mark_where_its_kind_says(kind):
    """A stroke drawn solid, then outlined: an edged one keeps its footprint and its ink inside, with a darker rim;
    a hollow one keeps only its rim (the tile shows inside); a lined one grows a rim outside. Thin lines (narrower
    than the rim) are all rim, so a face's frame never vanishes."""
    from datasets.art.painter import outline_marks

    layer = np.zeros((60, 80, 4), np.uint8)
    layer[10:50, 10:40] = (30, 90, 200, 255)  # a thick stroke
    layer[10:50, 60:62] = (30, 90, 200, 255)  # a hairline
    out = outline_marks(layer, kind, 5)
    assert out.shape == layer.shape and out.dtype == np.uint8
    inside, rim, outside = out[30, 25], out[30, 11], out[30, 7]
    hairline = out[30, 60]
    if kind == "edged":
        assert (out[..., 3] > 0).sum() == (layer[..., 3] > 0).sum()
        assert tuple(inside) == (30, 90, 200, 255)
        assert rim[3] == 255 and rim[:3].sum() < 0.5 * inside[:3].sum()
    elif kind == "hollow":
        assert inside[3] == 0 and rim[3] == 255 and tuple(rim[:3]) == (30, 90, 200)
        assert hairline[3] == 255
    else:
        assert outside[3] == 255 and tuple(inside) == (30, 90, 200, 255)
        assert (out[..., 3] > 0).sum() > (layer[..., 3] > 0).sum()
    with pytest.raises(ValueError, match="outline kind must be one of"):
        outline_marks(layer, "dotted", 5)


def test_an_outlined_style_paints_distinct_faces_of_the_same_layout():
    """Every face of an outlined style still differs from the others, and its ink lies where the solid style's does."""
    from dataclasses import replace

    from datasets.art.painter import SCHEMES, FacePainter

    if _cjk_font() is None:
        pytest.skip("no CJK font is installed (e.g. apt-get install fonts-noto-cjk)")
    solid = SCHEMES[0]
    for outline in [("edged", 6, (0, 0, 0)), ("hollow", 6, None)]:
        faces = FacePainter(replace(solid, outline=outline), (30, 40)).faces()
        _assert_distinct(faces)
        plain, drawn = FacePainter(solid, (60, 80)).paint("5m"), FacePainter(replace(solid, outline=outline), (60, 80)).paint("5m")
        assert plain.tobytes() != drawn.tobytes()
        ink = drawn[..., 3] > 128
        assert ink.any() and (plain[..., 3][ink] > 0).mean() > 0.95  # no ink where the solid style has none


def test_a_brush_writes_the_numerals_and_bonus_characters_it_has(monkeypatch):
    """The brush font writes the characters suit's numerals and the seasons' characters; what it lacks (here 萬
    and 東) and every other face keep the style's own font."""
    from dataclasses import replace

    from datasets.art import painter as painter_module
    from datasets.art.fonts import BRUSH_KINDS, find_font
    from datasets.art.painter import SCHEMES, FacePainter

    brush = find_font("kai")
    if brush is None or _cjk_font() is None:
        pytest.skip("no CJK font is installed (e.g. apt-get install fonts-noto-cjk fonts-arphic-ukai)")
    # the Kai font stands in for a calligraphy font that lacks 萬 and 東, as the real ones do
    monkeypatch.setattr(painter_module, "find_font",
                        lambda kind, *a, **k: brush if kind in BRUSH_KINDS else find_font(kind, *a, **k))
    monkeypatch.setattr(painter_module, "covers", lambda ref, text: not (ref == brush and set(text) & set("萬東")))
    plain = replace(SCHEMES[0], bonus="char", bonus_numeral="chinese", wan="萬")
    assert find_font(plain.font) != brush
    brushed = replace(plain, brush="brush-cursive")
    painter = FacePainter(brushed, (60, 80))
    assert painter.brush_font == brush
    assert painter._brushed("二") == brush and painter._brushed("萬") == painter.font != brush
    for code in ("2m", "7m", "5f", "2f"):
        assert painter.paint(code).tobytes() != FacePainter(plain, (60, 80)).paint(code).tobytes(), code
    for code in ("1z", "6z", "5p", "9s"):
        assert painter.paint(code).tobytes() == FacePainter(plain, (60, 80)).paint(code).tobytes(), code
    # the 萬 half of a characters tile is the style's own: only the numeral's rows change
    changed = np.flatnonzero((painter.paint("2m") != FacePainter(plain, (60, 80)).paint("2m")).any(axis=(1, 2)))
    assert changed.max() < 80 * 0.5


def test_a_brush_font_is_fetched_from_npm(monkeypatch, tmp_path):
    """``install_npm_font`` takes the one TrueType file out of the package's tarball; without npm, or when npm
    fails, the error says what to run by hand."""
    import io
    import subprocess
    import tarfile

    from datasets.art import fonts

    package, filename = fonts.NPM_FONTS["brush-kai"]
    calls = []

    def fake_npm(command, **kwargs):
        calls.append(command)
        folder = Path(command[command.index("--pack-destination") + 1])
        with tarfile.open(folder / "font.tgz", "w:gz") as tar:
            for name, data in ((f"package/400Regular/{filename}", b"glyphs"), ("package/README.md", b"readme")):
                info = tarfile.TarInfo(name)
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
        return subprocess.CompletedProcess(command, 0, "", "")

    monkeypatch.setattr(fonts.shutil, "which", lambda name: "/usr/bin/npm")
    monkeypatch.setattr(fonts.subprocess, "run", fake_npm)
    path = fonts.install_npm_font("brush-kai", tmp_path / "fonts")
    assert path == tmp_path / "fonts" / filename and path.read_bytes() == b"glyphs"
    assert calls[0][1:3] == ["pack", package]
    assert fonts.install_npm_font("brush-kai", tmp_path / "fonts") == path and len(calls) == 1  # there already
    monkeypatch.setattr(fonts.subprocess, "run",
                        lambda command, **kw: subprocess.CompletedProcess(command, 1, "", "npm error 404 Not Found"))
    with pytest.raises(fonts.FontInstallError, match=r"404 Not Found.*npm pack"):
        fonts.install_npm_font("brush-cursive", tmp_path / "other")
    monkeypatch.setattr(fonts.shutil, "which", lambda name: None)
    with pytest.raises(fonts.FontInstallError, match="npm, which is not installed"):
        fonts.install_npm_font("brush-running", tmp_path / "other")
    assert not (tmp_path / "other").exists()
    with pytest.raises(ValueError, match="No npm font"):
        fonts.install_npm_font("kai", tmp_path / "other")


@pytest.mark.parametrize("generation", [4, 5])
def test_prepare_names_the_npm_fonts_a_brush_style_needs(monkeypatch, generation):
    from datasets.art import fonts, prepare

    specs = prepare.random_specs(40, 0, generation=generation)
    needed = {prepare._scheme(spec).brush for spec in specs} - {None}
    assert needed & set(fonts.DISPLAY_KINDS) if generation == 5 else not needed & set(fonts.DISPLAY_KINDS)
    real_find = fonts.find_font
    monkeypatch.setattr(fonts, "find_font", lambda kind, *a, **k: None if kind in fonts.NUMERAL_KINDS else
                        real_find(kind, *a, **k))
    missing = prepare.missing_packages(specs)
    assert {name for name in missing if name.startswith("npm:")} == {f"npm:{kind}" for kind in needed}
    with pytest.raises(prepare.MissingPackagesError, match="brush fonts from npm.*@expo-google-fonts"):
        prepare.ensure_packages(specs, install=False)


def test_the_one_stick_is_painted_in_its_ink_and_size():
    from dataclasses import replace

    from datasets.art.painter import SCHEMES, FacePainter

    base = replace(SCHEMES[0], bird="stick", index=None)
    thin_red = FacePainter(replace(base, one_stick=("red", 0.08, 0.8)), (60, 80)).paint("1s")
    wide_green = FacePainter(replace(base, one_stick=("green", 0.18, 0.5)), (60, 80)).paint("1s")

    def inked(face, colour):
        near = np.abs(face[..., :3].astype(int) - np.array(colour)).sum(-1) < 60
        return near & (face[..., 3] > 128)

    red, green = inked(thin_red, base.palette.red), inked(wide_green, base.palette.green)
    assert red.sum() > 0 and inked(thin_red, base.palette.green).sum() == 0
    assert green.sum() > red.sum()
    span = lambda mask: np.ptp(np.flatnonzero(mask.any(axis=1)))  # noqa: E731
    assert span(red) > span(green) * 1.3  # the long stick spans more of the face
    for wrong in (("purple", 0.1, 0.5), ("red", 0.0, 0.5), ("red", 0.1, 1.5)):
        with pytest.raises(ValueError, match="one_stick must be"):
            replace(base, one_stick=wrong)


def test_second_generation_options_change_the_faces_they_should():
    """No seat number: the flowers differ from the numbered ones; the 1s stick is one stick, not the bird."""
    from dataclasses import replace

    from datasets.art.painter import SCHEMES, FacePainter

    if _cjk_font() is None:
        pytest.skip("no CJK font is installed (e.g. apt-get install fonts-noto-cjk)")
    numbered = replace(SCHEMES[0], bonus="char", bonus_numeral="arabic")
    bare = replace(numbered, bonus_numeral="none")
    for code in ("1f", "5f"):
        assert FacePainter(numbered, (60, 80)).paint(code).tobytes() != FacePainter(bare, (60, 80)).paint(code).tobytes()
    bare_faces = FacePainter(bare, (30, 40)).faces()
    _assert_distinct(bare_faces)  # the eight bonus tiles still differ by their character alone
    stick = replace(SCHEMES[0], bird="stick")
    one, two = (FacePainter(stick, (60, 80)).paint(code) for code in ("1s", "2s"))
    ink_one, ink_two = (int((face[..., 3] > 128).sum()) for face in (one, two))
    assert 0 < ink_one < ink_two * 1.2  # one stick, about as much ink as the two of 2s
    assert one.tobytes() != FacePainter(SCHEMES[0], (60, 80)).paint("1s").tobytes()
    framed = [FacePainter(replace(SCHEMES[0], white="double", white_inset=inset), (60, 80)).paint("5z").tobytes()
              for inset in (0.1, 0.25)]
    assert framed[0] != framed[1]


def test_random_styles_are_painted_and_every_face_is_distinct():
    from datasets.art.painter import FacePainter, random_scheme

    if _cjk_font() is None:
        pytest.skip("no CJK font is installed (e.g. apt-get install fonts-noto-cjk)")
    for seed in (0, 1, 2):
        faces = FacePainter(random_scheme(seed), (30, 40)).faces()
        _assert_distinct(faces)


def test_painter_without_any_cjk_font_draws_shapes_and_letters(monkeypatch):
    from datasets.art import painter as painter_module
    from datasets.art.painter import SCHEMES, FacePainter

    monkeypatch.setattr(painter_module, "find_font", lambda *a, **k: None)
    monkeypatch.setattr(painter_module, "any_cjk_font", lambda: None)
    monkeypatch.setattr(painter_module, "latin_font", lambda *a, **k: None)
    painter = FacePainter(SCHEMES[1], (30, 40))
    assert painter.uses_fallback
    faces = painter.faces()
    _assert_distinct(faces)
    assert all(faces[code][..., 3].max() > 200 for code in ("1m", "2m", "3m", "1z", "7z", "8f"))


def test_painter_refuses_an_unknown_code():
    from datasets.art.painter import SCHEMES, FacePainter

    with pytest.raises(ValueError, match="'back' is not a tile code with a face"):
        FacePainter(SCHEMES[0], (30, 40)).paint("back")


# ----------------------------------------------------------------------------------------- prepare

def test_missing_packages_give_the_apt_line(monkeypatch, tmp_path, capsys):
    from datasets.art import prepare

    monkeypatch.setattr(prepare, "missing_packages", lambda specs=None: ["gnome-mahjongg", "fonts-noto-cjk"])
    with pytest.raises(prepare.MissingPackagesError) as caught:
        prepare.prepare_art(tmp_path / "art", progress=False, install=False)
    message = str(caught.value)
    assert "gnome-mahjongg, fonts-noto-cjk" in message
    assert message.endswith("apt-get install -y --no-install-recommends gnome-mahjongg fonts-noto-cjk")
    assert prepare.main(["--out", str(tmp_path / "art"), "--no-install", "--quiet"]) == 2
    assert "apt-get install" in capsys.readouterr().err
    assert not (tmp_path / "art").exists()


def test_prepare_refuses_unknown_styles(tmp_path):
    from datasets.art.prepare import prepare_art

    with pytest.raises(ValueError, match="Unknown art style"):
        prepare_art(tmp_path, styles=["kde-nope"], install=False)


def test_prepare_random_styles(tmp_path, monkeypatch):
    """``--random N``: N random painted styles and the held-out one, none of the fixed styles."""
    from datasets.art import prepare

    monkeypatch.setattr(prepare, "_build", lambda spec, size, tick: _fake_style(spec.name))
    monkeypatch.setattr(prepare, "ensure_packages", lambda specs, **kw: None)
    assert prepare.main(["--out", str(tmp_path / "art"), "--quiet", "--random", "3", "--random-seed", "40"]) == 0
    art = load_bundle(tmp_path / "art")
    assert art.names == ("gnome-smooth", "painted-random-40", "painted-random-41", "painted-random-42")
    assert [s.name for s in art.training_styles()] == ["painted-random-40", "painted-random-41", "painted-random-42"]
    with pytest.raises(ValueError, match="0 or more"):
        prepare.prepare_art(tmp_path / "other", random_styles=-1, install=False, progress=False)
    assert prepare.main(["--out", str(tmp_path / "art2"), "--quiet", "--random", "2", "--random-seed", "40",
                         "--random-generation", "2"]) == 0
    assert load_bundle(tmp_path / "art2").names == ("gnome-smooth", "painted-random-g2-40", "painted-random-g2-41")
    specs = prepare.random_specs(2, 40, 2)
    assert [prepare._scheme(spec).name for spec in specs] == ["painted-random-g2-40", "painted-random-g2-41"]


def _fake_style(name):
    from datasets.art.bundle import StyleToWrite

    faces = {code: np.full((160, 120, 4), k, np.uint8) for k, code in enumerate(CODES)}
    return StyleToWrite(name, "procedural:0", "test", faces, None)


def test_the_documented_style_list():
    from datasets.art.prepare import HELD_OUT, STYLES

    assert len(STYLES) >= 8 and HELD_OUT in STYLES
    assert {"kde-default", "kde-classic", "kde-jade", "kde-traditional", "gnome-smooth", "gnome-postmodern"} <= set(STYLES)


def test_the_xmahjongg_styles_are_built_only_when_named(tmp_path, monkeypatch):
    """The opt-in styles (stop 41) are not in a default bundle, so that every recipe rendered from one stays as it
    was; named, they are built with the held-out style."""
    from datasets.art import prepare

    built = []
    monkeypatch.setattr(prepare, "_build", lambda spec, size, tick: built.append(spec) or _fake_style(spec.name))
    monkeypatch.setattr(prepare, "ensure_packages", lambda specs, **kw: None)
    assert {"xm-real", "xm-dorothys"} <= set(prepare.STYLES)
    assert not any(spec.kind == "xmahjongg" for spec in prepare._style_specs())
    assert prepare.main(["--out", str(tmp_path / "art"), "--quiet", "--style", "xm-real", "--style", "xm-dorothys"]) == 0
    assert load_bundle(tmp_path / "art").names == ("gnome-smooth", "xm-real", "xm-dorothys")
    assert [(spec.kind, spec.theme) for spec in built[1:]] == [("xmahjongg", "real"), ("xmahjongg", "dorothys")]
    monkeypatch.setattr("datasets.art.xmahjongg.XMAHJONGG_DIRS", (tmp_path / "none",))
    assert prepare.missing_packages([prepare.StyleSpec("xm-real", "xmahjongg", "real")]) == ["xmahjongg"]


def test_xmahjongg_styles_for_real(tmp_path):
    """Integration: needs the Debian package xmahjongg (.ci/run installs it)."""
    from datasets.art.prepare import StyleSpec, missing_packages, prepare_art

    missing = missing_packages([StyleSpec("xm-real", "xmahjongg", "real"), StyleSpec("gnome-smooth", "gnome", "smooth")])
    if missing:
        pytest.skip(f"the Debian packages {', '.join(missing)} are not installed (docs/art.md has the apt line)")
    art = load_bundle(prepare_art(tmp_path / "art", progress=False, styles=["xm-real", "xm-dorothys"], install=False))
    assert art.names == ("gnome-smooth", "xm-real", "xm-dorothys")
    for name in ("xm-real", "xm-dorothys"):
        style = art.style(name)
        assert style.source == f"xmahjongg:{name[3:]}" and "GPL-2.0-or-later" in style.license
        _assert_distinct(style.faces)
        red = style.faces["7z"].astype(int)
        assert (red[..., 0] * red[..., 3]).sum() > 2 * (red[..., 2] * red[..., 3]).sum()  # 中 is red
        assert style.faces["5z"][..., 3].mean() > 20  # both frame or draw their White dragon
    real = art.style("xm-real")
    assert real.faces["1m"][:6, :6, 3].max() < 80  # the photographed surface, keyed out


def test_prepare_art_for_real(tmp_path):
    """Integration: needs kdegames-mahjongg-data-kf5, gnome-mahjongg, librsvg2-bin and the fonts."""
    from datasets.art.painter import SCHEMES, FacePainter
    from datasets.art.prepare import HELD_OUT, missing_packages, prepare_art, _style_specs

    specs = [s for s in _style_specs() if s.name in ("kde-default", "gnome-smooth", "painted-classic")]
    missing = missing_packages(specs)
    if missing:
        pytest.skip(f"the Debian packages {', '.join(missing)} are not installed (docs/art.md has the apt line)")
    started = time.monotonic()
    out = prepare_art(tmp_path / "art", progress=False, styles=["kde-default", "painted-classic"], install=False)
    art = load_bundle(out)
    assert art.names == ("kde-default", "gnome-smooth", "painted-classic")
    assert art.held_out_style().name == HELD_OUT == "gnome-smooth"
    assert art.face_size == (120, 160)
    for style in art.styles:
        _assert_distinct(style.faces)
    kde = art.style("kde-default")
    assert kde.source == "kde:default" and "GPL" in kde.license
    assert kde.faces["5z"][..., 3].max() < 40  # KDE default's White dragon is blank
    assert kde.faces["7z"][..., 0].astype(int).sum() > kde.faces["7z"][..., 2].astype(int).sum()  # 中 is red
    smooth = art.style("gnome-smooth")
    assert smooth.faces["1m"][..., 3].mean() > 5 and smooth.faces["1m"][0:4, 0:4, 3].max() == 0  # keyed-out surface
    painted = FacePainter(SCHEMES[0], art.face_size).paint("9s")
    assert np.array_equal(art.style("painted-classic").faces["9s"], painted)  # deterministic, as written
    assert time.monotonic() - started < 30
