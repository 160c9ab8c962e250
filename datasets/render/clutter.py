"""Things that lie on the table beside a hand: phones, scoring sticks, dice, coins, chips, cups, pens and score
sheets, drawn flat on the table's plane (so the camera's perspective applies to them as to the table).

Real photos show them (the real val photos' phone lenses were read as dots, stop 43), and a rendered table had
none: a detector never shown them cannot learn that they are not tiles. They are never labelled, lie off the
tiles (a tile drawn later covers what little may overlap) and cast a soft shadow.

``draw_clutter(rng, canvas, cam, tiles, tile_mm, light)`` draws one to four of them and answers what it drew
(kind and image outline, for the sidecar). Each object is painted as a small BGRA picture in millimetres and
warped onto the photo through the table plane's homography.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import cv2
import numpy as np

from datasets.render import effects
from datasets.render.camera import Camera, cv_homography

PX_PER_MM = 6.0  # the objects' pictures at most: their resolution follows the photo's (``draw_clutter``)


def _canvas(k: float, w_mm: float, h_mm: float) -> np.ndarray:
    return np.zeros((max(2, int(round(h_mm * k))), max(2, int(round(w_mm * k))), 4), np.uint8)


def _p(k: float, *mm: float) -> tuple[int, ...]:
    return tuple(int(round(v * k)) for v in mm)


def _rounded_rect(img: np.ndarray, k: float, colour, radius_mm: float, inset_mm: float = 0.0) -> None:
    h, w = img.shape[:2]
    r, i = int(radius_mm * k), int(inset_mm * k)
    r = max(1, min(r, (w - 2 * i) // 2 - 1, (h - 2 * i) // 2 - 1))
    c = (*colour, 255)
    cv2.rectangle(img, (i + r, i), (w - 1 - i - r, h - 1 - i), c, -1, cv2.LINE_AA)
    cv2.rectangle(img, (i, i + r), (w - 1 - i, h - 1 - i - r), c, -1, cv2.LINE_AA)
    for x, y in ((i + r, i + r), (w - 1 - i - r, i + r), (i + r, h - 1 - i - r), (w - 1 - i - r, h - 1 - i - r)):
        cv2.circle(img, (x, y), r, c, -1, cv2.LINE_AA)


def _grain(rng: np.random.Generator, img: np.ndarray, amount: float) -> None:
    """A little noise on the painted part, so that no object is flat colour."""
    n = rng.normal(0, amount, img.shape[:2])[..., None]
    img[..., :3] = np.clip(img[..., :3].astype(np.float32) + n, 0, 255).astype(np.uint8)


def phone(rng: np.random.Generator, k: float = PX_PER_MM) -> np.ndarray:
    """A phone lying face down (its camera's lenses: rings that look like dots) or face up (a dark screen)."""
    w, h = rng.uniform(64, 78), rng.uniform(140, 162)
    img = _canvas(k, w, h)
    body = rng.choice([(25, 25, 28), (200, 200, 205), (60, 45, 150), (120, 90, 40), (80, 160, 200), (40, 40, 40),
                       (170, 200, 230)])
    body = tuple(int(v) for v in np.clip(np.array(body) * rng.uniform(0.8, 1.15), 0, 255))
    _rounded_rect(img, k, body, rng.uniform(7, 12))
    if rng.random() < 0.65:  # its back: a camera block with two or three lenses, a flash
        block = rng.uniform(28, 38)
        cx0, cy0 = rng.uniform(4, 7), rng.uniform(4, 7)
        sub = img[_p(k, cy0)[0]:_p(k, cy0 + block)[0], _p(k, cx0)[0]:_p(k, cx0 + block)[0]]
        shade = tuple(int(v * rng.uniform(0.7, 1.1)) for v in body)
        _rounded_rect(sub, k, shade, rng.uniform(5, 9))
        lenses = int(rng.integers(2, 4))
        spots = [(0.3, 0.3), (0.3, 0.72), (0.72, 0.5)][:lenses] if lenses == 3 else [(0.3, 0.3), (0.3, 0.72)]
        for fx, fy in spots:
            centre = _p(k, cx0 + fx * block, cy0 + fy * block)
            radius = rng.uniform(5.5, 7.5)
            cv2.circle(img, centre, _p(k, radius)[0], (70, 70, 75, 255), -1, cv2.LINE_AA)
            cv2.circle(img, centre, _p(k, radius * 0.78)[0], (12, 12, 14, 255), -1, cv2.LINE_AA)
            cv2.circle(img, centre, _p(k, radius * 0.42)[0], (40, 25, 30, 255), -1, cv2.LINE_AA)
            cv2.circle(img, (centre[0] - _p(k, radius * 0.2)[0], centre[1] - _p(k, radius * 0.2)[0]),
                       max(1, _p(k, radius * 0.12)[0]), (230, 230, 230, 255), -1, cv2.LINE_AA)
        cv2.circle(img, _p(k, cx0 + 0.72 * block, cy0 + 0.22 * block), _p(k, 2.2)[0], (190, 220, 235, 255), -1,
                   cv2.LINE_AA)
        if rng.random() < 0.5:  # a maker's mark in the middle
            cv2.circle(img, _p(k, w / 2, h * 0.45), _p(k, rng.uniform(5, 8))[0],
                       tuple(int(v * 0.85) for v in body) + (255,), -1, cv2.LINE_AA)
    else:  # face up: a black screen with a reflection across it
        _rounded_rect(img, k, (12, 12, 16), rng.uniform(6, 10), inset_mm=rng.uniform(1.5, 3))
        x = rng.uniform(0, w)
        pts = np.array([_p(k, x, 0), _p(k, x + 25, 0), _p(k, x - 15, h), _p(k, x - 40, h)], np.int32)
        glow = img.copy()
        cv2.fillConvexPoly(glow, pts, (60, 60, 70, 255), cv2.LINE_AA)
        screen = img[..., 0] < 30
        img[screen] = (0.75 * img[screen] + 0.25 * glow[screen]).astype(np.uint8)
    _grain(rng, img, 3)
    return img


def scoring_sticks(rng: np.random.Generator, k: float = PX_PER_MM) -> np.ndarray:
    """A few counting sticks side by side, ivory, marked with red and black dots (the commonest markings)."""
    n = int(rng.integers(2, 7))
    length, width, gap = rng.uniform(95, 125), rng.uniform(7, 10), rng.uniform(0.5, 6)
    img = _canvas(k, length, n * (width + gap))
    ivory = tuple(int(v) for v in rng.uniform(200, 250) * np.array([0.93, 0.98, 1.0]))
    for stick in range(n):
        y0 = stick * (width + gap)
        sub = img[_p(k, y0)[0]:_p(k, y0 + width)[0]]
        _rounded_rect(sub, k, ivory, width / 2)
        yc = y0 + width / 2
        mark = int(rng.integers(4))
        if mark == 0:  # one big red dot
            cv2.circle(img, _p(k, length / 2, yc), _p(k, width * 0.3)[0], (40, 40, 200, 255), -1, cv2.LINE_AA)
        elif mark == 1:  # a row of small black dots at each end
            dots = int(rng.integers(3, 6))
            for end in (0.12, 0.88 - 0.05 * (dots - 1)):
                for d in range(dots):
                    cv2.circle(img, _p(k, length * (end + 0.05 * d), yc), _p(k, width * 0.13)[0], (20, 20, 20, 255), -1,
                               cv2.LINE_AA)
        elif mark == 2:  # a red dot amid black ones
            for f in (0.35, 0.43, 0.57, 0.65):
                cv2.circle(img, _p(k, length * f, yc), _p(k, width * 0.14)[0], (20, 20, 20, 255), -1, cv2.LINE_AA)
            cv2.circle(img, _p(k, length / 2, yc), _p(k, width * 0.2)[0], (40, 40, 200, 255), -1, cv2.LINE_AA)
        else:  # two rows of dots along the stick
            for f in np.linspace(0.2, 0.8, int(rng.integers(5, 9))):
                for dy in (-0.22, 0.22):
                    cv2.circle(img, _p(k, length * f, yc + dy * width), _p(k, width * 0.1)[0], (30, 30, 150, 255), -1,
                               cv2.LINE_AA)
    _grain(rng, img, 2.5)
    return img


def die(rng: np.random.Generator, k: float = PX_PER_MM) -> np.ndarray:
    """A die's top face: a rounded square with pips (the one pip often large and red, as on mahjong dice)."""
    side = rng.uniform(12, 20)
    img = _canvas(k, side, side)
    face = tuple(int(v) for v in rng.uniform(215, 250) * np.array([0.95, 0.98, 1.0]))
    _rounded_rect(img, k, face, side * 0.18)
    value = int(rng.integers(1, 7))
    spots = {1: [(0.5, 0.5)], 2: [(0.25, 0.25), (0.75, 0.75)], 3: [(0.25, 0.25), (0.5, 0.5), (0.75, 0.75)],
             4: [(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)],
             5: [(0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)],
             6: [(0.25, 0.22), (0.75, 0.22), (0.25, 0.5), (0.75, 0.5), (0.25, 0.78), (0.75, 0.78)]}[value]
    for fx, fy in spots:
        red = value in (1, 4)
        radius = side * (0.17 if value == 1 else 0.085)
        cv2.circle(img, _p(k, fx * side, fy * side), max(1, _p(k, radius)[0]),
                   ((30, 30, 190) if red else (25, 25, 25)) + (255,), -1, cv2.LINE_AA)
    _grain(rng, img, 2)
    return img


def coin(rng: np.random.Generator, k: float = PX_PER_MM) -> np.ndarray:
    """A coin or a gaming chip: a disc with a rim (a chip's rim striped)."""
    d = rng.uniform(18, 40)
    img = _canvas(k, d, d)
    c = _p(k, d / 2, d / 2)
    if rng.random() < 0.5:
        metal = rng.choice([(60, 150, 190), (170, 170, 170), (50, 110, 160)])
        base = tuple(int(v) for v in np.array(metal) * rng.uniform(0.85, 1.15))
        cv2.circle(img, c, _p(k, d / 2)[0], base + (255,), -1, cv2.LINE_AA)
        cv2.circle(img, c, _p(k, d * 0.42)[0], tuple(int(v * 0.85) for v in base) + (255,), max(1, _p(k, 0.6)[0]),
                   cv2.LINE_AA)
        cv2.circle(img, c, _p(k, d * 0.18)[0], tuple(int(v * 0.8) for v in base) + (255,), -1, cv2.LINE_AA)
    else:
        base = tuple(int(v) for v in rng.choice([(40, 40, 190), (190, 80, 30), (30, 140, 40), (30, 30, 30),
                                                  (235, 235, 235)]))
        cv2.circle(img, c, _p(k, d / 2)[0], base + (255,), -1, cv2.LINE_AA)
        for a in np.linspace(0, 2 * np.pi, 8, endpoint=False):
            p0 = (c[0] + int(math.cos(a) * _p(k, d * 0.38)[0]), c[1] + int(math.sin(a) * _p(k, d * 0.38)[0]))
            p1 = (c[0] + int(math.cos(a) * _p(k, d * 0.5)[0]), c[1] + int(math.sin(a) * _p(k, d * 0.5)[0]))
            cv2.line(img, p0, p1, (245, 245, 245, 255), max(1, _p(k, d * 0.08)[0]), cv2.LINE_AA)
        cv2.circle(img, c, _p(k, d * 0.3)[0], (235, 235, 235, 255), max(1, _p(k, 0.8)[0]), cv2.LINE_AA)
    _grain(rng, img, 3)
    return img


def cup(rng: np.random.Generator, k: float = PX_PER_MM) -> np.ndarray:
    """A cup seen from above: its rim, and tea or coffee inside."""
    d = rng.uniform(65, 95)
    img = _canvas(k, d, d)
    c = _p(k, d / 2, d / 2)
    body = tuple(int(v) for v in rng.choice([(235, 235, 235), (200, 220, 235), (60, 60, 160), (150, 110, 60),
                                             (40, 40, 40)]))
    cv2.circle(img, c, _p(k, d / 2)[0], body + (255,), -1, cv2.LINE_AA)
    drink = tuple(int(v) for v in rng.choice([(20, 45, 80), (40, 110, 160), (15, 25, 40), (200, 210, 215)]))
    cv2.circle(img, c, _p(k, d * 0.43)[0], drink + (255,), -1, cv2.LINE_AA)
    cv2.ellipse(img, (c[0] - _p(k, d * 0.15)[0], c[1] - _p(k, d * 0.15)[0]), (_p(k, d * 0.08)[0], _p(k, d * 0.04)[0]), -40, 0,
                360, (240, 240, 240, 255), -1, cv2.LINE_AA)
    _grain(rng, img, 2)
    return img


def pen(rng: np.random.Generator, k: float = PX_PER_MM) -> np.ndarray:
    """A pen or pencil: a long capsule with a clip."""
    length, width = rng.uniform(120, 150), rng.uniform(7, 10)
    img = _canvas(k, length, width)
    colour = tuple(int(v) for v in rng.choice([(30, 30, 30), (160, 60, 20), (30, 30, 170), (40, 190, 230),
                                               (220, 220, 220)]))
    _rounded_rect(img, k, colour, width / 2)
    cv2.rectangle(img, _p(k, length * 0.08, width * 0.35), _p(k, length * 0.4, width * 0.65), (190, 190, 195, 255), -1,
                  cv2.LINE_AA)
    cv2.rectangle(img, _p(k, length * 0.9, 0), _p(k, length, width), (150, 150, 150, 255), -1, cv2.LINE_AA)
    _grain(rng, img, 2)
    return img


def score_sheet(rng: np.random.Generator, k: float = PX_PER_MM) -> np.ndarray:
    """A score sheet: paper with a ruled grid, numbers and scribbled names (strokes that look like writing)."""
    w, h = rng.uniform(90, 150), rng.uniform(120, 210)
    img = _canvas(k, w, h)
    img[..., :3] = (np.array([238, 245, 250]) * rng.uniform(0.85, 1.0)).astype(np.uint8)
    img[..., 3] = 255
    ink = tuple(int(v) for v in rng.choice([(120, 40, 20), (30, 30, 30), (30, 30, 160)]))
    cols, rows = int(rng.integers(3, 6)), int(rng.integers(6, 14))
    for i in range(1, cols):
        cv2.line(img, _p(k, w * i / cols, 8), _p(k, w * i / cols, h - 5), (150, 150, 150, 255), 1, cv2.LINE_AA)
    for j in range(rows + 1):
        y = 8 + (h - 13) * j / rows
        cv2.line(img, _p(k, 3, y), _p(k, w - 3, y), (150, 150, 150, 255), 1, cv2.LINE_AA)
    cell = (h - 13) / rows
    for j in range(rows):
        for i in range(cols):
            if rng.random() < 0.6:
                x, y = w * i / cols + 2, 8 + cell * (j + 0.8)
                scale = cell * k / 40
                text = str(int(rng.integers(-200, 600))) if j else "".join(rng.choice(list("ABEHKMNW"), 2))
                cv2.putText(img, text, _p(k, x, y), cv2.FONT_HERSHEY_SCRIPT_SIMPLEX if rng.random() < 0.5
                            else cv2.FONT_HERSHEY_SIMPLEX, scale, ink + (255,), max(1, int(scale * 1.5)), cv2.LINE_AA)
    _grain(rng, img, 3)
    return img


KINDS: dict[str, Callable[..., np.ndarray]] = {  # each (rng, k): a BGRA picture at k pixels a millimetre
    "phone": phone, "scoring_sticks": scoring_sticks, "die": die, "coin": coin, "cup": cup, "pen": pen,
    "score_sheet": score_sheet}
WEIGHTS = {"phone": 0.22, "scoring_sticks": 0.2, "die": 0.14, "coin": 0.14, "cup": 0.1, "pen": 0.1,
           "score_sheet": 0.1}


def _place(rng: np.random.Generator, cam: Camera, tile_xy: np.ndarray, tile_mm: float, w_mm: float, h_mm: float,
           taken: list[tuple[np.ndarray, float]], k: float) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """A place on the table for a w x h mm object: off every tile and every object placed before, in view
    (its centre in the photo). Answers the picture's origin and its two axes (mm per picture pixel), or None."""
    centre = tile_xy.mean(axis=0)
    spread = float(np.max(np.linalg.norm(tile_xy - centre, axis=1))) + tile_mm
    radius = math.hypot(w_mm, h_mm) / 2
    for _ in range(30):
        direction = rng.uniform(0, 2 * np.pi)
        at = centre + (spread + radius * rng.uniform(0.2, 1.0) + rng.uniform(0, 1.5) * tile_mm) * \
            np.array([math.cos(direction), math.sin(direction)])
        if np.min(np.linalg.norm(tile_xy - at, axis=1)) < radius + tile_mm * 0.8:
            continue
        if any(np.linalg.norm(at - c) < radius + r for c, r in taken):
            continue
        if cam.depth(np.r_[at, 0.0][None])[0] <= 1:
            continue
        seen = cam.project(np.r_[at, 0.0][None])[0]
        if not (0.05 * cam.width <= seen[0] < 0.95 * cam.width and 0.05 * cam.height <= seen[1] < 0.95 * cam.height):
            continue
        taken.append((at, radius))
        a = rng.uniform(0, 2 * np.pi)
        ex = np.array([math.cos(a), math.sin(a)]) / k
        ey = np.array([math.sin(a), -math.cos(a)]) / k  # seen from above, not mirrored
        origin = at - ex * k * w_mm / 2 - ey * k * h_mm / 2
        return origin, ex, ey
    return None


def _paste(canvas: np.ndarray, cam: Camera, picture: np.ndarray, origin: np.ndarray, ex: np.ndarray,
           ey: np.ndarray, light_xy: np.ndarray, shadow: float, height_mm: float) -> np.ndarray | None:
    """Warp the BGRA picture onto the canvas through the table plane, after its shadow; answers its outline."""
    h, w = picture.shape[:2]
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], float)
    world = origin + corners[:, :1] * ex + corners[:, 1:] * ey
    if (cam.depth(np.c_[world, np.zeros(4)]) <= 1).any():
        return None
    outline = cam.project(np.c_[world, np.zeros(4)])
    shifted = cam.project(np.c_[world + light_xy * height_mm, np.zeros(4)])
    both = np.concatenate([outline, shifted])
    x0, y0 = np.floor(both.min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(both.max(axis=0)).astype(int) + 2
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, cam.width), min(y1, cam.height)
    if x1 - x0 < 2 or y1 - y0 < 2:
        return None
    H = cam.plane_homography(np.r_[origin, 0.0], np.r_[ex, 0.0], np.r_[ey, 0.0])
    region = canvas[y0:y1, x0:x1]
    alpha = picture[..., 3]
    if shadow > 0:  # the object's shadow: its outline moved away from the light, blurred
        Hs = cam.plane_homography(np.r_[origin + light_xy * height_mm, 0.0], np.r_[ex, 0.0], np.r_[ey, 0.0])
        cast = cv2.warpPerspective(alpha, cv_homography(Hs, (x0, y0)), (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR)
        size = max(1.0, 0.02 * max(x1 - x0, y1 - y0))
        effects.darken(region, cv2.GaussianBlur(cast, (0, 0), size), shadow)
    warped = cv2.warpPerspective(picture, cv_homography(H, (x0, y0)), (x1 - x0, y1 - y0), flags=cv2.INTER_AREA
                                 if np.linalg.norm(outline[1] - outline[0]) < w else cv2.INTER_LINEAR)
    a = warped[..., 3:4].astype(np.float32) / 255
    region[:] = (region * (1 - a) + warped[..., :3] * a).astype(np.uint8)
    return outline


def draw_clutter(rng: np.random.Generator, canvas: np.ndarray, cam: Camera, tile_xy: Sequence[Sequence[float]],
                 tile_mm: float, light_direction: np.ndarray, count: int | None = None) -> list[dict[str, Any]]:
    """Draw ``count`` objects (default one to four, at random) on the table around the tiles at ``tile_xy``
    (their centres on the table, mm; ``tile_mm`` a tile's width), lit from ``light_direction``. Answers, for the
    sidecar, each object's kind and its outline in the photo (pixels). Objects with no room are left out."""
    tiles = np.asarray(tile_xy, float).reshape(-1, 2)
    if len(tiles) == 0:
        return []
    n = int(rng.integers(1, 5)) if count is None else count
    names = list(KINDS)
    p = np.array([WEIGHTS[k] for k in names])
    lz = max(float(light_direction[2]), 0.2)
    light_xy = -np.asarray(light_direction[:2], float) / lz  # where a point 1 mm up casts its shadow, per mm
    taken: list[tuple[np.ndarray, float]] = []
    # the pictures' resolution: twice the photo's near the tiles (one mm there spans ``seen`` pixels), at most
    # PX_PER_MM; painting a phone at 6 px/mm for a 640-px photo cost more than the rest of the photo
    middle = np.r_[tiles.mean(axis=0), 0.0]
    seen = float(np.linalg.norm(cam.project(middle[None] + [[1.0, 0, 0]])[0] - cam.project(middle[None])[0]))
    k = float(np.clip(2 * seen, 1.5, PX_PER_MM))
    drawn = []
    for _ in range(n):
        kind = str(rng.choice(names, p=p / p.sum()))
        picture = KINDS[kind](rng, k)
        h_px, w_px = picture.shape[:2]
        placed = _place(rng, cam, tiles, tile_mm, w_px / k, h_px / k, taken, k)
        if placed is None:
            continue
        height = {"cup": 40.0, "die": 8.0, "phone": 4.0}.get(kind, 1.5)
        outline = _paste(canvas, cam, picture, *placed, light_xy, float(rng.uniform(0.25, 0.45)), height)
        if outline is not None:
            drawn.append({"kind": kind, "outline": [[round(float(x), 1), round(float(y), 1)] for x, y in outline]})
    return drawn
