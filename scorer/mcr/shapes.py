"""Winning shapes under MCR, on tile counts: the regular 4 sets + pair, and the special shapes.

Everything here works on a 34-long tuple of counts (index = ``Tile.index``) and is cached on it:
the same standing tiles always decompose the same way, whoever holds them and however they won.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import permutations

Counts = tuple[int, ...]
# A part of a decomposition: (kind, lowest tile index); kind is "chow", "pung" or "pair".
RawPart = tuple[str, int]

HONORS = tuple(range(27, 34))
TERMINALS_AND_HONORS = (0, 8, 9, 17, 18, 26) + HONORS
# The six knitted straights: one suit takes 1-4-7, another 2-5-8, the third 3-6-9.
KNITTED_STRAIGHTS: tuple[tuple[int, ...], ...] = tuple(
    tuple(sorted(suit * 9 + start + step for suit, start in zip(order, (0, 1, 2)) for step in (0, 3, 6)))
    for order in permutations(range(3))
)


def is_numbered(index: int) -> bool:
    return index < 27


def rank_of(index: int) -> int:
    return index % 9 + 1 if index < 27 else index - 26


def suit_of(index: int) -> int:
    """0 characters, 1 dots, 2 bamboo, 3 honours."""
    return index // 9 if index < 27 else 3


@lru_cache(maxsize=200_000)
def regular_decompositions(counts: Counts, sets: int) -> tuple[tuple[RawPart, ...], ...]:
    """Every way to split ``counts`` into ``sets`` chows/pungs plus one pair (sets first, pair last)."""
    found: set[tuple[RawPart, ...]] = set()
    work = list(counts)

    def walk(start: int, taken: list[RawPart], pair: RawPart | None) -> None:
        i = start
        while i < 34 and work[i] == 0:
            i += 1
        if i == 34:
            if pair is not None and len(taken) == sets:
                found.add(tuple(sorted(taken)) + (pair,))
            return
        if work[i] >= 3 and len(taken) < sets:
            work[i] -= 3
            walk(i, taken + [("pung", i)], pair)
            work[i] += 3
        if work[i] >= 2 and pair is None:
            work[i] -= 2
            walk(i, taken, ("pair", i))
            work[i] += 2
        if i < 27 and i % 9 <= 6 and work[i + 1] and work[i + 2] and len(taken) < sets:
            work[i] -= 1
            work[i + 1] -= 1
            work[i + 2] -= 1
            walk(i, taken + [("chow", i)], pair)
            work[i] += 1
            work[i + 1] += 1
            work[i + 2] += 1

    if sum(counts) == 3 * sets + 2:
        walk(0, [], None)
    return tuple(sorted(found))


def is_seven_pairs(counts: Counts) -> bool:
    """Seven pairs; four alike count as two pairs (a Tile Hog), as in the official rules."""
    return sum(counts) == 14 and all(n % 2 == 0 for n in counts)


def is_thirteen_orphans(counts: Counts) -> bool:
    return sum(counts) == 14 and all(counts[i] >= 1 for i in TERMINALS_AND_HONORS) \
        and sum(counts[i] for i in TERMINALS_AND_HONORS) == 14


def honors_and_knitted(counts: Counts) -> str | None:
    """'greater' or 'lesser' for the Honors and Knitted Tiles shapes (14 different tiles: honours and
    tiles of one knitted straight), else None."""
    if sum(counts) != 14 or any(n > 1 for n in counts):
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
    for seq in KNITTED_STRAIGHTS:
        if all(counts[i] for i in seq):
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
    if _has_regular(list(counts), 0, sets, False):
        return True
    if melds == 0 and (is_seven_pairs(counts) or is_thirteen_orphans(counts) or honors_and_knitted(counts)):
        return True
    # A knitted straight needs nine different suit tiles: most hands fail this cheap test.
    return (melds <= 1 and sum(1 for n in counts[:27] if n) >= 9
            and bool(knitted_straight_decompositions(counts, sets - 3)))


def _has_regular(work: list[int], start: int, sets: int, paired: bool) -> bool:
    """Whether ``work`` (from ``start`` on) splits into ``sets`` sets and, unless ``paired``, a pair.

    The lowest tile left must open a pung, a chow or the pair; stop at the first split found."""
    i = start
    while i < 34 and work[i] == 0:
        i += 1
    if i == 34:
        return sets == 0 and paired
    n = work[i]
    if n >= 3 and sets:
        work[i] -= 3
        found = _has_regular(work, i, sets - 1, paired)
        work[i] += 3
        if found:
            return True
    if n >= 2 and not paired:
        work[i] -= 2
        found = _has_regular(work, i, sets, True)
        work[i] += 2
        if found:
            return True
    if sets and i < 27 and i % 9 <= 6 and work[i + 1] and work[i + 2]:
        work[i] -= 1
        work[i + 1] -= 1
        work[i + 2] -= 1
        found = _has_regular(work, i, sets - 1, paired)
        work[i] += 1
        work[i + 1] += 1
        work[i + 2] += 1
        return found
    return False


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
