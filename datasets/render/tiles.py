"""Physical tiles: a face from the art bundle on a rounded body with thickness and a coloured back layer.

A tile in its own coordinates: x across the face (width W), y up the face (height H, the way the
characters read), z through the tile from the back (z = 0) to the face (z = D). The body is a rounded
box (corner radius r); the slab 0 <= z < back_frac * D is the coloured back layer, the rest ivory.
A pose puts it in the world: lying face up, lying face down, or standing on its bottom edge facing the
player (-y), turned by an angle about z, at a height (a tile may lie on another).

Drawing a tile paints, into a small region of the photo, the body's visible side facets (each shaded by
its normal and the light), the visible cap (the face, warped with the exact homography of its plane, or
the back), and writes the tile's id into an id buffer where its cap is visible, so that what later
tiles and fingers cover is known. Everything is vectorised per tile: a handful of cv2 calls.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from datasets.render.camera import SHIFT, Camera, cv_homography, to_cv

LYING, STANDING = "lying", "standing"
_IVORIES = ((228, 238, 244), (212, 230, 240), (236, 240, 242), (200, 222, 236))  # BGR


@dataclass
class TileBody:
    """The physical tile of a scene: sizes in mm and colours (BGR 0..255)."""

    W: float
    H: float
    D: float
    radius: float
    back_frac: float
    top_bgr: np.ndarray  # the face's ivory (its border colour)
    side_bgr: np.ndarray  # ivory sides
    back_bgr: np.ndarray  # the coloured back layer
    bevel: float = 0.0  # the rounded edge round the face (and the back): the face is inset by this, mm


@dataclass
class Placed:
    """One tile in the scene. ``x, y``: the centre of its footprint on the table (mm); ``angle``:
    degrees about z (0: the face reads upright for the player); ``z``: the height it rests at."""

    code: str
    x: float
    y: float
    angle: float = 0.0
    pose: str = LYING
    face_down: bool = False
    z: float = 0.0
    sideways: bool = False
    group: dict[str, Any] = field(default_factory=dict)
    stacked: bool = False  # lies on another tile (a kong's fourth tile)

    def footprint(self, body: TileBody) -> tuple[float, float]:
        """(extent along x, extent along y) before the angle is applied."""
        depth = body.D if self.pose == STANDING else body.H
        return body.W, depth


def rotation(tile: Placed) -> np.ndarray:
    a = np.radians(tile.angle)
    c, s = np.cos(a), np.sin(a)
    Rz = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])
    if tile.pose == STANDING:
        return Rz @ np.array([[1.0, 0, 0], [0, 0, -1], [0, 1, 0]])
    if tile.face_down:
        return Rz @ np.diag([1.0, -1, -1])
    return Rz


def translation(tile: Placed, body: TileBody) -> np.ndarray:
    if tile.pose == STANDING:
        a = np.radians(tile.angle)
        # local z runs from the back (z=0) to the face (z=D) towards -y: centre the footprint on (x, y)
        off = np.array([-np.sin(a), np.cos(a)]) * body.D / 2
        return np.array([tile.x + off[0], tile.y + off[1], tile.z + body.H / 2])
    return np.array([tile.x, tile.y, tile.z + (body.D if tile.face_down else 0.0)])


def outline(W: float, H: float, r: float, k: int = 3) -> np.ndarray:
    """A rounded rectangle centred on 0, counter-clockwise, 4 * (k + 1) points."""
    pts = []
    for (cx, cy), start in (((W / 2 - r, H / 2 - r), 0), ((-W / 2 + r, H / 2 - r), 90),
                            ((-W / 2 + r, -H / 2 + r), 180), ((W / 2 - r, -H / 2 + r), 270)):
        ang = np.radians(start + 90 * np.arange(k + 1) / k)
        pts.append(np.c_[cx + r * np.cos(ang), cy + r * np.sin(ang)])
    return np.concatenate(pts)


@dataclass
class Light:
    direction: np.ndarray  # unit vector from the table towards the light
    ambient: float = 0.45
    diffuse: float = 0.55

    def shade(self, normals: np.ndarray) -> np.ndarray:
        """Brightness of surfaces with these world normals, 1.0 for a surface facing straight up."""
        top = self.ambient + self.diffuse * max(0.0, float(self.direction[2]))
        return (self.ambient + self.diffuse * np.clip(normals @ self.direction, 0, None)) / top


@dataclass
class Drawn:
    """What the camera saw of one tile: its cap (face or back) outline in the image, the outline's
    area, and the tile's id in the id buffer."""

    tid: int
    polygon: np.ndarray  # (n, 2) continuous pixel coordinates of the visible cap's outline
    area: float
    shows_face: bool  # False: the camera sees its back (a face-down tile)
    depth: float


class TextureCache:
    """Per process: each face's art as BGRA mip levels, built on first use. The art alone, not the
    tile's ivory (painted under it when drawn), so one entry serves every tile colour."""

    def __init__(self, max_items: int = 2000):
        self._items: dict[tuple, tuple[Any, list[np.ndarray]]] = {}
        self.max_items = max_items

    def levels(self, style: Any, code: str) -> list[np.ndarray]:
        art = style.back if code == "back" else style.faces[code]
        key = (id(art), style.name, code)
        got = self._items.get(key)
        if got is None:
            if len(self._items) >= self.max_items:
                self._items.clear()
            # the art is kept referenced so that its id is not reused while cached
            got = self._items[key] = (art, _build_levels(art))
        return got[1]


def art_border_bgr(art_rgba: np.ndarray) -> np.ndarray | None:
    """The colour of an art image's border ring (BGR), or None when the border is transparent."""
    ring = np.concatenate([art_rgba[:2].reshape(-1, 4), art_rgba[-2:].reshape(-1, 4),
                           art_rgba[:, :2].reshape(-1, 4), art_rgba[:, -2:].reshape(-1, 4)])
    opaque = ring[ring[:, 3] > 200]
    if len(opaque) < 0.7 * len(ring):
        return None
    return np.median(opaque[:, :3], axis=0)[::-1].astype(float)


def _build_levels(art: np.ndarray) -> list[np.ndarray]:
    tex = np.ascontiguousarray(art[..., [2, 1, 0, 3]])  # RGBA -> BGRA
    levels = [tex]
    while min(levels[-1].shape[:2]) > 12:
        levels.append(cv2.pyrDown(levels[-1]))
    return levels


def body_for(style: Any, rng: np.random.Generator, back_bgr: np.ndarray, width_mm: float) -> TileBody:
    """A tile body whose face has the art's aspect, with random thickness, roundness and back layer."""
    sample = style.faces["1m"] if "1m" in style.faces else next(iter(style.faces.values()))
    ha, wa = sample.shape[:2]
    W = width_mm
    H = W * ha / wa
    D = W * rng.uniform(0.55, 0.8)
    border = art_border_bgr(sample)
    if border is None:  # the art is print on a transparent face: one of a few ivories
        border = np.array(_IVORIES[rng.integers(len(_IVORIES))], float) * rng.uniform(0.95, 1.03)
    side = border * np.array([0.93, 0.96, 0.98])
    return TileBody(W=W, H=H, D=D, radius=W * rng.uniform(0.08, 0.16), back_frac=rng.uniform(0.3, 0.55),
                    top_bgr=np.clip(border, 0, 255), side_bgr=np.clip(side, 0, 255), back_bgr=back_bgr,
                    bevel=W * rng.uniform(0.025, 0.06))


class TileRenderer:
    """Draws placed tiles of one body and style into a photo, painter's order, with an id buffer."""

    def __init__(self, cam: Camera, body: TileBody, style: Any, light: Light, cache: TextureCache):
        self.cam, self.body, self.style, self.light, self.cache = cam, body, style, light, cache
        b = body
        bev = min(b.bevel, 0.3 * b.radius + 0.05 * b.W, 0.2 * b.D)
        self.face_w, self.face_h = b.W - 2 * bev, b.H - 2 * bev
        self.ring = outline(b.W, b.H, b.radius)
        inner = outline(self.face_w, self.face_h, max(b.radius - bev, 0.02 * b.W))
        n = len(self.ring)
        d = np.roll(self.ring, -1, axis=0) - self.ring
        nrm = np.c_[d[:, 1], -d[:, 0]]
        nrm /= np.linalg.norm(nrm, axis=1, keepdims=True)
        up = np.zeros((n, 3))
        up[:, 2] = 1
        side = np.c_[nrm, np.zeros(n)]
        # rings from the back (z = 0) to the face (z = D): the back's bevel, the back layer, the ivory,
        # the face's bevel; the caps (the back and the face) are the inset rings
        self.rings = np.stack([inner, self.ring, self.ring, self.ring, inner]) if bev > 0 else \
            np.stack([self.ring, self.ring, self.ring])
        self.levels_z = np.array([0.0, bev, b.back_frac * b.D, b.D - bev, b.D]) if bev > 0 else \
            np.array([0.0, b.back_frac * b.D, b.D])
        if bev > 0:
            top = side * bev + up * bev
            bottom = side * bev - up * bev
            self.band_normals = [bottom / np.linalg.norm(bottom, axis=1, keepdims=True), side, side,
                                 top / np.linalg.norm(top, axis=1, keepdims=True)]
            self.band_colours = [b.back_bgr, b.back_bgr, b.side_bgr, b.top_bgr]
        else:
            self.band_normals = [side, side]
            self.band_colours = [b.back_bgr, b.side_bgr]

    def world_points(self, tile: Placed) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(levels, n, 3) world points of the body's rings, the rotation and the translation."""
        R, t = rotation(tile), translation(tile, self.body)
        local = np.empty((*self.rings.shape[:2], 3))
        local[..., :2] = self.rings
        local[..., 2] = self.levels_z[:, None]
        return local @ R.T + t, R, t

    def draw(self, canvas: np.ndarray, idbuf: np.ndarray, tile: Placed, tid: int) -> Drawn:
        cam, body = self.cam, self.body
        world, R, t = self.world_points(tile)
        img_pts = cam.project(world)  # (levels, n, 2)
        n_face = R[:, 2]
        face_center = R @ np.array([0, 0, body.D]) + t
        shows_face = float(n_face @ (cam.C - face_center)) > 0
        cap = img_pts[-1] if shows_face else img_pts[0]
        area = _area(cap)
        depth = float(cam.depth(t[None])[0])
        drawn = Drawn(tid, cap, area, shows_face, depth)

        hgt, wid = canvas.shape[:2]
        flat = img_pts.reshape(-1, 2)
        x0, y0 = np.floor(flat.min(axis=0)).astype(int) - 2
        x1, y1 = np.ceil(flat.max(axis=0)).astype(int) + 2
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, wid), min(y1, hgt)
        if x1 <= x0 or y1 <= y0:
            return drawn
        off = (x0, y0)
        region = canvas[y0:y1, x0:x1]
        layer = region.copy()

        # the bands of facets round the body, only those facing the camera (on a convex body they never
        # overlap), each shaded by its own normal
        n = len(self.ring)
        nxt = np.roll(np.arange(n), -1)
        fixed = to_cv(img_pts, off)  # every ring point in cv2's fixed point, once
        for band, (normals_local, colour) in enumerate(zip(self.band_normals, self.band_colours)):
            normals = normals_local @ R.T
            mids = (world[band] + world[band][nxt] + world[band + 1] + world[band + 1][nxt]) / 4
            facing = np.einsum("ij,ij->i", normals, cam.C - mids) > 0
            if not facing.any():
                continue
            shade = np.minimum(self.light.shade(normals), 1.15)
            lo, hi = fixed[band], fixed[band + 1]
            quads = np.stack([lo, lo[nxt], hi[nxt], hi], axis=1)  # (n, 4, 2)
            colours = colour[None, :] * shade[:, None]
            for i in np.nonzero(facing)[0]:
                cv2.fillConvexPoly(layer, quads[i], colours[i].tolist(), cv2.LINE_8, SHIFT)

        # the cap: the face with its art, or the back
        cap_normal = n_face if shows_face else -n_face
        cap_shade = float(self.light.shade(cap_normal[None])[0])
        code = tile.code if shows_face else "back"
        base = body.top_bgr if shows_face else body.back_bgr
        cv2.fillConvexPoly(layer, to_cv(cap, off), (base * cap_shade).tolist(), cv2.LINE_8, SHIFT)
        if code != "back" or self.style.back is not None:
            self._warp_cap(layer, code, R, t, cap, cap_shade, off)

        # the silhouette, antialiased, onto the photo
        hull = cv2.convexHull(flat.astype(np.float32))[:, 0, :]
        mask = np.zeros(layer.shape[:2], np.uint8)
        cv2.fillConvexPoly(mask, to_cv(hull, off), 255, cv2.LINE_AA, SHIFT)
        _blend(region, layer, mask)
        ids = idbuf[y0:y1, x0:x1]
        cv2.fillConvexPoly(ids, to_cv(hull, off), -1, cv2.LINE_8, SHIFT)
        cv2.fillConvexPoly(ids, to_cv(cap, off), tid, cv2.LINE_8, SHIFT)
        return drawn

    def _warp_cap(self, layer, code, R, t, cap, shade, off) -> None:
        """The art over the cap, warped by the homography of the cap's plane, lit by ``shade``."""
        body, cam = self.body, self.cam
        levels = self.cache.levels(self.style, code)
        # the mip level just larger than the face appears
        size_px = max(np.ptp(cap[:, 0]), np.ptp(cap[:, 1]))
        level = 0
        while level + 1 < len(levels) and max(levels[level + 1].shape[:2]) >= size_px:
            level += 1
        tex = levels[level]
        ht, wt = tex.shape[:2]
        fw, fh = self.face_w, self.face_h
        if code == "back":  # the back, seen from outside: local z = 0, mirrored in x
            origin = R @ np.array([fw / 2, fh / 2, 0.0]) + t
            ex = R @ np.array([-fw / wt, 0, 0])
        else:
            origin = R @ np.array([-fw / 2, fh / 2, body.D]) + t
            ex = R @ np.array([fw / wt, 0, 0])
        ey = R @ np.array([0, -fh / ht, 0])
        H = cv_homography(cam.plane_homography(origin, ex, ey), off)
        h, w = layer.shape[:2]
        warped = cv2.warpPerspective(tex, H, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                                     borderValue=(0, 0, 0, 0))
        a = warped[..., 3:4].astype(np.float32) * (1 / 255)
        base = layer.astype(np.float32)
        layer[:] = np.clip(base + (warped[..., :3].astype(np.float32) * shade - base) * a, 0, 255).astype(np.uint8)


def _blend(region: np.ndarray, layer: np.ndarray, mask: np.ndarray) -> None:
    m = mask[..., None].astype(np.float32) * (1 / 255)
    base = region.astype(np.float32)
    region[:] = (base + (layer.astype(np.float32) - base) * m + 0.5).astype(np.uint8)


def _area(poly: np.ndarray) -> float:
    x, y = poly[:, 0], poly[:, 1]
    return float(abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) / 2)


def shadow_hull(renderer: TileRenderer, tile: Placed, light_dir: np.ndarray, floor_z: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """The tile's shadow on the table (world, projected along the light) and its footprint, both as
    image polygons."""
    world, _, _ = renderer.world_points(tile)
    pts = world.reshape(-1, 3)
    lz = max(light_dir[2], 0.15)
    sh = pts - light_dir[None] * ((pts[:, 2] - floor_z) / lz)[:, None]
    cam = renderer.cam
    shadow = cam.project(sh)
    bottom = pts[pts[:, 2] <= pts[:, 2].min() + 0.5]
    foot = cam.project(np.c_[bottom[:, :2], np.full(len(bottom), floor_z)])
    return cv2.convexHull(shadow.astype(np.float32))[:, 0, :], cv2.convexHull(foot.astype(np.float32))[:, 0, :]
