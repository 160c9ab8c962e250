"""A standing row sorted but for unsure tiles: the re-reading that sorts it.

Players sort their concealed tiles: by suit, each suit's tiles in order of number, the honours at one end
(the renderer lays 70 % of its rows so and 10 % with a few neighbours swapped). When the row as read is sorted
but for a tile the classifier was unsure of, and one of that tile's next readings (``Detection.alternatives``)
both sorts the row and still makes a winning hand, that reading is the likelier: a one-stick 1s read as 5m
among the bamboos, a 9s pair read 6s after the eights. ``settle_by_order`` tries the unsure standing tiles'
next readings, one or two at a time (as ``vision.repair`` does) and three or more read alike together (a misread
pung), and takes the re-reading that sorts the row when it is ``vision.repair.MARGIN`` times likelier than any
other that does with another hand. The reading says so in ``corrections`` and ``notes``: never silently. A row
read unsorted is otherwise left as it is (players also lay rows unsorted), and so is a row of fewer than
``MIN_TILES`` tiles (a short row is sorted by chance too often to say anything).

>>> from scorer.tiles import Tile
>>> row_is_sorted([Tile.parse(c) for c in ("2m", "3m", "4m", "7p", "7p", "1s", "2s", "3s", "1z", "1z")])
True
>>> row_is_sorted([Tile.parse(c) for c in ("2m", "3m", "4m", "7p", "7p", "5m", "2s", "3s", "1z", "1z")])
False
>>> row_is_sorted([Tile.parse(c) for c in ("9s", "8s", "7s", "5p", "4p", "4p")])   # read from the other end
True
>>> row_is_sorted([Tile.parse(c) for c in ("2m", "3m", "1z", "1z", "5s", "6s")])   # honours in the middle
False
"""

from __future__ import annotations

import itertools
from dataclasses import replace
from typing import Any, Callable, Sequence

from scorer.tiles import Tile
from vision.classes import class_code
from vision.detections import Detections

MIN_TILES = 7
"""Rows shorter than this are not judged: a short row is sorted by chance too often."""
UNSURE = 0.6
"""Only standing tiles read with a confidence under this are read again for the row's order (the wrong hands'
misread tiles on the rendered meld scenes are at 0.53 or less; a sure tile is never changed for order)."""
TILE_READING = "tile-reading"
BACK_CODE = "back"


def row_is_sorted(tiles: Sequence[Tile]) -> bool:
    """Whether tiles in reading order are sorted as players sort them: each suit's tiles together, the numbers of
    every suit rising (or every suit falling: a row read from the other end), the honours together at one end, in
    any order among themselves."""
    blocks: list[tuple[Any, list[int]]] = []
    for tile in tiles:
        suit = tile.suit if tile.is_numbered else None  # the honours are one block
        if blocks and blocks[-1][0] == suit:
            blocks[-1][1].append(tile.rank)
        else:
            blocks.append((suit, [tile.rank]))
    suits = [suit for suit, _ in blocks]
    if len(set(suits)) != len(suits):
        return False
    if None in suits and suits[0] is not None and suits[-1] is not None:
        return False
    senses = set()
    for suit, numbers in blocks:
        if suit is None:
            continue
        rising = all(a <= b for a, b in zip(numbers, numbers[1:]))
        falling = all(a >= b for a, b in zip(numbers, numbers[1:]))
        if not (rising or falling):
            return False
        if rising != falling:
            senses.add(rising)
    return len(senses) <= 1


def standing_row(reading: Any) -> list[Any]:
    """The reading's standing tiles (``TileEvidence`` of the group "concealed") in reading order."""
    return sorted((t for t in reading.tiles if t.group == "concealed"), key=lambda t: t.position)


def _row_tiles(row: list[Any]) -> list[Tile] | None:
    """The tiles of a standing row (``standing_row``), or None when a face-down tile stands in it."""
    if any(t.code == BACK_CODE for t in row):
        return None
    return [Tile.parse(t.code) for t in row]


def settle_by_order(detections: Detections, reading: Any, read: Callable[[Detections, frozenset[int]], Any]) -> Any:
    """``reading``, or the re-reading of unsure standing tiles that sorts its standing row (see the module's doc).
    Only a reading with a hand and no question but ``tile-reading`` (several close re-readings) is judged.
    ``read(detections, dropped)`` reads a layout again, as for ``vision.repair.repair``."""
    from vision.repair import MARGIN, MIN_RATIO, Correction, _fixed

    if reading.hand is None or any(q.id != TILE_READING for q in reading.questions):
        return reading
    row = standing_row(reading)
    codes = _row_tiles(row)
    if codes is None or len(codes) < MIN_TILES or row_is_sorted(codes):
        return reading
    tiles = detections.tiles
    changes = []  # (ratio, detection, code, place in the row)
    for place, evidence in enumerate(row):
        tile = tiles[evidence.detection]
        if tile.confidence >= UNSURE or tile.confidence <= 0:
            continue
        for code, confidence in tile.alternatives:
            if isinstance(code, Tile) and confidence >= MIN_RATIO * tile.confidence:
                changes.append((confidence / tile.confidence, evidence.detection, code, place))
    found: dict[Any, tuple[float, tuple[tuple[float, int, Tile, int], ...], Any]] = {}

    def attempt(chosen: tuple[tuple[float, int, Tile, int], ...]) -> None:
        sorted_codes = list(codes)
        for _, _, code, place in chosen:
            sorted_codes[place] = code
        if not row_is_sorted(sorted_codes):
            return
        changed = list(tiles)
        for _, i, code, _ in chosen:
            changed[i] = replace(tiles[i], code=code, alternatives=())
        reread = read(Detections(detections.width, detections.height, tuple(changed)), frozenset())
        if not _fixed(reread) or reread.questions:
            return
        reread_codes = _row_tiles(standing_row(reread))
        if reread_codes is None or not row_is_sorted(reread_codes):
            return
        likelihood = 1.0
        for ratio, *_ in chosen:
            likelihood *= ratio
        if reread.hand not in found or found[reread.hand][0] < likelihood:
            found[reread.hand] = (likelihood, chosen, reread)

    for change in changes:
        attempt((change,))
    for first, second in itertools.combinations(changes, 2):
        if first[1] != second[1]:
            attempt((first, second))
    # three or more unsure tiles read alike (a pung misread) change alike: each to the same next reading
    for read_as, code in {(tiles[i].code, c) for _, i, c, _ in changes}:
        alike = [c for c in changes if c[2] == code and tiles[c[1]].code == read_as]
        if len(alike) >= 3 and len({c[1] for c in alike}) == len(alike):
            attempt(tuple(alike))
    if not found:
        return reading
    ranked = sorted(found.values(), key=lambda entry: -entry[0])
    if len(ranked) > 1 and ranked[0][0] < MARGIN * ranked[1][0]:
        return reading
    _, chosen, reread = ranked[0]
    fixes = tuple(Correction(i, tiles[i].code_str, class_code(code), ratio) for ratio, i, code, _ in chosen)
    note = ("The standing row is sorted by suit and number but for unsure tiles; the re-reading that sorts it and "
            "makes a winning hand was taken: "
            + "; ".join(f"detection {c.detection}: {c.describe()}" for c in fixes) + ".")
    return replace(reread, corrections=fixes, notes=reread.notes + (note,))
