"""Procedural table surfaces: felt, wood, cloth, plastic mats, patterned tablecloths, laminate.

A texture is made in table coordinates (so that stripes and checks converge under the camera's
perspective) at about the photo's resolution, then warped onto the photo with the table plane's
homography. Each generator is a few numpy/cv2 operations on low-resolution noise that is scaled up:
no per-pixel Python.
"""

from __future__ import annotations

import cv2
import numpy as np

from datasets.render.camera import Camera, cv_homography

KINDS = ("felt", "wood", "cloth", "plastic", "tablecloth", "laminate")
WEIGHTS = (0.3, 0.2, 0.12, 0.13, 0.13, 0.12)

_FELT = ([60, 140, 40], [70, 160, 70], [40, 110, 30], [120, 80, 30], [40, 40, 140], [110, 110, 40], [40, 90, 70],
         [70, 70, 70])  # BGR: greens, blue, red, teal, dark green, grey
_WOOD = (([40, 90, 150], [25, 60, 110]), ([80, 150, 200], [50, 110, 165]), ([30, 55, 90], [15, 35, 60]),
         ([120, 170, 210], [90, 135, 180]))


def noise(rng: np.random.Generator, shape: tuple[int, int], cells: int, octaves: int = 1) -> np.ndarray:
    """Smooth value noise in [-1, 1] (float32) with about ``cells`` blobs across the larger side."""
    h, w = shape
    out = np.zeros(shape, np.float32)
    amp, total = 1.0, 0.0
    for o in range(octaves):
        n = max(2, int(cells * 2 ** o))
        gh, gw = max(2, round(n * h / max(h, w))), max(2, round(n * w / max(h, w)))
        grid = rng.uniform(-1, 1, (gh + 1, gw + 1)).astype(np.float32)
        out += amp * cv2.resize(grid, (w, h), interpolation=cv2.INTER_CUBIC)
        total += amp
        amp *= 0.5
    return out / total


_BANK: np.ndarray | None = None


def _grain(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    """Unit Gaussian noise of ``shape`` (float32): a random window of a fixed 512x512 bank (made once per
    process from a fixed seed), tiled and flipped at random; much faster than fresh noise."""
    global _BANK
    if _BANK is None:
        _BANK = np.random.default_rng(12345).standard_normal((512, 512), dtype=np.float32)
    h, w = shape
    bank = _BANK[:: 1 if rng.random() < 0.5 else -1, :: 1 if rng.random() < 0.5 else -1]
    dy, dx = rng.integers(512, size=2)
    reps = (-(-(h + dy) // 512), -(-(w + dx) // 512))
    return np.tile(bank, reps)[dy:dy + h, dx:dx + w]


def _apply(base_bgr, shade: np.ndarray) -> np.ndarray:
    """A colour image: the base colour times (1 + shade)."""
    img = np.asarray(base_bgr, np.float32)[None, None, :] * (1 + shade[..., None])
    return np.clip(img, 0, 255).astype(np.uint8)


def felt(rng, shape, mm_px):
    base = np.array(_FELT[rng.integers(len(_FELT))], float) * rng.uniform(0.8, 1.2)
    h, w = shape
    shade = 0.08 * noise(rng, shape, 4, 3)
    # a fine woven mesh: the automatic tables' cloth
    period = rng.uniform(1.2, 3.0) / mm_px
    if period > 1.6:  # (the texture's axes are turned at random on the table: patterns stay axis-aligned)
        fx = np.sin(np.arange(w, dtype=np.float32) * (2 * np.pi / period))
        fy = np.sin(np.arange(h, dtype=np.float32) * (2 * np.pi / period))
        shade += rng.uniform(0.03, 0.08) * np.outer(fy, fx)
    shade += 0.04 * _grain(rng, shape)
    return _apply(base, shade)


def wood(rng, shape, mm_px):
    light, dark = (np.array(c, float) for c in _WOOD[rng.integers(len(_WOOD))])
    h, w = shape
    yy = np.arange(h, dtype=np.float32)[:, None]
    xx = np.arange(w, dtype=np.float32)[None, :]
    plank = rng.uniform(80, 200) / mm_px
    warp = noise(rng, shape, 3, 3) * rng.uniform(10, 40) / mm_px
    grain_period = rng.uniform(2, 8) / mm_px
    rings = np.sin((yy + warp + xx * rng.uniform(-0.015, 0.015)) * (2 * np.pi / grain_period))
    streak = noise(rng, (max(2, h // 4), 8), 20)[:, :, None]
    streak = cv2.resize(streak, (w, h), interpolation=cv2.INTER_LINEAR)
    t = np.clip(0.5 + rng.uniform(0.12, 0.3) * rings + 0.25 * streak + 0.15 * noise(rng, shape, 6), 0, 1)
    # planks: a tint per plank and dark seams (per row: cheap)
    idx = np.floor(yy / plank)
    tint = 1 + 0.08 * np.sin(idx * 12.9898 + rng.uniform(0, 6))
    seam = np.abs(yy - (idx + 0.5) * plank) > plank / 2 - max(1.0, 0.6 / mm_px)
    tint = np.where(seam, tint * 0.6, tint).astype(np.float32)
    shade = tint * (1 + 0.03 * _grain(rng, shape))
    img = (light[None, None] * (1 - t[..., None]) + dark[None, None] * t[..., None]) * shade[..., None]
    return np.clip(img, 0, 255).astype(np.uint8)


def cloth(rng, shape, mm_px):
    """Plain woven cloth, gingham checks or stripes."""
    h, w = shape
    u = np.arange(w, dtype=np.float32)
    v = np.arange(h, dtype=np.float32)
    c1 = rng.uniform(40, 230, 3)
    c2 = c1 * rng.uniform(0.3, 0.8) if rng.random() < 0.5 else rng.uniform(30, 230, 3)
    pattern = rng.integers(3)
    size = rng.uniform(8, 40) / mm_px
    su = (np.sin(u * np.pi / size) > 0).astype(np.float32)
    sv = (np.sin(v * np.pi / size) > 0).astype(np.float32)
    if pattern == 0:  # plain
        t = np.zeros(shape, np.float32)
    elif pattern == 1:  # gingham
        t = 0.5 * (su[None, :] + sv[:, None])
    else:  # stripes
        t = np.broadcast_to((np.sin(u * np.pi / size) > rng.uniform(-0.5, 0.5)).astype(np.float32)[None, :],
                            shape).copy()
    t = cv2.GaussianBlur(t, (0, 0), max(0.5, 0.3 / mm_px))
    weave = max(rng.uniform(0.8, 2.0) / mm_px, 1.5)
    shade = 0.06 * np.outer(np.sin(v * 2 * np.pi / weave), np.sin(u * 2 * np.pi / weave))
    shade += 0.05 * noise(rng, shape, 5, 2) + 0.03 * _grain(rng, shape)
    img = (c1[None, None] * (1 - t[..., None]) + c2[None, None] * t[..., None]) * (1 + shade[..., None])
    return np.clip(img, 0, 255).astype(np.uint8)


def plastic(rng, shape, mm_px):
    """A smooth mat: one colour, a slow gradient, sometimes a printed grid or border."""
    base = rng.uniform(20, 235, 3)
    shade = 0.05 * noise(rng, shape, 2) + 0.01 * _grain(rng, shape)
    img = _apply(base, shade)
    if rng.random() < 0.4:
        step = int(max(4, rng.uniform(30, 80) / mm_px))
        ink = np.clip(base * rng.uniform(0.5, 0.8), 0, 255).tolist()
        th = max(1, int(1 / mm_px))
        for x in range(int(rng.integers(step)), shape[1], step):
            cv2.line(img, (x, 0), (x, shape[0]), ink, th)
        for y in range(int(rng.integers(step)), shape[0], step):
            cv2.line(img, (0, y), (shape[1], y), ink, th)
    return img


def tablecloth(rng, shape, mm_px):
    """Patterned cloth: polka dots or blotchy flowers on a ground colour."""
    h, w = shape
    ground = rng.uniform(120, 240, 3)
    shade = 1 + 0.04 * noise(rng, shape, 6, 2)
    r_mm = rng.uniform(3, 12)
    colours = rng.uniform(20, 220, (3, 3))
    if rng.random() < 0.5:  # dots on a staggered lattice: one cell drawn, then tiled
        step = max(4, int(r_mm * rng.uniform(2.5, 4) / mm_px))
        cell = np.empty((2 * step, step, 3), np.uint8)
        cell[:] = ground.astype(np.uint8)
        rad = max(1, int(r_mm / mm_px))
        for cx, cy in ((0, 0), (step, 0), (0, 2 * step), (step, 2 * step), (step // 2, step)):
            cv2.circle(cell, (cx, cy), rad, colours[0].tolist(), -1, cv2.LINE_AA)
        img = np.tile(cell, (-(-h // (2 * step)), -(-w // step), 1))[:h, :w]
    else:  # flowers: clusters of petals
        img = np.empty((h, w, 3), np.uint8)
        img[:] = ground.astype(np.uint8)
        n = int(min(250, h * w * (mm_px ** 2) / rng.uniform(300, 1500)))
        for _ in range(n):
            c = rng.uniform(0, 1, 2) * (w, h)
            col = colours[rng.integers(3)].tolist()
            rr = max(1, int(r_mm * rng.uniform(0.5, 1.3) / mm_px))
            for k in range(5):
                a = k * 2 * np.pi / 5
                p = c + rr * np.array([np.cos(a), np.sin(a)])
                cv2.ellipse(img, (int(p[0]), int(p[1])), (rr, max(1, rr // 2)), np.degrees(a), 0, 360, col, -1,
                            cv2.LINE_AA)
            cv2.circle(img, (int(c[0]), int(c[1])), max(1, rr // 2), colours[2].tolist(), -1, cv2.LINE_AA)
    return np.clip(img * shade[..., None], 0, 255).astype(np.uint8)


def laminate(rng, shape, mm_px):
    """Grey or beige laminate with faint streaks (the grey tables of the real photos)."""
    base = np.array([rng.uniform(140, 220)] * 3) + rng.uniform(-10, 10, 3)
    h, w = shape
    streak = noise(rng, (max(2, h // 2), 6), 60)
    streak = cv2.resize(streak, (w, h), interpolation=cv2.INTER_LINEAR)
    shade = 0.05 * streak + 0.04 * noise(rng, shape, 3, 2) + 0.025 * _grain(rng, shape)
    return _apply(base, shade)


GENERATORS = {"felt": felt, "wood": wood, "cloth": cloth, "plastic": plastic, "tablecloth": tablecloth,
              "laminate": laminate}


def table_texture(rng: np.random.Generator, kind: str, shape: tuple[int, int], mm_px: float) -> np.ndarray:
    img = GENERATORS[kind](rng, shape, mm_px)
    if rng.random() < 0.3:  # the table's edge: a band of wood (or another surface) along one side
        h, w = shape
        other = GENERATORS[str(rng.choice(["wood", "plastic", "laminate"]))](rng, shape, mm_px)
        band = int(rng.uniform(0.15, 0.4) * h)
        side = rng.integers(4)
        img = np.ascontiguousarray(np.rot90(img, side))
        other = np.ascontiguousarray(np.rot90(other, side))
        img[:band] = other[:band]
        img[band:band + max(1, int(2 / mm_px))] = (img[band:band + max(1, int(2 / mm_px))] * 0.5).astype(np.uint8)
        img = np.ascontiguousarray(np.rot90(img, -side))
    return img


def room(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    """What lies beyond the table: a floor or a wall, dim and out of focus."""
    base = rng.uniform(30, 200, 3) * rng.uniform(0.4, 0.9)
    shade = 0.25 * noise(rng, (max(2, h // 16), max(2, w // 16)), 3, 2)
    small = _apply(base, shade)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


def render_table(rng: np.random.Generator, cam: Camera, kind: str, around: np.ndarray, max_px: int = 900,
                 far_edge: float | None = None) -> np.ndarray:
    """The table surface as the camera sees it (BGR uint8, the photo's size).

    ``around``: the scene's centre on the table. The texture, turned at a random angle on the table,
    covers what the photo shows near the scene (at about half the photo's resolution there) and repeats
    mirrored beyond. ``far_edge``: the table ends this many mm beyond ``around`` in the camera's
    direction of view; past it (and above the horizon) the photo shows the room."""
    width, height = cam.width, cam.height
    corners = np.array([[0, 0], [width, 0], [width, height], [0, height]], float)
    look = cam.R[2, :2] / max(np.linalg.norm(cam.R[2, :2]), 1e-9) if np.linalg.norm(cam.R[2, :2]) > 1e-6 \
        else np.array([0.0, 1.0])
    mm_px = float(np.linalg.norm(cam.C - np.r_[around, 0]) / cam.focal) * 2.0  # texture pixel size, mm
    a = rng.uniform(0, 2 * np.pi)
    eu, ev = np.array([np.cos(a), np.sin(a)]), np.array([-np.sin(a), np.cos(a)])
    # the part of the table in view, in the texture's axes (rays past the horizon: clamp far away)
    span = 1.6 * max(width, height) * mm_px
    rays = cam.rays(corners)
    down = rays[:, 2] < -1e-6
    t = np.where(down, -cam.C[2] / np.where(down, rays[:, 2], -1.0), 0.0)
    hit = cam.C[:2] + rays[:, :2] * t[:, None] - around
    flat = rays[:, :2] / np.maximum(np.linalg.norm(rays[:, :2], axis=1, keepdims=True), 1e-9)
    hit[~down] = flat[~down] * span  # past the horizon: far away in the ray's direction
    uv = np.c_[hit @ eu, hit @ ev]
    lo = np.maximum(uv.min(axis=0), -span) - 2 * mm_px
    hi = np.minimum(uv.max(axis=0), span) + 2 * mm_px
    lo, hi = np.minimum(lo, -span / 3), np.maximum(hi, span / 3)
    size = hi - lo
    if max(size) / mm_px > max_px:
        mm_px = max(size) / max_px
    tw, th = max(16, int(size[0] / mm_px)), max(16, int(size[1] / mm_px))
    tex = table_texture(rng, kind, (th, tw), mm_px)
    # texture pixel (a, b) lies at around + (lo.u + a * mm_px) eu + (hi.v - b * mm_px) ev
    origin = around + lo[0] * eu + hi[1] * ev
    H = cam.plane_homography(np.r_[origin, 0.0], np.r_[eu * mm_px, 0], np.r_[-ev * mm_px, 0])
    # the texture has about half the photo's resolution: for big photos, warp at a lower resolution
    # and scale up (much cheaper than warping every pixel of a 12-megapixel photo)
    s = min(1.0, 1600 / max(width, height))
    if s < 1.0:
        sw, sh = max(1, round(width * s)), max(1, round(height * s))
        S = np.diag([sw / width, sh / height, 1.0])
        small = cv2.warpPerspective(tex, cv_homography(S @ H), (sw, sh), flags=cv2.INTER_LINEAR,
                                    borderMode=cv2.BORDER_REFLECT_101)
        out = cv2.resize(small, (width, height), interpolation=cv2.INTER_LINEAR)
    else:
        out = cv2.warpPerspective(tex, cv_homography(H), (width, height), flags=cv2.INTER_LINEAR,
                                  borderMode=cv2.BORDER_REFLECT_101)
    _beyond_table(rng, cam, out, around, look, far_edge)
    return out


def _beyond_table(rng, cam: Camera, out: np.ndarray, around: np.ndarray, look: np.ndarray,
                  far_edge: float | None) -> None:
    """Paint the room over the image half-plane beyond the table's far edge (a line on the table)."""
    width, height = cam.width, cam.height
    if far_edge is None:
        return
    side = np.array([-look[1], look[0]])
    edge_mid = around + look * far_edge
    pts = np.array([np.r_[edge_mid - side * 100, 0], np.r_[edge_mid + side * 100, 0]])
    if (cam.depth(pts) <= 1).any():  # the edge is behind the camera: all table
        return
    p = cam.project(pts)
    d = p[1] - p[0]
    n = np.array([-d[1], d[0]])
    near = cam.project(np.r_[around, 0][None])[0]
    if (near - p[0]) @ n > 0:
        n = -n
    corners = np.array([[0, 0], [width, 0], [width, height], [0, height]], float)
    s = (corners - p[0]) @ n
    if (s <= 0).all():
        return
    poly = []  # clip the frame to the far half-plane (s > 0)
    for i in range(4):
        a, b = corners[i], corners[(i + 1) % 4]
        sa, sb = s[i], s[(i + 1) % 4]
        if sa > 0:
            poly.append(a)
        if (sa > 0) != (sb > 0):
            poly.append(a + (b - a) * sa / (sa - sb))
    poly = np.array(poly)
    x0, y0 = np.floor(poly.min(axis=0)).astype(int)
    x1, y1 = np.ceil(poly.max(axis=0)).astype(int)
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, width), min(y1, height)
    if x1 <= x0 or y1 <= y0:
        return
    region = out[y0:y1, x0:x1]
    beyond = room(rng, x1 - x0, y1 - y0)
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(mask, np.round((poly - (x0, y0)) * 16).astype(np.int32), 255, cv2.LINE_AA, 4)
    m = cv2.merge([mask] * 3)
    cv2.multiply(region, 255 - m, dst=region, scale=1 / 255)
    cv2.add(region, cv2.multiply(beyond, m, scale=1 / 255), dst=region)
    # the table's front edge: a thin dark lip along the line
    lip = max(2, int(0.004 * max(width, height)))
    cv2.line(out, tuple(np.round(p[0]).astype(int)), tuple(np.round(p[1]).astype(int)), (25, 30, 35), lip, cv2.LINE_AA)
