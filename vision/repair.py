"""When the tiles as read make no winning hand: the likeliest re-reading of unsure tiles that does.

A photo of a finished hand shows a winning hand. When the grouping's hand is not one (tiles that make no
hand at all, such as a flower read as a suit tile in the standing row; a group lying like a meld that forms
none; standing tiles that split into no sets and a pair; a winning tile asked about that no choice makes a winning
hand with), a misread tile is the likeliest cause, and the classifier's next readings of each box
(``Detection.alternatives``) say which. ``repair`` tries them, one tile or two at a time, and every copy of a face
read alike as a next reading they share (three or more copies, ``ALIKE_FROM``: the detector reads look-alikes
together, so a face it misreads it misreads on every copy; stop 54), and keeps the re-readings whose layout gives a
winning hand:

- one re-reading ``MARGIN`` times likelier than any other that gives another hand: it is taken, and the
  reading says so in ``corrections`` and ``notes`` (never silently);
- several close ones: a question whose choices are those hands (the page asks it);
- none: the reading as it was.

A re-reading's likelihood is the product, over the tiles it changes, of the alternative's confidence over
the tile's own. "Winning hand" means a standard shape (the melds plus standing tiles that split into sets
and a pair), seven pairs or thirteen orphans: a rule set's rarer special hands are not tried for, so such a
hand read right is left as it is unless a tile of it was unsure and a re-reading makes a standard shape.
Detections without alternatives (true boxes, an older detector) are never re-read.

Two tiles read as one flower or season (the grouping leaves the less sure copy out: a set has one of each)
are a misreading too: re-readings are tried as above, and one settles it when a copy is read as a flower or
season the hand lacks (reading it as a suit tile, which would then be left out as lying apart, only hides it).

``ask_about_flowers``: a flower or season of the hand whose next reading as one the hand lacks is at least
``UNSURE_FLOWER_RATIO`` as likely as its own (``flower-reading-N``: which one it is), that is fainter than
``vision.photo_reading.FLOWER_FLOOR`` (a box under the detector's threshold, stop 52), or whose face the detector could
not tell (``Detection.unsure_face``, stop 54), is asked about (those two: which one it is, or none; a box the detector
was sure of is a tile, and on the held-out hands all 18 such unsure readings were flowers of the hand, stop 57): a
misread flower was the commonest silent error of the held-out hands, and its reading was nearly always unsure
(stop 28, docs/grouping.md). A tile lying apart from the hand is ignored as a stray tile; when its next reading
is a flower or season at least ``STRAY_FLOWER_RATIO`` as likely as its first (and the hand has no such flower
yet), question ``flower-N`` asks whether it is that flower (flowers lie apart, and they score). A second copy
of a flower that no re-reading settles is asked about too (``flower-N``: which flower or season it is, or
none), unless a question ``tile-reading`` already offers the re-readings that settle it.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, replace
from typing import Any, Callable, Iterator

from scorer.hand import Hand
from scorer.shapes import counts_of, has_regular, is_seven_pairs, is_thirteen_orphans
from scorer.tiles import BONUS_TILES
from vision.classes import class_code
from vision.detections import Detections

MIN_RATIO = 0.03
"""An alternative is tried when its confidence is at least this share of the tile's own reading."""
SINGLES = 12
"""At most this many single re-readings are tried (the likeliest) ..."""
PAIRS_FROM = 6
"""... and pairs of re-readings of two tiles among the likeliest this many, when their product reaches MIN_RATIO."""
MARGIN = 3.0
"""A re-reading is taken without asking when it is this many times likelier than any that gives another hand (4 from
stop 13 to stop 49; stop 50, on round 30's readings of the held-out seeds: chosen on seeds 10, 12, 17 and 18, 668
hands exact against 666 and 24 wrong as before; then seeds 19-22 660 against 658, 27 wrong as before; the
training-style seed 11 the same; 2 took one more exact hand and one more wrong on 19-22)."""
DROP_BELOW = 0.5
"""A detection may be taken for no tile at all (a box on the table, a finger, a box astride two tiles) when its
evidence of being a tile, its confidence plus its alternatives' (each the localiser's score times a class's
probability), is below this. Such a drop is a re-reading like the others: its likelihood ratio is the evidence
against a tile over the evidence for one, (1 - e) / e."""
DROPS = 3
"""At most this many detections (the least likely tiles) are tried as no tile, beside the re-readings."""
NO_TILE_CODE = "none"
"""What a detection taken for no tile is taken as (``Correction.taken_as``): the classifier's class for it."""
STRAY_FLOWER_RATIO = 0.2
"""A stray tile is asked about when a flower's reading is at least this share of its first reading's confidence."""
UNSURE_FLOWER_RATIO = 0.6
"""A flower or season of the hand is asked about when its next reading as a flower or season the hand lacks is at
least this share of its own reading's confidence (chosen at stop 28 on the held-out seeds 10, 12, 17 and 18 and the
training-style seed 11: 0.5 asked about 3 more right hands of seed 11 and caught no more of its wrong ones)."""


@dataclass(frozen=True, slots=True)
class Correction:
    """A tile read again: detection ``detection`` was read as ``read_as`` and is taken as ``taken_as``, whose
    confidence was ``ratio`` times the first reading's."""

    detection: int
    read_as: str
    taken_as: str
    ratio: float

    def to_dict(self) -> dict[str, Any]:
        return {"detection": self.detection, "read_as": self.read_as, "taken_as": self.taken_as,
                "ratio": round(self.ratio, 4)}

    @property
    def dropped(self) -> bool:
        """Whether the detection was taken for no tile (not read as another)."""
        return self.taken_as == NO_TILE_CODE

    def describe(self) -> str:
        return f"{self.read_as} taken for no tile" if self.dropped else f"{self.read_as} read as {self.taken_as}"


def is_winning_shape(hand: Hand) -> bool:
    """Whether the standing tiles (the winning tile among them) and the melds make a winning hand: sets and a
    pair, or, with no melds, seven pairs or thirteen orphans.

    >>> from scorer.notation import group_tiles
    >>> is_winning_shape(Hand(tuple(group_tiles("123m456m789m111p22p")), winning_tile=group_tiles("2p")[0]))
    True
    >>> is_winning_shape(Hand(tuple(group_tiles("123m456m789m111p29p")), winning_tile=group_tiles("2p")[0]))
    False
    """
    if hand.winning_tile is None:
        return False
    counts = counts_of(hand.concealed)
    if has_regular(counts, 4 - len(hand.melds)):
        return True
    return not hand.melds and (is_seven_pairs(counts) or is_thirteen_orphans(counts))


def _misread(question: Any) -> bool:
    """A question a misread tile would raise: the tiles make no hand, or a group lying like a meld forms none."""
    return question.id == "hand" or question.id.startswith("meld-")


def second_flowers(reading: Any) -> list[Any]:
    """The tiles the reading ignored as a second copy of a flower or season (``Ignored``): a set has one of
    each, so one of the two copies is misread."""
    from vision.grouping import ONE_OF_EACH

    return [ignored for ignored in reading.ignored if ignored.reason.endswith(ONE_OF_EACH)]


def needs_repair(reading: Any) -> bool:
    """The reading's tiles make no hand (its question "hand"), a group lies like a meld but forms none
    ("meld-N"), the hand has no winning shape, two tiles were read as one flower, or the winning tile is asked
    ("winning-tile") and no choice makes a winning hand (the pair of a four-meld hand with one tile misread)."""
    if any(_misread(q) or _no_winning_choice(q) for q in reading.questions) or second_flowers(reading):
        return True
    return reading.hand is not None and not is_winning_shape(reading.hand)


def _no_winning_choice(question: Any) -> bool:
    """A question "winning-tile" none of whose choices makes a winning hand: whichever tile won, the tiles as read
    make none, so one is misread."""
    return question.id == "winning-tile" and not any(
        choice.hand is not None and is_winning_shape(choice.hand) for choice in question.choices)


def asks_for_a_tile(reading: Any) -> bool:
    """Whether the reading asks what a tile the photo does not show (or one misread) would answer: the tiles make no
    hand (``hand``), a group lying like a meld forms none (``meld-N``), or no winning tile lies apart
    (``winning-tile``). Not the questions about a tile's reading (a flower, a claim, tiles that look alike)."""
    return any(_misread(q) or q.id == "winning-tile" for q in reading.questions)


def lacks_a_tile(reading: Any) -> bool:
    """Whether the hand as read may lack a tile (or hold one wrongly): no hand, no winning shape, or a question
    ``asks_for_a_tile``. The grouping then reads boxes set aside as lying on another as tiles of their own, and
    ``vision.photo_reading`` tries boxes under the detector's threshold."""
    return reading.hand is None or needs_repair(reading) or asks_for_a_tile(reading)


def _fixed(reading: Any) -> bool:
    return reading.hand is not None and not any(_misread(q) for q in reading.questions) \
        and is_winning_shape(reading.hand) and not second_flowers(reading)


def repair(detections: Detections, reading: Any, read: Callable[[Detections, frozenset[int]], Any]) -> Any:
    """``reading`` (of ``detections``, by ``read``), or the likeliest re-reading of unsure tiles whose layout
    makes a winning hand (taken, or asked about: see the module's doc). ``read(detections, dropped)`` reads a
    layout with the detections ``dropped`` (indices) taken for no tile."""
    if not needs_repair(reading):
        return reading
    tiles = detections.tiles
    every = sorted(((alt_conf / tile.confidence, i, code) for i, tile in enumerate(tiles) if tile.confidence > 0
                    for code, alt_conf in tile.alternatives if alt_conf >= MIN_RATIO * tile.confidence),
                   key=lambda s: -s[0])
    rereadings = every[:SINGLES]
    drops = _drops(detections)  # apart from the re-readings, so that they never crowd one out
    singles = sorted(rereadings + drops, key=lambda s: -s[0])
    if not singles:
        return reading
    # each change is (detection, code, its ratio); a re-reading's likelihood is the product of its ratios
    # a second copy of a flower is settled by reading a copy as a flower the hand lacks, not by reading it as
    # a suit tile that is then left out as lying apart (that only hides the copy): fewer tiles must be left out
    left_out = len(reading.ignored) if second_flowers(reading) else None
    found: dict[Hand, tuple[float, tuple[tuple[float, int, Any], ...], Any]] = {}
    fixing: set[tuple[float, int, Any]] = set()  # single re-readings that make a winning hand on their own
    tries = _tries(len(tiles))

    def attempt(likelihood: float, changes: tuple[tuple[float, int, Any], ...]) -> bool:
        nonlocal tries
        if tries <= 0:  # the likeliest re-readings come first: what the budget cuts is the least likely
            return False
        tries -= 1
        changed = list(tiles)
        for _, i, code in changes:
            if code is not None:
                changed[i] = replace(tiles[i], code=code, alternatives=())
        dropped = frozenset(i for _, i, code in changes if code is None)
        reread = read(Detections(detections.width, detections.height, tuple(changed)), dropped)
        if not _fixed(reread) or (left_out is not None and len(reread.ignored) >= left_out):
            return False
        if reread.hand not in found or found[reread.hand][0] < likelihood:
            found[reread.hand] = (likelihood, changes, reread)
        return True

    for single in singles:
        if attempt(single[0], (single,)):
            fixing.add(single)
    # two tiles at once, but never a single fix plus a needless change (a flower read again beside it would
    # give another hand, just as likely, and turn a clear answer into a question)
    for first, second in itertools.combinations(sorted(rereadings[:PAIRS_FROM] + drops, key=lambda s: -s[0]), 2):
        if first[1] != second[1] and first[0] * second[0] >= MIN_RATIO and not {first, second} & fixing:
            attempt(first[0] * second[0], (first, second))
    for likelihood, alike in _alike_rereadings(tiles, every):
        if not set(alike) & fixing:
            attempt(likelihood, alike)
    if not found:
        return reading
    ranked = sorted(found.values(), key=lambda f: -f[0])

    def corrections(entry) -> tuple[Correction, ...]:
        return tuple(Correction(i, tiles[i].code_str, NO_TILE_CODE if code is None else class_code(code), ratio)
                     for ratio, i, code in entry[1])

    best = ranked[0]
    if len(ranked) == 1 or best[0] >= MARGIN * ranked[1][0]:
        fixes = corrections(best)
        note = ("The tiles as read made no winning hand; the likeliest re-reading that does was taken: "
                + "; ".join(f"detection {c.detection}: {c.describe()}" for c in fixes) + ".")
        return replace(best[2], corrections=fixes, notes=best[2].notes + (note,))
    from vision.grouping import Choice, Question

    choices, labels = [], set()
    for entry in ranked[:4]:
        label = ", ".join(c.describe() for c in corrections(entry))
        while label in labels:
            label += " (another)"
        labels.add(label)
        choices.append(Choice(label, entry[2].hand))
    question = Question("tile-reading", "The tiles as read make no winning hand, and more than one re-reading of "
                                        "unsure tiles does: which is right?", tuple(choices))
    # each choice is a whole hand: it answers them
    kept = tuple(q for q in reading.questions if not (_misread(q) or _no_winning_choice(q)))
    return replace(reading, questions=kept + (question,))


REREAD_WORK = 4000
"""At most this many detections regrouped in all by one repair (``_tries``): each re-reading groups every detection of
the photo again, at a cost that grows faster than their count, so a photo of many tiles gets fewer re-readings. A hand
photo's (real val: 55 detections at most; the held-out meld scenes: 24) get all of theirs (up to 59: ``SINGLES``,
``DROPS``, the pairs among ``PAIRS_FROM`` and ``ALIKE_TRIES``), while 400 tiles in rows of random faces with random
next readings (the server's cap, ``server.scanning``) took 27-30 s to group before the bound (59 re-readings; stop 56,
``runs/s56/big_group.py``)."""


def _tries(detections: int) -> int:
    """How many re-readings one repair may try for a photo of this many detections (``REREAD_WORK``).

    >>> _tries(40), _tries(60), _tries(150), _tries(400), _tries(0)
    (100, 66, 26, 10, 4000)
    """
    return REREAD_WORK // max(detections, 1)


ALIKE_FROM = 3
"""Copies of one face read again together as another (``_alike_rereadings``): at least this many ..."""
ALIKE_UP_TO = 4
"""... and at most this many: a set holds four copies of each face, so no more can be read again as one. (Without
the bound, a photo of many hands, where a face is read on a dozen tiles, was regrouped once for every count of its
copies: 102 tiles took 7.8 s, stop 55.)"""
ALIKE_TRIES = 8
"""At most this many such re-readings are tried, the likeliest first (each regroups the photo: a reading sent to
the server with hundreds of tiles and next readings must not cost minutes)."""


def _alike_rereadings(tiles: tuple[Any, ...], rereadings: list[tuple[float, int, Any]]
                      ) -> list[tuple[float, tuple[tuple[float, int, Any], ...]]]:
    """Copies of one face misread alike (the detector reads look-alikes together, stop 33): for each face read on
    ``ALIKE_FROM`` or more tiles and a next reading they share, those copies read again as it, the likeliest
    ``ALIKE_FROM`` first, then each further one up to ``ALIKE_UP_TO``; each a tuple of changes (ratio, detection,
    code) with its likelihood (the product of their ratios); the ``ALIKE_TRIES`` likeliest of them.
    ``rereadings``: every single re-reading ``repair`` may try, likeliest first."""
    by_face: dict[tuple[Any, Any], list[tuple[float, int, Any]]] = {}
    for change in rereadings:
        by_face.setdefault((tiles[change[1]].code, change[2]), []).append(change)
    tries = [(math.prod(ratio for ratio, _, _ in changes[:n]), tuple(changes[:n])) for changes in by_face.values()
             for n in range(ALIKE_FROM, min(len(changes), ALIKE_UP_TO) + 1)]
    return sorted(tries, key=lambda entry: -entry[0])[:ALIKE_TRIES]


def _drops(detections: Detections) -> list[tuple[float, int, None]]:
    """The detections that may be no tile at all (``DROP_BELOW``), each as a change (ratio, detection, None)."""
    drops = []
    for i, tile in enumerate(detections.tiles):
        evidence = tile.confidence + sum(confidence for _, confidence in tile.alternatives)
        if 0 < evidence < DROP_BELOW:  # so its ratio is over 1, far above MIN_RATIO
            drops.append(((1 - evidence) / evidence, i, None))
    return sorted(drops, key=lambda s: -s[0])[:DROPS]


def _lacking_flowers(tile: Any, have: set[Any]) -> tuple[dict[Any, float], list[Any]]:
    """The flowers and seasons among ``tile``'s next readings that the hand (``have``) lacks, with their
    confidences; and every flower and season the hand lacks, the likeliest of those readings first."""
    likely = {code: confidence for code, confidence in tile.alternatives
              if code != "back" and code.is_bonus and code not in have}
    return likely, sorted((code for code in BONUS_TILES if code not in have), key=lambda c: (-likely.get(c, 0.0), c))


def _unsure_flowers(detections: Detections, reading: Any) -> Iterator[Any]:
    """A question ``flower-reading-N`` for each flower or season of the hand whose next reading as another the
    hand lacks is at least ``UNSURE_FLOWER_RATIO`` as likely, and for each one fainter than
    ``vision.photo_reading.FLOWER_FLOOR`` (a box under the detector's threshold taken as a flower the hand lacked,
    stop 52): its reading first, then the flowers and seasons the hand lacks (the likeliest first), then none (but for
    a box the detector was sure of, read surely as some flower or season: which one is asked, not whether). A tile
    repair read again is left alone (its note says so)."""
    from vision.grouping import FLOWER_READING, NOT_A_FLOWER, Choice, Question
    from vision.photo_reading import FLOWER_FLOOR

    have = set(reading.hand.flowers)
    corrected = {correction.detection for correction in reading.corrections}
    for evidence in reading.tiles:
        if evidence.group != "flower" or evidence.detection in corrected:
            continue
        tile = detections.tiles[evidence.detection]
        likely, lacking = _lacking_flowers(tile, have)
        kind = "season" if tile.code.is_season else "flower"
        qid = f"{FLOWER_READING}{evidence.detection}"
        choices = (Choice(tile.code_str),) + tuple(Choice(code.code) for code in lacking) + (Choice(NOT_A_FLOWER),)
        if 0 < tile.confidence < FLOWER_FLOOR:  # a faint box taken as a flower (vision.photo_reading): always asked
            yield Question(qid, f"A faint tile (confidence {tile.confidence:.2f}, under the detector's threshold) was "
                                f"read as the {kind} {tile.code_str}: is it that {kind}, another, or no tile of the hand?",
                           choices)
            continue
        if tile.unsure_face:  # the detector's guess at a face it could not tell (stop 54): always asked
            yield Question(qid, f"A tile the detector could not read surely was taken for the {kind} {tile.code_str}, "
                                f"its best guess: is it that {kind}, another, or no tile of the hand?", choices)
            continue
        if tile.confidence <= 0 or not likely or max(likely.values()) < UNSURE_FLOWER_RATIO * tile.confidence:
            continue
        best = lacking[0]
        # a box the detector was sure of, read surely as some flower or season: which one, not whether
        yield Question(qid, f"A tile was read as the {kind} {tile.code_str}, but it may be the "
                            f"{'season' if best.is_season else 'flower'} {best.code} "
                            f"({likely[best] / tile.confidence:.0%} as likely): which is it?", choices[:-1])


def ask_about_flowers(detections: Detections, reading: Any) -> Any:
    """``reading`` with a question ``flower-reading-N`` for each unsure flower or season of the hand
    (``_unsure_flowers``), and ``flower-N`` for each tile lying apart (ignored as a stray tile) that may be a
    flower or season the hand lacks (see the module's doc); choices ``yes, <code>`` and ``no``. And for each
    second copy of a flower or season left (re-reading found no better reading of it): which one it is, the
    flowers and seasons the hand lacks as choices (its own next readings first), or none."""
    from vision.grouping import APART, NOT_A_FLOWER, Choice, Question

    if reading.hand is None:
        return reading
    have = set(reading.hand.flowers)
    asked = list(_unsure_flowers(detections, reading))
    # a question "tile-reading" already offers re-readings that settle a second copy
    settled = any(q.id == "tile-reading" for q in reading.questions)
    for ignored in () if settled else second_flowers(reading):
        tile = detections.tiles[ignored.detection]
        _, lacking = _lacking_flowers(tile, have)
        asked.append(Question(
            f"flower-{ignored.detection}",
            f"Two tiles were read as {tile.code_str}, and a set has one of each flower and season: which is the "
            f"less sure one?", tuple(Choice(code.code) for code in lacking) + (Choice(NOT_A_FLOWER),)))
    for ignored in reading.ignored:
        tile = detections.tiles[ignored.detection]
        if ignored.reason != APART or tile.is_back or tile.confidence <= 0:
            continue
        for code, confidence in tile.alternatives:
            if code != "back" and code.is_bonus and code not in have \
                    and confidence >= STRAY_FLOWER_RATIO * tile.confidence:
                have.add(code)
                asked.append(Question(
                    f"flower-{ignored.detection}",
                    f"A tile lying apart from the hand was read as {tile.code_str} and left out, but it may be the "
                    f"{'season' if code.is_season else 'flower'} {code.code}: is it?",
                    (Choice(f"yes, {code.code}"), Choice(NOT_A_FLOWER))))
                break
    return replace(reading, questions=reading.questions + tuple(asked)) if asked else reading
