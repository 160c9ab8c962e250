"""Winning shapes under MCR, on tile counts: the shared ones (scorer/shapes.py) and MCR's special shapes.

Everything here works on a 34-long tuple of counts (index = ``Tile.index``) and is cached on it:
the same standing tiles always decompose the same way, whoever holds them and however they won.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import permutations
from operator import itemgetter

from scorer.shapes import (HONORS, Counts, RawPart, has_regular, is_seven_pairs, is_thirteen_orphans,  # noqa: F401
                           rank_of, regular_decompositions, suit_of)
# The six knitted straights: one suit takes 1-4-7, another 2-5-8, the third 3-6-9.
KNITTED_STRAIGHTS: tuple[tuple[int, ...], ...] = tuple(
    tuple(sorted(suit * 9 + start + step for suit, start in zip(order, (0, 1, 2)) for step in (0, 3, 6)))
    for order in permutations(range(3))
)

_KNITTED_PICKS = tuple((seq, itemgetter(*seq)) for seq in KNITTED_STRAIGHTS)


def honors_and_knitted(counts: Counts) -> str | None:
    """'greater' or 'lesser' for the Honors and Knitted Tiles shapes (14 different tiles: honours and
    tiles of one knitted straight), else None."""
    if max(counts) > 1 or sum(counts) != 14:
        return None
    numbered = {i for i in range(27) if counts[i]}
    if not 7 <= len(numbered) <= 9:
        return None
    if not any(numbered <= set(seq) for seq in KNITTED_STRAIGHTS):
        return None
    return "greater" if all(counts[i] for i in HONORS) else "lesser"


@lru_cache(maxsize=100_000)
def knitted_straight_decompositions(counts: Counts, sets: int) -> tuple[tuple[tuple[int, ...], tuple[RawPart, ...]], ...]:
    """Knitted Straight as three sets: (the 9 knitted tiles, the rest as ``sets`` sets plus a pair)."""
    out = []
    for seq, pick in _KNITTED_PICKS:
        if 0 not in pick(counts):
            rest = list(counts)
            for i in seq:
                rest[i] -= 1
            for parts in regular_decompositions(tuple(rest), sets):
                out.append((seq, parts))
    return tuple(out)


@lru_cache(maxsize=200_000)
def is_complete(counts: Counts, melds: int) -> bool:
    """Whether these standing tiles, with ``melds`` declared melds, form any MCR winning shape."""
    sets = 4 - melds
    if has_regular(counts, sets):
        return True
    if melds == 0 and (is_seven_pairs(counts) or is_thirteen_orphans(counts) or honors_and_knitted(counts)):
        return True
    # A knitted straight needs nine different suit tiles: most hands fail this cheap test.
    return (melds <= 1 and 27 - counts[:27].count(0) >= 9
            and bool(knitted_straight_decompositions(counts, sets - 3)))


@lru_cache(maxsize=200_000)
def completing_tiles(counts: Counts, melds: int) -> frozenset[int]:
    """The tiles that would complete 13 standing tiles (``counts``) into a winning shape."""
    out = set()
    work = list(counts)
    for i in _candidates(counts, melds):
        if work[i] >= 4:
            continue
        work[i] += 1
        if is_complete(tuple(work), melds):
            out.add(i)
        work[i] -= 1
    return frozenset(out)


def _candidates(counts: Counts, melds: int) -> range | set[int]:
    """Tiles worth trying as the completing tile. A tile that completes a set, a pair or a knitted
    straight lies within 3 ranks of a held tile of its suit (or is a held honour); the shapes of 13 or 14
    different tiles (Thirteen Orphans, Honors and Knitted Tiles) can wait on any tile, so try them all."""
    held = [i for i in range(34) if counts[i]]
    if melds == 0 and len(held) >= 11:
        return range(34)
    near: set[int] = set()
    for i in held:
        if i >= 27:
            near.add(i)
            continue
        base = i - i % 9
        near.update(range(max(base, i - 3), min(base + 8, i + 3) + 1))
    return near
