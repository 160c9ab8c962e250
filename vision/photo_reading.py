"""From a photo to a hand: detect, group, and when the hand as read lacks a tile, a box under the threshold.

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

from dataclasses import replace
from typing import Any, Sequence

from vision.detections import Detection, Detections
from vision.grouping import Reading, group
from vision.repair import MIN_RATIO, is_winning_shape, lacks_a_tile


def _clean(reading: Reading) -> bool:
    """A winning hand with nothing asked and no tile read again."""
    return reading.hand is not None and not reading.questions and not reading.corrections \
        and is_winning_shape(reading.hand)


def complete_with(detections: Detections, reading: Reading, candidates: Sequence[Detection]
                  ) -> tuple[Detections, Reading] | None:
    """The detections with one of ``candidates`` (boxes under the threshold) added as a tile, and their reading,
    when exactly one hand comes of it (see the module's doc); else None. The added tile is the last detection."""
    if not candidates or not lacks_a_tile(reading):
        return None
    found: dict[Any, tuple[float, Detections, Reading]] = {}
    for candidate in candidates:
        readings = [(candidate.code, candidate.confidence)] + [
            (code, confidence) for code, confidence in candidate.alternatives
            if confidence >= MIN_RATIO * candidate.confidence]
        for code, confidence in readings:
            tile = candidate if code == candidate.code else replace(candidate, code=code, confidence=confidence,
                                                                    alternatives=())
            completed = replace(detections, tiles=detections.tiles + (tile,))
            # only a reading with no tile read again is taken (``_clean``), so the tiles are not read again here
            again = group(completed, reread=False)
            if _clean(again) and (again.hand not in found or found[again.hand][0] < confidence):
                found[again.hand] = (confidence, completed, again)
    if len(found) != 1:
        return None
    ((_, completed, again),) = found.values()
    index = len(completed.tiles) - 1
    tile = completed.tiles[index]
    note = (f"Detection {index} ({tile.code_str}, confidence {tile.confidence:.2f}) lay under the detector's "
            "threshold; the hand lacked a tile, and with it the layout makes a winning hand, so it was taken as one.")
    return completed, replace(again, notes=again.notes + (note,))


def read_photo(detector: Any, photo: Any, detections: Detections | None = None) -> tuple[Detections, Reading]:
    """The detections of ``photo`` (a path, bytes, a PIL image or an array) and the hand they make (see the
    module's doc). ``detector``: a ``vision.detector.Detector``; ``detections``: its ``detect(photo)``, when
    already known."""
    detections = detector.detect(photo) if detections is None else detections
    reading = group(detections)
    if not lacks_a_tile(reading):
        return detections, reading
    completed = complete_with(detections, reading, detector.unsure_boxes(photo, detections))
    return completed if completed is not None else (detections, reading)
