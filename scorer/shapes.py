"""Hand shapes on tile counts, shared by every rule set: sets and a pair, seven pairs, thirteen orphans.

Everything works on a 34-long tuple of counts (index = ``Tile.index``: 0-8 characters, 9-17 dots,
18-26 bamboo, 27-30 East South West North, 31-33 White Green Red) and the costly parts are cached on
it: the same standing tiles always decompose the same way, whoever holds them and however they won.

>>> regular_decompositions(counts_of("123m 456m 789m 111p 22p"), 4)
((('chow', 0), ('chow', 3), ('chow', 6), ('pung', 9), ('pair', 10)),)
"""

from __future__ import annotations

from functools import lru_cache
from operator import itemgetter
from typing import Iterable

from scorer.tiles import Tile

Counts = tuple[int, ...]
# A part of a decomposition: (kind, lowest tile index); kind is "chow", "pung" or "pair".
RawPart = tuple[str, int]

HONORS = tuple(range(27, 34))
TERMINALS_AND_HONORS = (0, 8, 9, 17, 18, 26) + HONORS
_ORPHANS = itemgetter(*TERMINALS_AND_HONORS)


def counts_of(tiles: Iterable[Tile] | str) -> Counts:
    """Counts of playing tiles; a string is read as standing tiles in the notation ("123m 55z")."""
    if isinstance(tiles, str):
        from scorer.notation import group_tiles

        tiles = group_tiles(tiles.replace(" ", ""))
    counts = [0] * 34
    for tile in tiles:
        counts[tile.index] += 1
    return tuple(counts)


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
    return sum(counts) == 14 and 1 not in counts and 3 not in counts


def is_thirteen_orphans(counts: Counts) -> bool:
    orphans = _ORPHANS(counts)
    return 0 not in orphans and sum(orphans) == 14 == sum(counts)


def has_regular(counts: Counts, sets: int, pair: bool = True) -> bool:
    """Whether ``counts`` split into ``sets`` chows/pungs plus (if ``pair``) one pair. Stops at the first split."""
    return _has_regular(list(counts), 0, sets, not pair)


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


