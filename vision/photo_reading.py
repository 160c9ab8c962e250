"""From a photo to a hand: detect, group, and when the hand as read lacks a tile or a flower, a box under the threshold.

``read_photo(detector, photo) -> (detections, reading)`` is what ``mjscan read``, ``mjscan scan``, the page's
``/api/scan`` and ``mjscan eval-grouping --detector`` run. It is ``group(detector.detect(photo))``, and one step
more. The detector reports the boxes whose confidence reaches its threshold (0.25); a tile it found faintly, or
named unsurely, falls under it, and the hand is then a tile short: the tiles make no hand (question ``hand``), a
group lying like a meld forms none (``meld-N``), or no winning tile lies apart (``winning-tile``). Then the photo is
read again down to ``vision.detector.UNSURE_FLOOR`` (``Detector.unsure_boxes``: the boxes under the threshold that
overlap no reported tile). Each such box is tried as a tile, as read and as each of its next readings at least
``vision.repair.MIN_RATIO`` as likely (``complete_with``). It is taken when exactly one hand results that the
layout reads as a winning hand with no question and no other tile read again; the detections answered then hold
it as a tile (at its own confidence, under the threshold) and the reading says so in a note. Grouping those
detections again gives the same hand, so the page's answers (``server.scanning.answer_detection``) still add up.

Measured at stop 32 (``docs/grouping.md``) on the held-out meld scenes, seeds 10, 12, 17 and 18: 640 -> 646 hands
of 800 read exactly, no new wrong answer. A looser rule that also let ``vision.repair`` read another tile again
beside the box completed 11 but read 3 hands wrong without a question, so it was not kept.

Since stop 53, where no one box makes any such hand, two boxes together are tried, then three (``MOST_BOXES``), each
as its first reading only: a hand two or three tiles short (a pair's copies in a steep view, a kong's face-down ends).
And a completed reading may still ask about its flowers or its direction (``SIDE_QUESTIONS``), which leave its tiles
as they are. On the eight held-out seeds (stop 51's cached detector answers) that read 1,322 hands of 1,600 exactly
against 1,318, 38 wrong as before, and 2 more asked hands offer the true hand; seed 11 is unchanged. It costs a photo that
lacks a tile 19 -> 31 ms on average and 146 -> 286 ms at most (seed 10's 29 such photos; seed 22's 26: 13 -> 18, at
most 61 -> 100 ms), the grouping alone.

Since stop 54, a small photo (read whole, not in windows) whose reading still asks what a missing tile would answer
(``vision.repair.asks_for_a_tile``: ``hand``, ``meld-N``, ``winning-tile``) and whose tiles look small (``vision.detector.CLOSER_BELOW``)
is read again enlarged twice, in windows (``Detector.detect_closer``), and that reading is taken when it is a winning
hand with no question (``read_closer``; a note says so). On the eight held-out seeds that read 1,337 hands of 1,600
exactly against 1,322 and 39 wrong against 38; it costs such a photo 0.66 -> 1.15 s at the median (docs/grouping.md,
"Stop 54").

A flower or season the detector named under its threshold is lost silently: a finished hand needs no flower to be
a winning one. So since stop 36 the boxes under the threshold are asked for on every photo that makes a hand, and
one read as a flower the hand lacks, at ``FLOWER_FLOOR`` or more, is taken (``with_unsure_flowers``), when nothing
but the flowers changes. On the nine rendered sets of stop 36 (1,800 photos) that made 2 silently wrong hands exact
and 2 more asked about (their flower's reading unsure), and no hand worse. The cost is the second reading of the
photo: ``read_photo`` took 340 -> 629 ms a 1280-pixel photo on two cores (20 photos of seed 22), and a 12-megapixel
photo's second reading 230 ms (its first 243 ms); ``Detector.detect`` is unchanged. Since stop 52 a box read so under
``FLOWER_FLOOR`` but at ``FAINT_FLOWER_FLOOR`` or more is added too, and the grouping asks about it (a faint flower is
asked whatever its next readings, ``vision.repair.ask_about_flowers``): on the eight held-out sets that turned 5
hands silently one flower short into questions, and asked about 1 read right.
Since stop 50 the detector keeps the photo's decoding and its localiser's answers between the two readings
(``Detector.remembering``), so the second reading only names its boxes: ``python bench/read.py --sizes 1 12 --data
../shared/data/real-photos/val data/group-seed10 --limit 30`` measured 0.71 of the time on 30 real val photos (377
against 531 ms at the median), 0.84 on 30 held-out meld scenes (555 against 660 ms), 0.77 at 1 MP and 0.71 at 12 MP
(478 against 675 ms), with the same detections and reading for every photo.

>>> from vision.detections import Detection
>>> from scorer.tiles import Tile
>>> row = [Detection(Tile.parse(c), (100 + 42 * i, 300, 140 + 42 * i, 356), 0.9)
...        for i, c in enumerate("1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z 5z 5z".split())]
>>> short = Detections(1200, 800, tuple(row))          # the winning tile, set apart, was not reported
>>> reading = group(short)
>>> lacks_a_tile(reading)
True
>>> faint = Detection(Tile.parse("1z"), (100 + 42 * 13 + 20, 300, 140 + 42 * 13 + 20, 356), 0.12)
>>> detections, completed = complete_with(short, reading, (faint,))
>>> len(detections.tiles), completed.hand.winning_tile.code, completed.questions
(14, '1z', ())
"""

from __future__ import annotations

import contextlib
import itertools
import math
from dataclasses import replace
from typing import Any, Sequence

from vision.detections import Detection, Detections
from vision.grouping import Reading, group
from vision.photo_advice import advise
from vision.repair import MIN_RATIO, asks_for_a_tile, is_winning_shape, lacks_a_tile


CLOSER_NAME = "twice its size, in windows"
"""How ``read_closer``'s note names the second look (``vision.detector.CLOSER_ZOOM``)."""

SIDE_QUESTIONS = ("flower-", "direction")
"""Questions a completed reading may still ask: about its flowers, or which way it reads (whose discard a meld
claimed). They leave its standing tiles and melds as they are, so the hand the boxes complete is still the one hand
they make, and the page asks them after (stop 53: on the held-out seeds 2 more hands offer the true hand, none read
wrong)."""


def _clean(reading: Reading) -> bool:
    """A winning hand with no tile read again, and nothing asked but ``SIDE_QUESTIONS``."""
    return reading.hand is not None and not reading.corrections and is_winning_shape(reading.hand) \
        and all(q.id.startswith(SIDE_QUESTIONS) for q in reading.questions)


MOST_BOXES = 3
"""At most this many boxes under the threshold are taken together where no one box completes the hand (a hand two or
three tiles short: a pair's two copies in a steep view, a kong's two face-down ends). Stop 53, on the eight held-out
seeds from stop 51's cached detector answers: one box 1,318 hands exact and 38 wrong; up to two 1,321 and 38; up to
three 1,322 and 38 (two boxes each tried as two readings: 1,320 and 39, seed 22's 000184 read wrong)."""
TOGETHER_READINGS = 1
"""A box taken with others is tried as its first ``TOGETHER_READINGS`` readings (at least ``MIN_RATIO`` as likely)."""


def _box_readings(candidate: Detection, most: int | None = None) -> list[Detection]:
    """The box as each of its readings at least ``MIN_RATIO`` as likely as its first (the likeliest ``most``)."""
    readings = [(candidate.code, candidate.confidence)] + [
        (code, confidence) for code, confidence in candidate.alternatives
        if confidence >= MIN_RATIO * candidate.confidence]
    return [candidate if code == candidate.code else replace(candidate, code=code, confidence=confidence,
                                                            alternatives=())
            for code, confidence in readings[:most]]


def complete_with(detections: Detections, reading: Reading, candidates: Sequence[Detection]
                  ) -> tuple[Detections, Reading] | None:
    """The detections with ``candidates`` (boxes under the threshold) added as tiles, and their reading, when
    exactly one hand comes of it (see the module's doc); else None. One box is tried first, as each of its readings;
    where no one box makes any clean hand, two together, then three (``MOST_BOXES``), each as its first reading
    (``TOGETHER_READINGS``). The added tiles are the last detections."""
    if not candidates or not lacks_a_tile(reading):
        return None
    for count in range(1, MOST_BOXES + 1):
        found: dict[Any, tuple[float, Detections]] = {}  # each clean hand: its likeliest boxes' detections
        for boxes in itertools.combinations(candidates, count):
            options = [_box_readings(box, None if count == 1 else TOGETHER_READINGS) for box in boxes]
            for tiles in itertools.product(*options):
                completed = replace(detections, tiles=detections.tiles + tiles)
                # only a reading with no tile read again is taken (``_clean``), so the tiles are not read again here
                again = group(completed, reread=False)
                likelihood = math.prod(tile.confidence for tile in tiles)
                if _clean(again) and (again.hand not in found or found[again.hand][0] < likelihood):
                    found[again.hand] = (likelihood, completed)
        if len(found) > 1:
            return None  # several hands: the photo does not say which
        if found:
            break
    if not found:
        return None
    ((_, completed),) = found.values()
    # read as the page's answers will group it again (``server.scanning.answer_detection``): with the check of alike
    # tiles, which a reading with no tile read again skips
    again = group(completed)
    first = len(detections.tiles)
    added = completed.tiles[first:]
    if len(added) == 1:
        note = (f"Detection {first} ({added[0].code_str}, confidence {added[0].confidence:.2f}) lay under the "
                "detector's threshold; the hand lacked a tile, and with it the layout makes a winning hand, so it was "
                "taken as one.")
    else:
        taken = ", ".join(f"{first + n} ({tile.code_str}, confidence {tile.confidence:.2f})"
                          for n, tile in enumerate(added))
        note = (f"Detections {taken} lay under the detector's threshold; the hand lacked {len(added)} tiles, and "
                "with them (and with no fewer) the layout makes a winning hand, so they were taken as tiles.")
    return completed, replace(again, notes=again.notes + (note,))


FLOWER_FLOOR = 0.18
"""A box under the detector's threshold read as a flower or season the hand lacks, at this confidence or more, is
taken as that flower (``with_unsure_flowers``). Measured at stop 36 on the nine rendered sets (seeds 10-12, 17-22,
1,800 photos; the detector's answers cached): of the boxes read so at 0.18 or more, 5 were that flower, 1 another
flower (seed 20's 000108, a 4f read 7f at 0.19, asked about then: its 4f is 0.68 as likely) and none a stray box; from
0.15 two stray boxes come in (seed 17's 000122 at 0.15, seed 22's 000076 at 0.16) and two more flowers, one misread."""


FAINT_FLOWER_FLOOR = 0.12
"""A box read as a flower or season the hand lacks under ``FLOWER_FLOOR`` but at this confidence or more is added too,
and the grouping asks about it (``flower-reading-N``, ``vision.repair.ask_about_flowers``: which flower or season it
is, or none): taken silently it would be a stray box as often as a flower, and left out a flower lost silently."""


FLOWER_QUESTION = "flower-"
"""The start of the ids of the questions about flowers (``flower-N``, ``flower-reading-N``)."""


def _without_flowers(hand: Any) -> Any:
    return replace(hand, flowers=())


def with_unsure_flowers(detections: Detections, reading: Reading, candidates: Sequence[Detection]
                        ) -> tuple[Detections, Reading] | None:
    """The detections with each box of ``candidates`` (boxes under the threshold) read as a flower or season that the
    hand lacks at ``FLOWER_FLOOR`` or more (the likeliest box of each) added, and their reading; None when there is no
    such box, or when the hand, its melds or its questions other than the flowers' would change.

    A finished hand needs no flower to be a winning one, so a flower the detector named unsurely is lost silently:
    the hand is read, one flower short, and scored so. The flowers lie apart from the hand, so taking one changes
    nothing else; where its reading is unsure against another flower the hand lacks, the grouping asks, as for every
    flower (``vision.repair.ask_about_flowers``)."""
    if reading.hand is None:
        return None
    have = set(reading.hand.flowers)
    boxes = {tile.box for tile in detections.tiles}
    best: dict[Any, Detection] = {}
    for candidate in candidates:
        code = candidate.code
        if candidate.is_back or not code.is_bonus or code in have or candidate.confidence < FAINT_FLOWER_FLOOR \
                or candidate.box in boxes:  # a box rule 13 already took as a tile
            continue
        if code not in best or best[code].confidence < candidate.confidence:
            best[code] = candidate
    if not best:
        return None
    added = tuple(sorted(best.values(), key=lambda tile: -tile.confidence))
    completed = replace(detections, tiles=detections.tiles + added)
    again = group(completed)
    others = lambda r: sorted(q.id for q in r.questions if not q.id.startswith(FLOWER_QUESTION))  # noqa: E731
    if again.hand is None or _without_flowers(again.hand) != _without_flowers(reading.hand) \
            or others(again) != others(reading) or len(again.hand.flowers) != len(reading.hand.flowers) + len(added):
        return None
    first = len(detections.tiles)
    taken = ", ".join(f"{first + n} ({tile.code_str}, confidence {tile.confidence:.2f})" for n, tile in enumerate(added))
    note = (f"Detection{'s' if len(added) > 1 else ''} {taken} lay under the detector's threshold, read as "
            f"{'flowers or seasons' if len(added) > 1 else 'a flower or season'} the hand lacks, so "
            f"{'they were' if len(added) > 1 else 'it was'} taken as such.")
    return completed, replace(again, notes=again.notes + (note,))


def read_photo(detector: Any, photo: Any, detections: Detections | None = None) -> tuple[Detections, Reading]:
    """The detections of ``photo`` (a path, bytes, a PIL image or an array) and the hand they make (see the
    module's doc). ``detector``: a ``vision.detector.Detector``; ``detections``: its ``detect(photo)``, when
    already known."""
    # the photo is read twice (its boxes under the threshold are asked for on every photo): the detector keeps its
    # decoding and its localiser's answers between the two where it can (``Detector.remembering``)
    remembering = getattr(detector, "remembering", None)
    with remembering() if remembering is not None else contextlib.nullcontext():
        detections = detector.detect(photo) if detections is None else detections
        reading = group(detections)
        unsure = detector.unsure_boxes(photo, detections)
        if lacks_a_tile(reading):
            completed = complete_with(detections, reading, unsure)
            if completed is not None:
                detections, reading = completed
        closer = read_closer(detector, photo, detections, reading)
        if closer is not None:
            detections, reading = closer
        else:
            flowered = with_unsure_flowers(detections, reading, unsure)
            if flowered is not None:
                detections, reading = flowered
        return detections, with_advice(detector, photo, detections, reading)


def with_advice(detector: Any, photo: Any, detections: Detections, reading: Reading) -> Reading:
    """The reading with how a second photo could be read more surely (``vision.photo_advice``), measured on the
    photo as the detector decoded it; as it was for a detector that does not show its decoding
    (``Detector.picture``)."""
    picture = getattr(detector, "picture", None)
    if picture is None:
        return reading
    return replace(reading, advice=advise(picture(photo), detections))


def read_closer(detector: Any, photo: Any, detections: Detections, reading: Reading
                ) -> tuple[Detections, Reading] | None:
    """The photo's detections read again enlarged (``Detector.detect_closer``) and their reading, when the reading
    ``asks_for_a_tile`` and the enlarged photo's is a winning hand with no question; else None (a photo big enough
    to be read in windows already, or whose tiles look big enough; a detector that cannot read closer; or no clean
    hand that way). Questions about a tile's reading (a flower, a claim, look-alike tiles) are not a reason: a
    second look at the same tiles would answer them only by chance (stop 54)."""
    look = getattr(detector, "detect_closer", None)
    if look is None or not asks_for_a_tile(reading):
        return None
    found = look(photo, detections)
    if found is None:
        return None
    again = group(found)
    if again.hand is None or again.questions or not is_winning_shape(again.hand):
        return None
    note = ("The hand as first read lacked a tile; the photo was read again enlarged "
            f"({CLOSER_NAME}), and that reading makes a winning hand, so it was taken.")
    return found, replace(again, notes=again.notes + (note,))
