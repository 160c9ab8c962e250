"""Standing tiles read alike that another face fits as well: the clean hand they make is asked about, not taken.

A standing pair or pung is two to four crops of one face, and the classifier reads them alike (the more so since
``vision.sibling_readings`` weighs look-alikes together). When it misreads that face it misreads every copy, and the
hand still splits into sets and a pair: the held-out style's White dragons read as West winds, its 二 as 一, a pair
of 9s as 6s. Nothing else catches it. ``vision.repair`` only looks again at a hand that is no winning one, and one
tile read again alone (stop 44's "close call") leaves its copies behind and makes no hand.

So ``ask_about_alike_tiles`` looks at a clean winning reading (a hand, no question): for each face that two or more
standing tiles are read as, the next readings they all share (``Detection.alternatives``), each with the product
over the copies of its confidence over the tile's own. Where that reaches ``ALIKE_RATIO`` and reading every copy so
makes another clean winning hand, question ``tile-reading`` asks between the hand as read and those hands (each
choice carries its whole hand, so the page and ``--answer`` take it as they take `vision.repair`'s). Nothing is
changed without the player: the reading's hand stays the one read.

>>> from scorer.tiles import Tile
>>> {code: round(ratio, 3) for code, ratio in alike_rereadings({3: [("5z", 0.5)], 7: [("5z", 0.8), ("1m", 0.3)]}).items()}
{'5z': 0.4}
>>> alike_rereadings({3: [("5z", 0.5)], 7: [("1m", 0.9)]})    # no next reading shared by both
{}
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace
from typing import Any, Callable, Hashable, Mapping, NamedTuple, Sequence

from scorer.tiles import Tile
from vision.detections import Detections

ALIKE_RATIO = 0.35
"""A shared next reading is tried when the product over the alike tiles of its confidence over each tile's own
reaches this. Chosen at stop 52 on the held-out seeds' cached readings (round 30, seeds 10, 12, 17, 18 and then
19-22, 1,600 hands; throwaway ``runs/s52/groups_probe.py``): at 0.35, 12 hands read right are asked about and 9
silently wrong ones ask instead (7 offering the true hand); at 0.5, 7 and 5; at 0.25, 22 and 11. The two halves of
the seeds agree (7 and 5, then 5 and 4)."""
STANDING_GROUPS = ("concealed", "winning")
"""The tiles that count as standing: the concealed row and the winning tile (which makes the pair or set with them)."""
MOST_CHOICES = 3
"""At most this many other hands are offered beside the hand as read."""


class AlikeReading(NamedTuple):
    """``copies`` standing tiles read as ``read_as`` that could all be ``other``, ``ratio`` as likely."""

    ratio: float
    read_as: str
    other: str
    copies: int

    def tiles(self, code: str) -> str:
        return " ".join([code] * self.copies)


def alike_rereadings(alternatives: Mapping[Hashable, Sequence[tuple[Any, float]]]) -> dict[Any, float]:
    """The next readings that every alike tile shares, each with the product of its ratios (a tile's next
    reading's confidence over its own): ``alternatives`` maps each tile to its (code, ratio) pairs."""
    shared: dict[Any, float] | None = None
    for pairs in alternatives.values():
        ratios = {code: ratio for code, ratio in pairs}
        shared = ratios if shared is None else {code: shared[code] * ratios[code] for code in shared if code in ratios}
    return shared or {}


def ask_about_alike_tiles(detections: Detections, reading: Any,
                          read: Callable[[Detections, frozenset[int]], Any]) -> Any:
    """``reading``, or with question ``tile-reading`` when its standing tiles read alike could all be another
    face and the layout then makes another clean winning hand (see the module's doc). ``read(detections,
    dropped)`` reads a layout again, as for ``vision.repair.repair``."""
    from vision.grouping import Choice, Question
    from vision.repair import _fixed, is_winning_shape
    from vision.row_order import TILE_READING

    if reading.hand is None or reading.questions or not is_winning_shape(reading.hand):
        return reading
    tiles = detections.tiles
    # a tile already read again (vision.repair, vision.row_order) stands for its new reading, not its detection's
    read_again = {correction.detection for correction in reading.corrections}
    standing: dict[str, list[int]] = defaultdict(list)  # each face the standing tiles are read as: their detections
    for evidence in reading.tiles:
        if evidence.group in STANDING_GROUPS and not evidence.face_down:
            standing[evidence.code].append(evidence.detection)
    found: dict[Any, AlikeReading] = {}  # each other hand, and the likeliest reading that gives it
    for code, copies in standing.items():
        if len(copies) < 2 or any(i in read_again or tiles[i].code_str != code or tiles[i].confidence <= 0
                                  for i in copies):
            continue
        nexts = {i: [(other, confidence / tiles[i].confidence) for other, confidence in tiles[i].alternatives
                     if isinstance(other, Tile) and not other.is_bonus and other.code != code]
                 for i in copies}
        for other, ratio in alike_rereadings(nexts).items():
            if ratio < ALIKE_RATIO:
                continue
            changed = list(tiles)
            for i in copies:
                changed[i] = replace(tiles[i], code=other, alternatives=())
            again = read(Detections(detections.width, detections.height, tuple(changed)), frozenset())
            if not _fixed(again) or again.questions or again.hand == reading.hand:
                continue
            if again.hand not in found or found[again.hand].ratio < ratio:
                found[again.hand] = AlikeReading(ratio, code, other.code, len(copies))
    if not found:
        return reading
    ranked = sorted(found.items(), key=lambda item: -item[1].ratio)[:MOST_CHOICES]
    first = ranked[0][1]
    one_kind = len({(other.read_as, other.copies) for _, other in ranked}) == 1
    choices = [Choice(f"as read ({first.tiles(first.read_as)})" if one_kind else "as read", reading.hand)]
    choices += [Choice(f"{other.tiles(other.other)} instead of {other.tiles(other.read_as)}", hand)
                for hand, other in ranked]
    text = (f"The {first.copies} standing tiles read as {first.read_as} could all be {first.other}: both readings "
            "make a winning hand. Which is right?" if len(ranked) == 1 else
            "Standing tiles read alike could all be another tile, and more than one reading makes a winning hand. "
            "Which is right?")
    return replace(reading, questions=reading.questions + (Question(TILE_READING, text, tuple(choices)),))
