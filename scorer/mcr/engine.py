"""MCR scoring: every arrangement of the hand, every fan on each, the best total (seed 000 IV).

The arrangements come from shapes.py (cached on tile counts); the fans from fans.py; which fans
between sets count together from combos.py. Implied fans are dropped highest first: a fan that is
itself implied by a higher one implies nothing (principle 1).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

from scorer.errors import HandError
from scorer.hand import Context, Hand
from scorer.mcr import combos, shapes
from scorer.mcr import fans as _fans  # noqa: F401  (registers every fan)
from scorer.mcr.analysis import Analysis, Part
from scorer.mcr.catalog import FANS, Fan
from scorer.result import ScoreItem
from scorer.tiles import PLAYING_TILES

MINIMUM = 8
FLOWERS = "Flower Tiles"
CHICKEN = "Chicken Hand"
# Highest first: the order in which fans exclude what they imply.
_ORDERED: tuple[Fan, ...] = tuple(sorted((f for f in FANS.values() if f.name not in (FLOWERS, CHICKEN)),
                                         key=lambda f: (-f.points, f.number)))


@dataclass(frozen=True, slots=True)
class Reading:
    """The best arrangement of a hand and the fans it scores (flowers not included)."""

    analysis: Analysis
    items: tuple[ScoreItem, ...]
    points: int


def read_hand(hand: Hand) -> tuple[Reading | None, tuple[str, ...]]:
    """The highest-scoring arrangement of a winning hand, or None if the tiles form no winning shape.

    Raises HandError when the context contradicts the tiles. Returns notes for the player too."""
    standing = [0] * 34
    for tile in hand.concealed:
        standing[tile.index] += 1
    declared = tuple(Part(m.kind.value, m.tile.index, declared=True, exposed=not m.concealed, concealed=m.concealed)
                     for m in hand.melds)
    return _read(tuple(standing), declared, hand.winning_tile.index, hand.context, len(hand.flowers))


@lru_cache(maxsize=100_000)
def _read(standing: tuple[int, ...], declared: tuple[Part, ...], win: int, context: Context,
          flowers: int) -> tuple[Reading | None, tuple[str, ...]]:
    # A pure function of the hand, cached whole: the page re-scores the same tiles on every edit.
    notes: list[str] = []
    counts = list(standing)
    for part in declared:
        for i in part.indices:
            counts[i] += 1
    _check_context(context, standing, counts, win, len(declared), any(p.kind == "kong" for p in declared))
    if not context.last_of_kind and standing[win] == 1 and counts[win] == 4:
        context = replace(context, last_of_kind=True)
        notes.append(f"Last Tile: the other three {PLAYING_TILES[win].code} are in your own melds.")

    melds = len(declared)
    before_win = list(standing)
    before_win[win] -= 1
    available = {i for i in shapes.completing_tiles(tuple(before_win), melds) if counts[i] - (i == win) < 4}
    unique_wait = available == {win}

    def analysis(form: str, parts: tuple[Part, ...], **extra) -> Analysis:
        extra.setdefault("unique_wait", unique_wait)
        return Analysis(form=form, parts=parts, counts=tuple(counts), win=win, context=context,
                        flowers=flowers, declared_melds=melds, **extra)

    candidates: list[Analysis] = []
    for raw in shapes.regular_decompositions(standing, 4 - melds):
        candidates.append(analysis("regular", declared + _standing_parts(raw, win, context.self_drawn)))
    if melds == 0:
        if shapes.is_seven_pairs(standing):
            pairs = tuple(Part("pair", i) for i in range(34) for _ in range(standing[i] // 2))
            candidates.append(analysis("seven_pairs", pairs))
        if shapes.is_thirteen_orphans(standing):
            candidates.append(analysis("thirteen_orphans", ()))
        kind = shapes.honors_and_knitted(standing)
        if kind:
            candidates.append(analysis("honors_and_knitted", (), honors_and_knitted=kind))
    if melds <= 1:
        for knitted, raw in shapes.knitted_straight_decompositions(standing, 1 - melds):
            parts = (Part("knitted", -1, tiles=knitted),) + declared + _standing_parts(raw, win, context.self_drawn)
            # A winning tile read as part of the knitted straight completes no chow or pair, so it scores no
            # wait; one that can be read as completing the other set or the pair may (principle 4).
            candidates.append(analysis("knitted_straight", parts))
    best: Reading | None = None
    for candidate in candidates:
        reading = _score_arrangement(candidate)
        if best is None or reading.points > best.points:
            best = reading
    return best, tuple(notes)


def _standing_parts(raw: tuple[tuple[str, int], ...], win: int, self_drawn: bool) -> tuple[Part, ...]:
    """Parts made of standing tiles. A pung completed by a claimed winning tile is not concealed, unless
    the winning tile can be read as completing a chow of the same arrangement instead."""
    win_in_chow = any(kind == "chow" and tile <= win <= tile + 2 for kind, tile in raw)
    parts = []
    for kind, tile in raw:
        concealed = not (kind == "pung" and tile == win and not self_drawn and not win_in_chow)
        parts.append(Part(kind, tile, concealed=concealed))
    return tuple(parts)


def _score_arrangement(a: Analysis) -> Reading:
    chows = tuple(p.tile for p in a.chows)
    pungs = tuple(p.tile for p in a.pungs)
    if len(chows) >= 2:
        a.combos.update(combos.choose("chows", chows))
    if len(pungs) >= 2:
        a.combos.update(combos.choose("pungs", pungs))
    counts = {f.name: f.count(a) for f in _ORDERED}
    for f in _ORDERED:
        if counts[f.name] <= 0:
            continue
        for excluded in f.excludes:
            if isinstance(excluded, tuple):
                name, n = excluded
                counts[name] = max(0, counts[name] - n)
            else:
                counts[excluded] = 0
    items = [ScoreItem(f.name, f.points, int(counts[f.name])) for f in _ORDERED if counts[f.name] > 0]
    if not items:
        items = [ScoreItem(CHICKEN, FANS[CHICKEN].points, 1)]
    return Reading(a, tuple(items), sum(i.value for i in items))


def _check_context(c: Context, standing: list[int], counts: list[int], win: int, melds: int, has_kong: bool) -> None:
    code = PLAYING_TILES[win].code
    if c.robbing_kong and c.self_drawn:
        raise HandError("impossible_context", "Robbing the Kong wins on another player's tile, so it cannot be self-drawn.")
    if c.robbing_kong and counts[win] != 1:
        raise HandError("impossible_context", f"Robbing the Kong: the other three {code} were in the robbed pung, "
                                              f"so your hand cannot hold another {code}.")
    if c.kong_replacement and not c.self_drawn:
        raise HandError("impossible_context", "A kong's replacement tile is drawn from the wall: set self_drawn too.")
    if c.kong_replacement and not has_kong:
        raise HandError("impossible_context", "Out with Replacement Tile needs a kong in the hand: the replacement "
                                              "tile is drawn after declaring one.")
    if c.last_of_kind and standing[win] > 1:
        raise HandError("impossible_context", f"Last Tile: the winning {code} cannot be the last of its kind "
                                              f"while you hold another {code}.")


def arrangement_of(a: Analysis) -> tuple[tuple[str, tuple], ...]:
    """The arrangement for the result: declared melds as declared, then standing sets, then the pair."""
    tile = PLAYING_TILES
    if a.form == "thirteen_orphans" or a.form == "honors_and_knitted":
        tiles = tuple(tile[i] for i in range(34) for _ in range(a.counts[i]))
        return ((a.form, tiles),)
    return tuple((p.kind, tuple(tile[i] for i in p.indices)) for p in a.parts)
