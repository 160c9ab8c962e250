"""Scenes: where each tile of a hand lies on the table, as players lay them out (or roughly so).

Coordinates are millimetres on the table, the player on the -y side: x runs to the player's right,
y away from the player. Every tile carries its group for the sidecar:

- ``concealed``: the standing row (``index``: its place in the row), ``winning``: the winning tile,
- ``meld``: a declared meld (``meld``: its index in ``hand.melds``, ``index``: its place in the meld),
- ``flower``: a flower or season, ``other``: tiles that are not part of the hand (other players' melds,
  discards, scattered tiles).

Scene kinds (:data:`SCENE_KINDS`): ``guide`` follows the page's layout guide; ``crooked`` the same with
crooked rows; ``two_rows`` splits the standing tiles into two rows; ``grid`` lays every tile of the hand
out in a grid, maybe in a tray; ``table`` adds other players' melds and discards; ``scattered`` lays the
hand loosely among scattered extra tiles, some face down, some lying on others. Opt-in (only when asked
for by name, never drawn by default): ``heap`` piles the hand's tiles and extra ones, 15-40 in all, in a
dense round or oval heap, touching, at any angle, a quarter to two fifths lying partly on others, about
a tenth face down (photos of tiles heaped together).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import math

import numpy as np

from datasets.render.hands import Wall
from scorer.hand import Hand
from scorer.melds import Direction, Meld, MeldKind
from datasets.render.tiles import LYING, STANDING, Placed, TileBody

SCENE_KINDS = ("guide", "crooked", "two_rows", "grid", "table", "scattered", "heap")
# the kinds drawn when none is asked for, and their shares: opt-in kinds (heap) stay out, so that every
# seed renders the same photos as before they existed
DEFAULT_KINDS = ("guide", "crooked", "two_rows", "grid", "table", "scattered")
SCENE_WEIGHTS = (0.36, 0.16, 0.1, 0.12, 0.13, 0.13)

HEAP_TILES = (15, 40)  # tiles in a heap, the hand's included
HEAP_STACKED = (0.25, 0.4)  # the share of a heap's tiles laid on others
HEAP_ON_BELOW = (1 / 3, 1 / 2)  # how much of a stacked tile lies over the tile it was laid on
HEAP_FACE_DOWN = 0.1  # the share of a heap's tiles face down (taken from the extra tiles: the hand shows)


@dataclass
class Tray:
    """A plastic tray lying on the table: outer rectangle (centre, size, angle) and rim height."""

    cx: float
    cy: float
    w: float
    h: float
    angle: float
    rim: float
    wall: float
    floor: float
    bgr: np.ndarray


@dataclass
class Scene:
    kind: str
    tiles: list[Placed]
    tray: Tray | None = None
    notes: dict = field(default_factory=dict)


@dataclass
class Item:
    """A tile in a row before it is placed: its code and how it lies."""

    code: str
    group: dict
    sideways: bool = False
    face_down: bool = False
    on_top: bool = False  # a kong's fourth tile, on the sideways tile before it


def meld_items(rng: np.random.Generator, meld: Meld, meld_index: int) -> tuple[list[Item], str]:
    """The tiles of a declared meld in table order (claimed tile sideways by direction; concealed kongs
    with face-down tiles), and the presentation chosen."""
    codes = [t.code for t in meld.tiles]
    group = lambda i: {"kind": "meld", "meld": meld_index, "index": i}  # noqa: E731
    if meld.concealed:
        style = str(rng.choice(["ends", "middles", "all"], p=[0.45, 0.35, 0.2]))
        down = {"ends": (0, 3), "middles": (1, 2), "all": (0, 1, 2, 3)}[style]
        return [Item(c, group(i), face_down=i in down) for i, c in enumerate(codes)], f"concealed_kong_{style}"
    claimed = meld.claimed or Direction.LEFT
    if meld.kind is MeldKind.CHOW:
        first = meld.claimed_tile.code if meld.claimed_tile else codes[0]
        rest = list(codes)
        rest.remove(first)
        order = [first] + rest
        return [Item(c, group(i), sideways=i == 0) for i, c in enumerate(order)], "chow"
    n = 3
    on_top = meld.kind is MeldKind.KONG and rng.random() < 0.4
    if meld.kind is MeldKind.KONG and not on_top:
        n = 4
    pos = {Direction.LEFT: 0, Direction.ACROSS: int(rng.integers(1, n - 1)), Direction.RIGHT: n - 1}[claimed]
    items = [Item(codes[i], group(i), sideways=i == pos) for i in range(n)]
    if on_top:
        items.insert(pos + 1, Item(codes[3], group(3), sideways=True, on_top=True))
        for i, it in enumerate(items):
            it.group["index"] = i
        return items, "kong_on_top"
    return items, meld.kind.value


ON_TOP_SHIFT = 0.55  # a kong's fourth tile on the sideways one: its offset away from the player, in tile widths


def lay_row(items: list[Item], body: TileBody, x0: float, y0: float, pose: str = LYING, gap: float = 0.4,
            on_top_beside: bool = False) -> tuple[list[Placed], float]:
    """Tiles left to right from x0, their near edges on y = y0; answers the tiles and the row's end x."""
    out: list[Placed] = []
    x = x0
    for item in items:
        if item.on_top and out:
            below = out[-1]
            if on_top_beside:  # Japanese style: beside the sideways tile, further from the player
                out.append(Placed(item.code, below.x, y0 + body.W * 1.5 + gap, 90.0, LYING, item.face_down,
                                  sideways=True, group=item.group))
            else:
                # on it, pushed half a tile away from the player, so that the tile below shows
                # (stacked square on it, it would hide it: no photo could tell the kong from a pung)
                out.append(Placed(item.code, below.x, below.y + ON_TOP_SHIFT * body.W, 90.0, LYING, item.face_down,
                                  z=body.D, sideways=True, group=item.group, stacked=True))
            continue
        if item.sideways:
            along, depth, angle, p = body.H, body.W, 90.0, LYING
        elif pose == STANDING and not item.face_down:
            along, depth, angle, p = body.W, body.D, 0.0, STANDING
        else:
            along, depth, angle, p = body.W, body.H, 0.0, LYING
        out.append(Placed(item.code, x + along / 2, y0 + depth / 2, angle, p, item.face_down,
                          sideways=item.sideways, group=item.group))
        x += along + gap
    return out, x - gap


def compose(rng: np.random.Generator, hand: Hand, body: TileBody, kind: str | None = None) -> Scene:
    """A scene of ``kind`` (random among DEFAULT_KINDS by SCENE_WEIGHTS if None) for the hand."""
    if kind is None:
        kind = str(rng.choice(DEFAULT_KINDS, p=SCENE_WEIGHTS))
    if kind == "heap":
        return _heap_scene(rng, hand, body)
    if kind == "grid":
        return _grid_scene(rng, hand, body)
    scene = _guide_scene(rng, hand, body, kind)
    if kind == "table":
        _add_other_players(rng, scene, hand, body)
    if kind == "scattered":
        _scatter(rng, scene, hand, body)
    if kind == "crooked":
        _crooked(rng, scene.tiles, body)
    else:
        _jitter(rng, scene.tiles, 0.25, 0.8)
    return scene


def _standing_items(rng: np.random.Generator, hand: Hand) -> tuple[list[Item], Item]:
    standing = [t.code for t in hand.concealed]
    standing.remove(hand.winning_tile.code)
    order = rng.random()
    if order < 0.2:
        rng.shuffle(standing)
    elif order < 0.3:  # roughly sorted: a few neighbours swapped
        for _ in range(3):
            i = int(rng.integers(max(1, len(standing) - 1)))
            standing[i:i + 2] = standing[i:i + 2][::-1]
    items = [Item(c, {"kind": "concealed", "index": i}) for i, c in enumerate(standing)]
    return items, Item(hand.winning_tile.code, {"kind": "winning", "index": 0})


def _guide_scene(rng: np.random.Generator, hand: Hand, body: TileBody, kind: str) -> Scene:
    tiles: list[Placed] = []
    notes: dict = {}
    pose = STANDING if rng.random() < 0.35 else LYING
    notes["standing_row"] = pose == STANDING
    gap = float(rng.uniform(0.0, 1.2))
    items, win = _standing_items(rng, hand)
    if kind == "two_rows" and len(items) > 5:
        half = (len(items) + 1) // 2
        depth = body.D if pose == STANDING else body.H
        row2, _ = lay_row(items[half:], body, float(rng.uniform(-body.W, body.W)), 0.0, pose, gap)
        apart2 = float(rng.uniform(2, 0.6 * body.H))
        if pose == STANDING:  # the far row must show over the near one's tops
            apart2 += float(rng.uniform(1.0, 1.6)) * body.H
        row1, end = lay_row(items[:half], body, 0.0, depth + apart2, pose, gap)
        tiles += row1 + row2
        row_y = depth + 2
    else:
        row, end = lay_row(items, body, 0.0, 0.0, pose, gap)
        tiles += row
        row_y = 0.0
    win_pose = pose if rng.random() < 0.7 else LYING
    apart = float(rng.uniform(0.3, 1.0)) * body.W
    wtile, end = lay_row([win], body, end + apart, row_y, win_pose, gap)
    tiles += wtile
    row_far = max((t.y for t in tiles)) + body.H / 2

    # declared melds: a row of their own beyond the standing tiles, beside them, or in front
    where = str(rng.choice(["beyond", "right", "front"], p=[0.55, 0.25, 0.2]))
    notes["melds"] = where
    meld_rows: list[list[Item]] = []
    styles = []
    for i, meld in enumerate(hand.melds):
        its, style = meld_items(rng, meld, i)
        meld_rows.append(its)
        styles.append(style)
    notes["meld_styles"] = styles
    beside = rng.random() < 0.3
    if meld_rows:
        meld_gap = float(rng.uniform(0.4, 1.5)) * body.W
        if where == "right":
            x, y = end + float(rng.uniform(1.0, 2.0)) * body.W, 0.0
        elif where == "beyond":
            x, y = float(rng.uniform(-1, 4)) * body.W, row_far + float(rng.uniform(0.3, 1.5)) * body.W
            if pose == STANDING:  # far enough that the standing tiles do not hide them from a low camera
                y += float(rng.uniform(1.0, 1.6)) * body.H
        else:
            x, y = float(rng.uniform(-1, 4)) * body.W, -body.H * 1.6 - float(rng.uniform(0.2, 1.0)) * body.W
        for its in meld_rows:
            placed, x = lay_row(its, body, x, y, LYING, float(rng.uniform(0, 0.6)), beside)
            tiles += placed
            x += meld_gap

    # flowers and seasons: apart from the melds
    if hand.flowers:
        items = [Item(t.code, {"kind": "flower", "index": i}) for i, t in enumerate(hand.flowers)]
        spot = str(rng.choice(["left", "far_right", "beyond", "front"]))
        xs = [t.x for t in tiles]
        ys = [t.y for t in tiles]
        fl_w = len(items) * (body.W + 0.5)
        if spot == "left":
            x, y = min(xs) - fl_w - body.W * float(rng.uniform(1, 2.5)), float(rng.uniform(0, 2)) * body.H
        elif spot == "far_right":
            x, y = max(xs) + body.W * float(rng.uniform(1.5, 2.5)), float(rng.uniform(-1, 1)) * body.H
        elif spot == "beyond":
            x, y = _between(rng, min(xs), max(xs) - fl_w), max(ys) + body.H * float(rng.uniform(1.2, 2))
        else:
            x, y = _between(rng, min(xs), max(xs) - fl_w), min(ys) - body.H * float(rng.uniform(2.2, 3))
        placed, _ = lay_row(items, body, x, y, LYING, float(rng.uniform(0.2, 3)))
        tiles += placed
    return Scene(kind, tiles, notes=notes)


def _between(rng: np.random.Generator, lo: float, hi: float) -> float:
    """Uniform in [lo, hi], or lo when the range is empty."""
    return float(lo + max(0.0, hi - lo) * rng.random())


def _grid_scene(rng: np.random.Generator, hand: Hand, body: TileBody) -> Scene:
    """Every tile of the hand face up in a grid (face-down tiles of concealed kongs stay down)."""
    items, win = _standing_items(rng, hand)
    items = items + [win]
    for i, meld in enumerate(hand.melds):
        its, _ = meld_items(rng, meld, i)
        for it in its:
            it.sideways = it.on_top = False
        items += its
    items += [Item(t.code, {"kind": "flower", "index": i}) for i, t in enumerate(hand.flowers)]
    cols = int(rng.integers(5, 10))
    gap = float(rng.uniform(0.2, 1.5))
    tiles = []
    for k, item in enumerate(items):
        r, c = divmod(k, cols)
        tiles.append(Placed(item.code, c * (body.W + gap), -r * (body.H + gap), 0.0, LYING, item.face_down,
                            group=item.group))
    _jitter(rng, tiles, 0.3, 1.0)
    tray = None
    if rng.random() < 0.6:
        xs, ys = [t.x for t in tiles], [t.y for t in tiles]
        pad = float(rng.uniform(0.25, 0.6)) * body.W
        rim = float(rng.uniform(6, 12))
        colour = np.array(rng.choice([[35, 35, 38], [60, 60, 62], [200, 200, 205], [40, 60, 120], [120, 60, 30]]), float)
        tray = Tray(cx=(min(xs) + max(xs)) / 2, cy=(min(ys) + max(ys)) / 2,
                    w=max(xs) - min(xs) + body.W + 2 * pad + 2 * rim, h=max(ys) - min(ys) + body.H + 2 * pad + 2 * rim,
                    angle=0.0, rim=rim, wall=float(rng.uniform(3, 6)), floor=2.0, bgr=colour)
        for t in tiles:
            t.z += tray.floor
    return Scene("grid", tiles, tray, notes={"columns": cols, "tray": tray is not None})


def _add_other_players(rng: np.random.Generator, scene: Scene, hand: Hand, body: TileBody) -> None:
    """Other players' melds on the other sides of the table, and discards in the middle."""
    wall = Wall(hand)
    tiles = scene.tiles
    xs, ys = [t.x for t in tiles], [t.y for t in tiles]
    cx, top = (min(xs) + max(xs)) / 2, max(ys)
    centre = np.array([cx, top + float(rng.uniform(4, 7)) * body.H])
    other = lambda i: {"kind": "other", "index": i}  # noqa: E731
    n_other = 0
    for side in rng.permutation([90.0, 180.0, 270.0])[: int(rng.integers(1, 4))]:
        row: list[Item] = []
        for _ in range(int(rng.integers(1, 4))):
            tile = wall.draw(rng, 1, bonus=False)
            if not tile:
                break
            if wall.take(tile[0], 2):
                k = int(rng.integers(3))
                row += [Item(tile[0].code, other(n_other + i), sideways=i == k) for i in range(3)]
                n_other += 3
        placed, end = lay_row(row, body, 0.0, 0.0, LYING, 0.3)
        dist = float(rng.uniform(4, 7)) * body.H
        a = np.radians(side)
        rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
        for t in placed:
            p = rot @ np.array([t.x - end / 2, t.y - dist]) + centre
            t.x, t.y, t.angle = float(p[0]), float(p[1]), t.angle + side
        tiles += placed
    # discards: a loose grid of face-up tiles between the players
    discards = wall.draw(rng, int(rng.integers(0, 12)), bonus=False)
    for k, tile in enumerate(discards):
        r, c = divmod(k, 6)
        tiles.append(Placed(tile.code, centre[0] + (c - 2.5) * (body.W + 1.5), centre[1] + (1 - r) * (body.H + 1.5),
                            float(rng.choice([0.0, 90.0, 180.0, 270.0])), LYING, group=other(n_other)))
        n_other += 1


def _scatter(rng: np.random.Generator, scene: Scene, hand: Hand, body: TileBody) -> None:
    """Loosen the hand's layout and scatter extra tiles around it, some face down, some on others."""
    wall = Wall(hand)
    tiles = scene.tiles
    _jitter(rng, tiles, 1.5, 12.0)
    xs, ys = [t.x for t in tiles], [t.y for t in tiles]
    lo = np.array([min(xs), min(ys)]) - 3 * body.H
    hi = np.array([max(xs), max(ys)]) + 3 * body.H
    radius = 0.5 * np.hypot(body.W, body.H)
    extra = wall.draw(rng, int(rng.integers(4, 20)))
    occupied = [(t.x, t.y) for t in tiles if t.z == 0]
    for k, tile in enumerate(extra):
        for _ in range(20):
            p = rng.uniform(lo, hi)
            d = min((np.hypot(p[0] - x, p[1] - y) for x, y in occupied), default=9e9)
            stack = rng.random() < 0.12 and d < radius * 1.2
            if d > 2 * radius or stack:
                break
        else:
            continue
        tiles.append(Placed(tile.code, float(p[0]), float(p[1]), float(rng.uniform(0, 360)), LYING,
                            face_down=bool(rng.random() < 0.25), z=body.D if stack else 0.0, stacked=stack,
                            group={"kind": "other", "index": k}))
        if not stack:
            occupied.append((float(p[0]), float(p[1])))


def _hand_items(hand: Hand) -> list[Item]:
    """Every tile of the hand (standing, winning, melds, flowers) with its group, all face up."""
    standing = [t.code for t in hand.concealed]
    standing.remove(hand.winning_tile.code)
    items = [Item(c, {"kind": "concealed", "index": i}) for i, c in enumerate(standing)]
    items.append(Item(hand.winning_tile.code, {"kind": "winning", "index": 0}))
    for m, meld in enumerate(hand.melds):
        items += [Item(t.code, {"kind": "meld", "meld": m, "index": i}) for i, t in enumerate(meld.tiles)]
    items += [Item(t.code, {"kind": "flower", "index": i}) for i, t in enumerate(hand.flowers)]
    return items


def footprint(x: float, y: float, angle: float, w: float, h: float) -> np.ndarray:
    """The corners (4, 2) of a w x h rectangle centred on (x, y), turned by ``angle`` degrees."""
    a = math.radians(angle)
    c, s = math.cos(a), math.sin(a)
    local = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    return local @ np.array([[c, s], [-s, c]]) + (x, y)


def footprints_overlap(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two rectangles (corners, as :func:`footprint`) overlap with some area (touching edges do
    not)."""
    return bool(_overlapping(a, b[None])[0])


def _overlap_shifts(quad: np.ndarray, quads: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The separating-axis test of the rectangle ``quad`` (4, 2) moved by a vector v against each of the
    rectangles ``quads`` (m, 4, 2): the axes (m, 4, 2: the edge directions of both, a rectangle's edges
    being each other's normals) and per axis the range lo < axis . v < hi (m, 4) in which their shadows
    on it overlap. They overlap where every axis does."""
    axes = np.concatenate([np.broadcast_to(quad[1:3] - quad[0:2], (len(quads), 2, 2)),
                           quads[:, 1:3] - quads[:, 0:2]], axis=1)
    pa = np.einsum("cj,maj->mca", quad, axes)  # (m, 4 corners, 4 axes)
    pb = np.einsum("mcj,maj->mca", quads, axes)
    return axes, pb.min(axis=1) - pa.max(axis=1), pb.max(axis=1) - pa.min(axis=1)


def _overlapping(quad: np.ndarray, quads: np.ndarray) -> np.ndarray:
    """Which of the rectangles ``quads`` (m, 4, 2) overlap the rectangle ``quad`` (4, 2)."""
    _, lo, hi = _overlap_shifts(quad, quads)
    return ((lo < -1e-9) & (hi > 1e-9)).all(axis=1)


def _contact(quad: np.ndarray, way: np.ndarray, quads: np.ndarray) -> float:
    """The rectangle ``quad`` (4, 2) pushed back along -``way`` from far out along ``way``: how far out
    it stops, touching the first of ``quads`` it meets (0: it reaches where it is now)."""
    axes, lo, hi = _overlap_shifts(quad, quads)
    rate = axes @ way  # (m, 4): the shift along each axis per mm out
    with np.errstate(divide="ignore", invalid="ignore"):
        a, b = lo / rate, hi / rate
    flat = np.abs(rate) < 1e-12  # an axis across the way: overlapping on it everywhere or nowhere
    always = (lo < 0) & (hi > 0)
    start = np.where(flat, np.where(always, -np.inf, np.inf), np.minimum(a, b))
    end = np.where(flat, np.where(always, np.inf, -np.inf), np.maximum(a, b))
    first, last = start.max(axis=1), end.min(axis=1)  # the distances out at which they overlap
    met = (first < last) & (last > 0)
    return float(last[met].max()) if met.any() else 0.0


def _on_tiles(points: np.ndarray, tiles: list[Placed], body: TileBody) -> np.ndarray:
    """Which points (n, 2) lie on which lying tiles' footprints: (n, len(tiles)) booleans."""
    a = np.radians([t.angle for t in tiles])
    d = points[:, None, :] - np.array([(t.x, t.y) for t in tiles])[None]
    u = d[..., 0] * np.cos(a) + d[..., 1] * np.sin(a)  # in each tile's own axes
    v = -d[..., 0] * np.sin(a) + d[..., 1] * np.cos(a)
    return (np.abs(u) <= body.W / 2) & (np.abs(v) <= body.H / 2)


# points spread evenly over a tile (in tile widths and heights): the share of a tile lying over another
_SAMPLES = np.stack(np.meshgrid((np.arange(8) + 0.5) / 8 - 0.5, (np.arange(10) + 0.5) / 10 - 0.5), -1).reshape(-1, 2)


def _heap_scene(rng: np.random.Generator, hand: Hand, body: TileBody) -> Scene:
    """The hand's tiles and extra ones from the wall heaped together, 15-40 tiles: the lower layer
    pushed together into a round or oval pile, touching or nearly, at any angle; a quarter to two fifths
    of the tiles lying on it, each over a third to a half of the tile it was laid on (its centre always
    over a tile below, so that it would rest flat); about a tenth face down. The hand's tiles keep
    their groups (though the heap lays no group out), so that the sidecar's hand matches its tiles and
    the camera keeps them in the frame."""
    items = _hand_items(hand)
    n = int(rng.integers(max(HEAP_TILES[0], len(items) + 3), HEAP_TILES[1] + 1))
    extra = Wall(hand).draw(rng, n - len(items))
    items += [Item(t.code, {"kind": "other", "index": k}) for k, t in enumerate(extra)]
    n_down = min(int(rng.binomial(len(items), HEAP_FACE_DOWN)), len(extra))
    for k in rng.choice(len(extra), n_down, replace=False):
        items[len(items) - len(extra) + int(k)].face_down = True
    items = [items[i] for i in rng.permutation(len(items))]
    n_top = int(round(rng.uniform(*HEAP_STACKED) * len(items)))

    # the pile's long axis: each lower tile is pushed towards a point on it
    radius = math.sqrt((len(items) - n_top) * body.W * body.H / (0.7 * math.pi))
    half_axis = float(rng.uniform(0, 0.45)) * radius
    a = float(rng.uniform(0, math.pi))
    axis = np.array([math.cos(a), math.sin(a)])
    low: list[Placed] = []
    for item in items[n_top:]:
        low.append(_push_in(rng, item, low, body, axis * float(rng.uniform(-half_axis, half_axis))))
    top: list[Placed] = []
    for item in items[:n_top]:
        tile = _lay_on(rng, item, low, top, body)
        if tile is None:  # no room left on the pile: it goes on the table at its edge
            low.append(_push_in(rng, item, low, body, np.zeros(2)))
        else:
            top.append(tile)
    return Scene("heap", low + top, notes={"heap_tiles": len(low) + len(top), "stacked": len(top),
                                           "face_down": n_down, "oval": round(half_axis / radius, 2)})


def _push_in(rng: np.random.Generator, item: Item, low: list[Placed], body: TileBody, target: np.ndarray,
             tries: int = 10) -> Placed:
    """The item lying on the table at any angle, pushed towards ``target`` until it meets a tile of
    ``low`` (0-1 mm short of it, as hands pushing tiles together leave them): pushed from ``tries``
    sides, it stays where it came nearest the target (pushed from one side only, tiles catch on the
    first corner they meet and the pile grows branches and holes)."""
    angle = float(rng.uniform(0, 360))
    gap = float(rng.uniform(0, 1.0))
    quad = footprint(float(target[0]), float(target[1]), angle, body.W + gap, body.H + gap)
    quads = np.array([footprint(t.x, t.y, t.angle, body.W, body.H) for t in low]).reshape(-1, 4, 2)
    best, best_d = target, math.inf
    for heading in rng.uniform(0, 2 * math.pi, tries if low else 1):
        way = np.array([math.cos(heading), math.sin(heading)])
        d = _contact(quad, way, quads) if low else 0.0
        if d < best_d:
            best, best_d = target + way * d, d
    return Placed(item.code, float(best[0]), float(best[1]), angle, LYING, item.face_down, group=item.group)


def _lay_on(rng: np.random.Generator, item: Item, low: list[Placed], top: list[Placed],
            body: TileBody) -> Placed | None:
    """The item lying on a tile of ``low`` at any angle, over a third to a half of it, its centre over
    some lower tile (else it would tip), clear of the tiles already on top; None when no try fits."""
    top_quads = np.array([footprint(t.x, t.y, t.angle, body.W, body.H) for t in top]).reshape(-1, 4, 2)
    for _ in range(40):
        below = low[int(rng.integers(len(low)))]
        angle = float(rng.uniform(0, 360))
        share = float(rng.uniform(*HEAP_ON_BELOW))
        heading = float(rng.uniform(0, 2 * math.pi))
        way = np.array([math.cos(heading), math.sin(heading)])
        a = math.radians(angle)
        samples = _SAMPLES * (body.W, body.H) @ np.array([[math.cos(a), math.sin(a)], [-math.sin(a), math.cos(a)]])
        lo, hi = 0.0, math.hypot(body.W, body.H)  # the share over it falls as the tile moves off it
        for _ in range(10):
            mid = (lo + hi) / 2
            over = _on_tiles(samples + (below.x, below.y) + way * mid, [below], body).mean()
            lo, hi = (mid, hi) if over > share else (lo, mid)
        x, y = below.x + way[0] * lo, below.y + way[1] * lo
        if not _on_tiles(np.array([[x, y]]), low, body).any():
            continue
        if _overlapping(footprint(x, y, angle, body.W, body.H), top_quads).any():
            continue
        return Placed(item.code, x, y, angle, LYING, item.face_down, z=body.D, stacked=True, group=item.group)
    return None


def _jitter(rng: np.random.Generator, tiles: list[Placed], shift_mm: float, angle_deg: float) -> None:
    before = [(t.x, t.y, t.angle) for t in tiles]
    for t in tiles:
        if t.stacked:
            continue
        t.x += float(rng.normal(0, shift_mm))
        t.y += float(rng.normal(0, shift_mm))
        t.angle += float(rng.normal(0, angle_deg))
    # a tile on top moves (and turns) with the tile below it, keeping its offset on it
    for i, t in enumerate(tiles):
        if t.stacked and i > 0 and tiles[i - 1].z < t.z and not tiles[i - 1].stacked:
            below = tiles[i - 1]
            bx, by, ba = before[i - 1]
            turn = math.radians(below.angle - ba)
            dx, dy = before[i][0] - bx, before[i][1] - by
            t.x = below.x + dx * math.cos(turn) - dy * math.sin(turn)
            t.y = below.y + dx * math.sin(turn) + dy * math.cos(turn)
            t.angle = below.angle + (before[i][2] - ba)


def _crooked(rng: np.random.Generator, tiles: list[Placed], body: TileBody) -> None:
    """Bend the whole layout along an arc, and let every tile wander a little."""
    bend = float(rng.uniform(-1, 1)) * 0.0015  # curvature, 1/mm
    for t in tiles:
        t.y += bend * t.x * t.x
        t.angle += np.degrees(np.arctan(2 * bend * t.x))
    _jitter(rng, tiles, 1.0, 4.0)
