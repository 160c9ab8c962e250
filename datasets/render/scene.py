"""One synthetic photo: a random valid hand, laid out, lit, photographed, finished; with exact labels.

``render_photo(styles, seed, index, options)`` is deterministic: everything random is drawn from
``numpy.random.default_rng([seed, index])``, so a photo depends on (seed, index) only, never on the
worker that renders it or on the photos rendered before it.

The steps: hand (``hands.random_hand``) -> scene (``layout.compose``) -> camera (``choose_camera``:
tilt, rotation, distance fitted to the tile size wanted) -> table (``background.render_table``) -> tray ->
things on the table (opt-in, ``clutter.draw_clutter``) -> shadows -> tiles (``tiles.TileRenderer``,
painter's order, id buffer) -> fingers -> light, glare, blur, noise -> labels (``label_tiles``: the bounds
of each tile's projected visible face, clipped to the photo and to what is not covered) -> JPEG.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Sequence

import cv2
import numpy as np

from datasets.labels import BACK, class_id, yolo_line
from datasets.render import background, clutter, effects
from datasets.render.camera import SHIFT, Camera, look_at, to_cv
from datasets.render.hands import random_hand
from datasets.render.layout import Scene, Tray, compose
from datasets.render.tiles import (STANDING, Drawn, Light, Placed, TextureCache, TileBody, TileRenderer,
                                   body_for, rotation, shadow_hull, translation)
from scorer.codec import hand_to_dict
from scorer.hand import Hand

BACK_COLOURS = {"green": (50, 125, 40), "blue": (150, 85, 25), "orange": (35, 125, 230), "yellow": (40, 185, 225),
                "red": (40, 40, 185)}  # BGR
_CACHE = TextureCache()
CLUTTER_STREAM = 43  # the clutter's random stream: default_rng([seed, index, CLUTTER_STREAM])


@dataclass(frozen=True)
class Framing:
    """How the camera frames a whole scene: the share of the frame it fills (before the closer shots and
    close-ups), found in ``rounds`` steps that each move the distance ``damping`` of the way (in log)
    to where the last view says it should be (close to a scene, perspective is strong: full steps
    overshoot and can swing to and fro, leaving a heap in half the frame)."""

    fill: tuple[float, float] = (0.55, 0.95)
    rounds: int = 3
    damping: float = 1.0


SCENE_FRAMING = {"heap": Framing((0.8, 1.0), rounds=6, damping=0.6)}  # heaps are photographed close


@dataclass
class RenderOptions:
    """``size``: the photo's long side in pixels, or a (min, max) range sampled log-uniformly.
    ``kinds``: the scene kinds to draw from, evenly (default: ``layout.DEFAULT_KINDS`` by
    ``layout.SCENE_WEIGHTS``: all but the opt-in ``heap``). ``min_visible``: a tile whose visible face
    is less than this fraction of its face is left out of the YOLO labels (kept in the sidecar, with
    ``labelled: false``). ``plain``: no texture, shadow, glare, fingers, blur, noise (for tests).
    ``clutter``: the share of photos with things on the table beside the hand (phones, scoring sticks, dice,
    coins, cups, pens, score sheets; ``clutter.draw_clutter``), never labelled. They are drawn from a random
    stream of their own, so that a set rendered with ``clutter`` 0 is the same photo for photo as before the
    option existed."""

    size: int | tuple[int, int] = 1280
    kinds: Sequence[str] | None = None
    min_visible: float = 0.4
    plain: bool = False
    jpeg_quality: tuple[int, int] = (45, 95)
    clutter: float = 0.0


@dataclass
class Photo:
    image: np.ndarray  # BGR uint8, before JPEG
    jpeg: bytes
    labels: list[str]
    sidecar: dict[str, Any]


@dataclass
class TileRecord:
    tile: Placed
    drawn: Drawn
    quad: np.ndarray  # the cap's four corners, in the face's reading order TL TR BR BL
    box: tuple[float, float, float, float] | None = None
    visible: float = 0.0
    labelled: bool = False
    extra: dict = field(default_factory=dict)

    @property
    def class_code(self) -> str:
        return self.tile.code if self.drawn.shows_face else BACK


# --------------------------------------------------------------------------------------------------


def photo_size(rng: np.random.Generator, size: int | tuple[int, int]) -> tuple[int, int]:
    lo, hi = (size, size) if isinstance(size, int) else size
    long_side = int(round(math.exp(rng.uniform(math.log(lo), math.log(hi))))) if hi > lo else int(lo)
    ratio = float(rng.choice([4 / 3, 4 / 3, 16 / 9, 1.0, 3 / 2]))
    short = int(round(long_side / ratio))
    return (long_side, short) if rng.random() < 0.6 else (short, long_side)


def choose_camera(rng: np.random.Generator, tiles: list[Placed], body: TileBody, width: int, height: int,
                  standing: bool, keep: Sequence[Placed] | None = None,
                  framing: Framing = Framing()) -> tuple[Camera, dict]:
    """Tilt (top-down to ~45 degrees; 35-65 when tiles stand, so that their faces show), any rotation,
    and a distance that gives tiles 20-250 px wide; most photos frame the whole scene (as ``framing``
    says), some come closer. Whatever the framing, every tile of ``keep`` (the hand) ends up wholly
    inside the frame: the camera backs off and moves (``fit_inside``) until it is, even if that makes
    tiles smaller than 20 px."""
    long_side = max(width, height)
    fov = math.radians(rng.uniform(55, 72))
    focal = long_side / 2 / math.tan(fov / 2)
    half_diag = math.degrees(math.atan(math.hypot(width, height) / 2 / focal))
    if standing:  # low enough to see the faces of standing tiles
        tilt = rng.uniform(35, 65)
        azimuth = rng.uniform(-25, 25)
    else:
        tilt = rng.uniform(0, 15) if rng.random() < 0.45 else rng.uniform(15, 45)
        azimuth = rng.uniform(-40, 40) if rng.random() < 0.75 else rng.uniform(0, 360)
    r = rng.random()
    roll = rng.normal(0, 5) if r < 0.5 else (float(rng.choice([90, -90, 180])) + rng.normal(0, 5) if r < 0.7
                                             else rng.uniform(0, 360))
    pts = np.array([[t.x, t.y, t.z + body.D] for t in tiles])
    ext = 0.5 * math.hypot(body.W, body.H)
    pts = np.concatenate([pts + (dx, dy, 0) for dx, dy in ((ext, 0), (-ext, 0), (0, ext), (0, -ext))])
    lo_px = max(20.0, 0.02 * long_side)
    hi_px = max(lo_px, min(250.0, 0.18 * long_side))
    closeup = rng.random() < 0.2
    centre = (pts.min(axis=0) + pts.max(axis=0)) / 2
    centre[2] = 0
    if closeup and not keep:
        pick = tiles[rng.integers(len(tiles))]
        target = np.array([pick.x, pick.y, 0.0])
        tile_px = math.exp(rng.uniform(math.log(lo_px), math.log(hi_px)))
        dist = focal * body.W / tile_px
    else:
        target = centre.copy()
        # a close-up of a hand that must stay whole: the scene fills the frame, up to its margin
        frac = rng.uniform(0.9, 1.0) if closeup else rng.uniform(*framing.fill)
        dist = focal * body.W / (lo_px + hi_px) * 2
        for _ in range(framing.rounds):
            cam = look_at(target, dist, tilt, azimuth, roll, width, height, focal)
            p = cam.project(pts)
            span = p.max(axis=0) - p.min(axis=0)
            scale = max(span[0] / (frac * width), span[1] / (frac * height))
            mid = (p.max(axis=0) + p.min(axis=0)) / 2
            # re-centre: move the target by the offset of the scene's middle, seen on the table
            shift = cam.image_to_table(np.array([mid, [width / 2, height / 2]]))
            target = target + (shift[0] - shift[1]) * np.array([1, 1, 0])
            dist *= scale ** framing.damping
        if rng.random() < 0.4 and not closeup:  # closer: the scene's edges leave the frame, tiles get bigger
            dist /= rng.uniform(1.0, 1.8)
        tile_px = focal * body.W / dist
        if not lo_px <= tile_px <= hi_px:
            tile_px = min(max(tile_px, lo_px), hi_px)
            dist = focal * body.W / tile_px
        # not always in the middle of the frame
        target = target + np.r_[rng.normal(0, 0.08, 2) * dist, 0]
    cam = look_at(target, dist, tilt, azimuth, roll, width, height, focal)
    if keep:
        cam, target, dist = fit_inside(cam, target, dist, hand_points(keep, body), tilt, azimuth, roll, focal)
        tile_px = focal * body.W / dist
    info = {"tilt_deg": round(float(tilt), 2), "azimuth_deg": round(float(azimuth % 360), 2),
            "roll_deg": round(float(roll % 360), 2), "fov_deg": round(math.degrees(fov), 2),
            "tile_px": round(float(tile_px), 1), "closeup": bool(closeup),
            "sees_horizon": bool(tilt + half_diag > 72)}
    return cam, info


def hand_points(tiles: Sequence[Placed], body: TileBody) -> np.ndarray:
    """Points (N, 3) round every tile's whole body, from the table up to its top: whatever the tile's
    angle, its footprint lies within half its diagonal of its centre."""
    ext = 0.5 * math.hypot(body.W, body.H)
    out = []
    for t in tiles:
        top = t.z + (body.H if t.pose == STANDING else body.D)
        for z in (t.z, top):
            for dx, dy in ((ext, 0), (-ext, 0), (0, ext), (0, -ext), (ext, ext), (ext, -ext), (-ext, ext),
                           (-ext, -ext)):
                out.append((t.x + dx * (0.7072 if dx and dy else 1), t.y + dy * (0.7072 if dx and dy else 1), z))
    return np.array(out, float)


def fit_inside(cam: Camera, target: np.ndarray, dist: float, pts: np.ndarray, tilt: float, azimuth: float,
               roll: float, focal: float, margin: float = 0.02) -> tuple[Camera, np.ndarray, float]:
    """Move the camera (its target on the table) and back it off until every point projects inside the
    frame, ``margin`` of the short side away from its edges. A camera that already sees them all stays."""
    w, h = cam.width, cam.height
    m = max(3.0, margin * min(w, h))
    for _ in range(40):
        rel = (pts - cam.C) @ cam.R.T
        if np.all(rel[:, 2] > 1e-3):
            p = cam.project(pts)
            lo, hi = p.min(axis=0), p.max(axis=0)
            if lo[0] >= m and lo[1] >= m and hi[0] <= w - m and hi[1] <= h - m:
                return cam, target, dist
            span = hi - lo
            room = np.array([w - 2 * m, h - 2 * m])
            scale = min(2.0, float(max(1.0, *(span / room))) * 1.03) if np.any(span > room) else 1.0
            # the shift (in pixels) that brings the points' bounds inside the frame, or centres them
            mid = (lo + hi) / 2
            want = np.where(span > room, np.array([w, h]) / 2, np.clip(mid, m + span / 2, np.array([w, h]) - m - span / 2))
            ref = np.array([mid, want])
            if np.all(cam.rays(ref)[:, 2] < -1e-6):  # both on the table, not beyond the horizon
                moved = cam.image_to_table(ref)
                target = target + (moved[0] - moved[1]) * np.array([1, 1, 0])
            else:
                scale = max(scale, 1.2)
            dist *= scale
        else:  # points behind the camera: back off
            dist *= 1.5
        cam = look_at(target, dist, tilt, azimuth, roll, w, h, focal)
    return cam, target, dist


def choose_light(rng: np.random.Generator) -> tuple[Light, dict]:
    elev = math.radians(rng.uniform(35, 85))
    az = rng.uniform(0, 2 * math.pi)
    d = np.array([math.cos(elev) * math.cos(az), math.cos(elev) * math.sin(az), math.sin(elev)])
    hard = rng.random() < 0.35
    ambient = rng.uniform(0.35, 0.6)
    return Light(d, ambient, 1 - ambient), {"elevation_deg": round(math.degrees(elev), 1),
                                            "azimuth_deg": round(math.degrees(az), 1), "hard_shadows": bool(hard)}


# --------------------------------------------------------------------------------------------------


def draw_shadows(canvas: np.ndarray, renderer: TileRenderer, tiles: list[Placed], light: Light, hard: bool,
                 rng: np.random.Generator, tile_px: float, floor: float = 0.0) -> None:
    """Darken the table under the tiles: each tile's shadow cast along the light, and a soft contact
    shadow round its footprint. Drawn at half resolution and blurred."""
    h, w = canvas.shape[:2]
    f = max(2.0, max(h, w) / 900)  # the masks' scale-down: soft shadows need no more
    hh, hw = max(1, round(h / f)), max(1, round(w / f))
    cast = np.zeros((hh, hw), np.uint8)
    contact = np.zeros((hh, hw), np.uint8)
    for t in tiles:
        shadow, foot = shadow_hull(renderer, t, light.direction, floor_z=floor)
        cv2.fillConvexPoly(cast, to_cv(shadow / f), 255, cv2.LINE_AA, SHIFT)
        cv2.fillConvexPoly(contact, to_cv(foot / f), 255, cv2.LINE_AA, SHIFT)
    sigma = max(0.6, tile_px * (rng.uniform(0.01, 0.03) if hard else rng.uniform(0.06, 0.15)) / f)
    cast = cv2.GaussianBlur(cast, (0, 0), sigma)
    contact = cv2.GaussianBlur(contact, (0, 0), max(0.8, tile_px * 0.06 / f))
    strength = rng.uniform(0.35, 0.6) if hard else rng.uniform(0.2, 0.45)
    mask = np.maximum((cast.astype(np.uint16) * int(strength * 256) >> 8).astype(np.uint8),
                      (contact.astype(np.uint16) * 140 >> 8).astype(np.uint8))
    effects.darken(canvas, mask, 1.0)


def draw_tray(canvas: np.ndarray, cam: Camera, tray: Tray, light: Light) -> None:
    """A plastic tray: outer walls and rim, then the inner walls and the floor seen through the opening."""
    a = math.radians(tray.angle)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])

    def rect(w, h, z):
        c = np.array([[w / 2, h / 2], [-w / 2, h / 2], [-w / 2, -h / 2], [w / 2, -h / 2]]) @ rot.T + (tray.cx, tray.cy)
        return np.c_[c, np.full(4, z)]

    outer0, outer1 = rect(tray.w, tray.h, 0), rect(tray.w, tray.h, tray.rim)
    iw, ih = tray.w - 2 * tray.wall, tray.h - 2 * tray.wall
    inner1, floor = rect(iw, ih, tray.rim), rect(iw, ih, tray.floor)
    base = tray.bgr
    for i in range(4):  # outer walls facing the camera
        j = (i + 1) % 4
        mid = (outer0[i] + outer0[j]) / 2
        n = np.r_[(mid[:2] - (tray.cx, tray.cy)), 0]
        n /= np.linalg.norm(n)
        if n @ (cam.C - mid) > 0:
            quad = cam.project(np.array([outer0[i], outer0[j], outer1[j], outer1[i]]))
            cv2.fillConvexPoly(canvas, to_cv(quad), (base * float(light.shade(n[None])[0])).tolist(), cv2.LINE_AA, SHIFT)
    cv2.fillConvexPoly(canvas, to_cv(cam.project(outer1)), (base * 1.05).tolist(), cv2.LINE_AA, SHIFT)
    # the cavity, clipped to the opening
    opening = cam.project(inner1)
    x0, y0 = np.floor(opening.min(axis=0)).astype(int)
    x1, y1 = np.ceil(opening.max(axis=0)).astype(int) + 1
    hgt, wid = canvas.shape[:2]
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, wid), min(y1, hgt)
    if x1 <= x0 or y1 <= y0:
        return
    region = canvas[y0:y1, x0:x1]
    layer = region.copy()
    off = (x0, y0)
    cv2.fillConvexPoly(layer, to_cv(cam.project(floor), off), (base * 0.9).tolist(), cv2.LINE_8, SHIFT)
    for i in range(4):  # inner walls face the middle
        j = (i + 1) % 4
        mid = (inner1[i] + inner1[j]) / 2
        n = np.r_[((tray.cx, tray.cy) - mid[:2]), 0]
        n /= np.linalg.norm(n)
        if n @ (cam.C - mid) > 0:
            quad = cam.project(np.array([floor[i], floor[j], inner1[j], inner1[i]]))
            cv2.fillConvexPoly(layer, to_cv(quad, off), (base * float(light.shade(n[None])[0]) * 0.8).tolist(),
                               cv2.LINE_8, SHIFT)
    mask = np.zeros(layer.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, to_cv(opening, off), 255, cv2.LINE_AA, SHIFT)
    from datasets.render.tiles import _blend
    _blend(region, layer, mask)


def render_tiles(canvas: np.ndarray, renderer: TileRenderer, tiles: list[Placed]) -> tuple[np.ndarray, list[TileRecord]]:
    """Draw the tiles far to near (a tile on another after it); answers the id buffer and a record per
    tile (in the order of ``tiles``)."""
    cam, body = renderer.cam, renderer.body
    h, w = canvas.shape[:2]
    idbuf = np.full((h, w), -1, np.int32)
    depths = [float(cam.depth(translation(t, body)[None])[0]) for t in tiles]
    order = sorted(range(len(tiles)), key=lambda i: (tiles[i].z, -depths[i]))
    records: list[TileRecord | None] = [None] * len(tiles)
    for i in order:
        t = tiles[i]
        drawn = renderer.draw(canvas, idbuf, t, i)
        R, tr = rotation(t), translation(t, body)
        zc = body.D if drawn.shows_face else 0.0
        fw, fh = renderer.face_w / 2, renderer.face_h / 2
        corners = np.array([[-fw, fh, zc], [fw, fh, zc], [fw, -fh, zc], [-fw, -fh, zc]])
        records[i] = TileRecord(t, drawn, cam.project(corners @ R.T + tr))
    return idbuf, records  # type: ignore[return-value]


def label_tiles(records: list[TileRecord], idbuf: np.ndarray, min_visible: float) -> None:
    """Each tile's box: the bounds of its projected face outline, clipped to the photo, shrunk to the
    pixels of the face left visible when other tiles or fingers cover part of it; and the visible
    fraction. Sets ``box``, ``visible`` and ``labelled`` (visible >= min_visible, box at least 2 px)."""
    h, w = idbuf.shape
    counts = np.bincount(idbuf[idbuf >= 0].ravel(), minlength=len(records))
    for i, rec in enumerate(records):
        poly = rec.drawn.polygon
        area = max(rec.drawn.area, 1e-6)
        rec.visible = float(min(1.0, counts[i] / area))
        x1, y1 = np.clip(poly.min(axis=0), 0, (w, h))
        x2, y2 = np.clip(poly.max(axis=0), 0, (w, h))
        if counts[i] == 0 or x2 <= x1 or y2 <= y1:
            rec.box, rec.labelled = None, False
            continue
        inside = x1 > 0 or y1 > 0 or x2 < w or y2 < h
        covered = counts[i] < 0.97 * _clipped_area(poly, w, h) if inside else True
        if covered:  # the visible pixels' bounds, but never beyond the exact outline
            ys, xs = np.nonzero(idbuf[int(y1):int(math.ceil(y2)), int(x1):int(math.ceil(x2))] == i)
            if not len(xs):  # its pixels all lie outside its face's outline (a sliver of its side): no face shows
                rec.box, rec.labelled, rec.visible = None, False, 0.0
                continue
            vx1, vy1 = xs.min() + int(x1), ys.min() + int(y1)
            vx2, vy2 = xs.max() + int(x1) + 1, ys.max() + int(y1) + 1
            x1, y1, x2, y2 = max(x1, vx1), max(y1, vy1), min(x2, vx2), min(y2, vy2)
        rec.box = (float(x1), float(y1), float(x2), float(y2))
        rec.labelled = rec.visible >= min_visible and x2 - x1 >= 2 and y2 - y1 >= 2


def _clipped_area(poly: np.ndarray, w: int, h: int) -> float:
    """Area of a convex polygon clipped to the photo (cv2's convex intersection)."""
    frame = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    area, _ = cv2.intersectConvexConvex(poly.astype(np.float32), frame)
    return float(area)


# --------------------------------------------------------------------------------------------------


def render_photo(styles: Sequence[Any], seed: int, index: int, options: RenderOptions | None = None) -> Photo:
    """The photo number ``index`` of the run ``seed``, with its YOLO lines and its sidecar."""
    opts = options or RenderOptions()
    rng = np.random.default_rng([seed, index])
    hand = random_hand(rng)
    style = styles[int(rng.integers(len(styles)))]
    back_name = str(rng.choice(list(BACK_COLOURS)))
    back_bgr = np.array(BACK_COLOURS[back_name], float) * rng.uniform(0.8, 1.15)
    use_back_art = style.back is not None and rng.random() < 0.5
    if use_back_art:
        back_bgr = np.median(style.back[..., :3].reshape(-1, 3), axis=0)[::-1].astype(float)
        back_name = "art"
    width_mm = rng.uniform(24, 32)
    body = body_for(style, rng, back_bgr, width_mm)
    kinds = list(opts.kinds) if opts.kinds else None
    kind = str(rng.choice(kinds)) if kinds else None
    scene = compose(rng, hand, body, kind)
    width, height = photo_size(rng, opts.size)
    standing = any(t.pose == STANDING for t in scene.tiles)
    hand_tiles = [t for t in scene.tiles if t.group.get("kind") != "other"]
    cam, cam_info = choose_camera(rng, scene.tiles, body, width, height, standing, hand_tiles,
                                  SCENE_FRAMING.get(scene.kind, Framing()))
    light, light_info = choose_light(rng)
    if opts.plain:
        light = Light(np.array([0.0, 0.0, 1.0]), 0.6, 0.4)

    # the table
    around = np.array([np.mean([t.x for t in scene.tiles]), np.mean([t.y for t in scene.tiles])])
    table_kind = str(rng.choice(background.KINDS, p=background.WEIGHTS))
    if opts.plain:
        canvas = np.full((height, width, 3), 90, np.uint8)
    else:
        far_edge = None
        if cam_info["sees_horizon"] or (cam_info["tilt_deg"] > 25 and rng.random() < 0.3):
            extent = max(np.ptp([t.x for t in scene.tiles]), np.ptp([t.y for t in scene.tiles]))
            far_edge = float(extent / 2 + rng.uniform(2, 12) * body.H)
        canvas = background.render_table(rng, cam, table_kind, around, max_px=int(min(800, max(width, height) * 0.5)),
                                         far_edge=far_edge)
    renderer = TileRenderer(cam, body, style if use_back_art else _NoBack(style), light, _CACHE)
    floor = 0.0
    if scene.tray is not None:
        floor = scene.tray.floor
        if not opts.plain:
            _tray_shadow(canvas, cam, scene.tray, light, rng, cam_info["tile_px"])
        draw_tray(canvas, cam, scene.tray, light)
    finish: dict[str, Any] = {}
    if opts.clutter > 0 and not opts.plain:
        clutter_rng = np.random.default_rng([seed, index, CLUTTER_STREAM])
        if clutter_rng.random() < opts.clutter:
            finish["clutter"] = clutter.draw_clutter(clutter_rng, canvas, cam, [(t.x, t.y) for t in scene.tiles],
                                                     body.W, light.direction)
    if not opts.plain:
        draw_shadows(canvas, renderer, scene.tiles, light, light_info["hard_shadows"], rng, cam_info["tile_px"], floor)
    idbuf, records = render_tiles(canvas, renderer, scene.tiles)

    if not opts.plain:
        if rng.random() < 0.15:
            drawn = [r for r in records if r.drawn.area > 0]
            pick = drawn[int(rng.integers(len(drawn)))] if drawn else None
            if pick is not None:
                # fingers may cover a tile of the hand, but never hide it (under min_visible): the
                # hand stays readable from the labels; else the photo goes without them
                label_tiles(records, idbuf, opts.min_visible)
                seen = [r.labelled for r in records]
                saved = canvas.copy(), idbuf.copy()
                shapes = effects.fingers(rng, canvas, idbuf, pick.drawn.polygon.mean(axis=0), cam_info["tile_px"])
                label_tiles(records, idbuf, opts.min_visible)
                if any(was and not r.labelled and r.tile.group.get("kind") != "other"
                       for was, r in zip(seen, records)):
                    canvas, idbuf = saved
                else:
                    finish["fingers"] = shapes
    label_tiles(records, idbuf, opts.min_visible)

    if not opts.plain:
        low_light = rng.random() < 0.12
        m8, finish["light"] = effects.light_map(rng, width, height, low_light)
        effects.apply_light(canvas, m8)
        if rng.random() < 0.4:
            finish["glare"] = effects.glare(rng, canvas, idbuf >= 0)
        scale = max(width, height) / 1280
        r = rng.random()
        if r < 0.25:
            sigma = float(rng.uniform(0.5, 2.0) * scale)
            canvas = effects.defocus(canvas, sigma)
            finish["defocus_sigma"] = round(sigma, 2)
        elif r < 0.35:
            length = int(max(3, rng.uniform(3, 12) * scale))
            angle = float(rng.uniform(0, 180))
            canvas = effects.motion_blur(canvas, length, angle)
            finish["motion_blur"] = {"length": length, "angle": round(angle, 1)}
        sigma = float(rng.uniform(5, 12)) if low_light else (float(rng.uniform(1, 4)) if rng.random() < 0.6 else 0.0)
        if sigma > 0:
            effects.sensor_noise(rng, canvas, sigma)
        finish["noise_sigma"] = round(sigma, 2)
        finish["low_light"] = bool(low_light)
    q_lo, q_hi = opts.jpeg_quality
    quality = int(rng.integers(q_lo, q_hi + 1)) if rng.random() < 0.9 else int(rng.integers(25, q_lo + 1))
    if opts.plain:
        quality = 95
    ok, buf = cv2.imencode(".jpg", canvas, [cv2.IMWRITE_JPEG_QUALITY, quality])
    finish["jpeg_quality"] = quality

    labels = [yolo_line(class_id(r.class_code), r.box, width, height) for r in records if r.labelled]
    sidecar = make_sidecar(hand, scene, records, width, height, seed, index, {
        "style": style.name, "back": back_name, "table": "plain" if opts.plain else table_kind,
        "camera": cam_info, "light": light_info, "finish": finish,
        "tile_mm": [round(body.W, 2), round(body.H, 2), round(body.D, 2)]})
    return Photo(canvas, buf.tobytes(), labels, sidecar)


class _NoBack:
    """A style seen without its back art (the back drawn in the body's back colour)."""

    def __init__(self, style):
        self._style = style
        self.back = None
        self.faces = style.faces
        self.name = style.name

    def __getattr__(self, name):
        return getattr(self._style, name)


def _tray_shadow(canvas, cam, tray, light, rng, tile_px) -> None:
    h, w = canvas.shape[:2]
    mask = np.zeros((h, w), np.uint8)
    a = math.radians(tray.angle)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    c = np.array([[tray.w / 2, tray.h / 2], [-tray.w / 2, tray.h / 2], [-tray.w / 2, -tray.h / 2],
                  [tray.w / 2, -tray.h / 2]]) @ rot.T + (tray.cx, tray.cy)
    top = np.c_[c, np.full(4, tray.rim)]
    lz = max(light.direction[2], 0.15)
    cast = top - light.direction[None] * (tray.rim / lz)
    cast[:, 2] = 0
    pts = cam.project(np.concatenate([np.c_[c, np.zeros(4)], cast]))
    cv2.fillConvexPoly(mask, to_cv(cv2.convexHull(pts.astype(np.float32))[:, 0, :]), 255, cv2.LINE_AA, SHIFT)
    mask = cv2.GaussianBlur(mask, (0, 0), max(1.0, tile_px * 0.05))
    effects.darken(canvas, mask, float(rng.uniform(0.25, 0.5)))


def make_sidecar(hand: Hand, scene: Scene, records: list[TileRecord], width: int, height: int, seed: int,
                 index: int, info: dict) -> dict[str, Any]:
    """The ground truth of a photo: the hand (spec format), every tile with its box, class, pose and
    group, and the groups as lists of tile ids."""
    tiles = []
    groups: dict[tuple, list[int]] = {}
    for i, rec in enumerate(records):
        t = rec.tile
        g = dict(t.group)
        tiles.append({
            "id": i,
            "class": rec.class_code,
            "tile": t.code,
            "box": [round(v, 2) for v in rec.box] if rec.box else None,
            "quad": [[round(float(x), 2), round(float(y), 2)] for x, y in rec.quad],
            "labelled": bool(rec.labelled),
            "visible": round(rec.visible, 3),
            "sideways": bool(t.sideways),
            "face_down": bool(t.face_down),
            "standing": t.pose == STANDING,
            "on_top": bool(t.stacked),
            "group": g,
        })
        key = (g.get("kind"), g.get("meld"))
        groups.setdefault(key, []).append(i)
    order = {"concealed": 0, "winning": 1, "meld": 2, "flower": 3, "other": 4}
    group_list = []
    for (kind, meld), ids in sorted(groups.items(), key=lambda kv: (order.get(kv[0][0], 9), kv[0][1] or 0)):
        ids = sorted(ids, key=lambda i: records[i].tile.group.get("index", 0))
        entry: dict[str, Any] = {"kind": kind, "tiles": ids}
        if meld is not None:
            entry["meld"] = meld
        group_list.append(entry)
    return {
        "image": {"file": f"{index:06d}.jpg", "width": width, "height": height},
        "seed": seed, "index": index,
        "hand": hand_to_dict(hand),
        "scene": {"kind": scene.kind, **scene.notes, **info},
        "tiles": tiles,
        "groups": group_list,
    }
