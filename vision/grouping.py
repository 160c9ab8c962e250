"""From detections to a hand: rows, groups, sideways tiles, melds, flowers and the winning tile.

``group(detections) -> Reading``. The reading is geometric: it never looks at the photo, only at the
boxes, their classes and sideways flags, so it works the same on the detector's boxes and on true
boxes (the renderer's sidecars). See docs/grouping.md for the rules. In short:

1. Flowers and seasons are told by their class, wherever they lie (they take part in the grouping, so
   one lying in the standing row leaves no hole in it, and then leave every group).
2. Boxes overlapping strongly with the same code are one stacked place (a kong's fourth tile on top);
   with another code, the less confident box is ignored.
3. The row direction is the dominant direction between each tile and its nearest neighbours (doubled
   angles, so any photo rotation works); each tile also gets a local direction from its neighbours
   along the row, so bent rows are followed.
4. Tiles are linked into tight groups when they sit side by side on one line with a gap under ``GAP``
   of the local tile width. The width is the spacing of the tile and its nearest neighbours on its line
   (so perspective is followed); a sideways tile counts ``SIDEWAYS_LENGTH`` widths.
5. Sideways: the detector's flag, checked against the neighbours in each group of 3 or 4 where the row
   runs near the photo's axes (a box whose long side runs along the row among boxes whose long side runs
   across is sideways; of several flags the clearest is kept). Flags that are implausible (two in a meld,
   none where the geometry marks one, one on a tile lying alone) are dropped, the photo's other flags then
   count only where the geometry bears them out, and a claim the geometry can only guess is asked; a
   photo with no flag at all is read by its geometry alone.
6. Groups with a sideways or face-down tile are melds (fragments that together make one meld are
   mended); the largest plain group is the standing row (split pieces on its line join it; a second row
   beside it joins when the tile count says so); a single tile set apart at one end of it (by its gap,
   by its centre spacing against the row's nearby spacings, or laid flat off the line of a straight
   row) is the winning tile, and that end is the row's right. A lone tile whose spacing follows the
   row's, extrapolated to its end, is one of the row; of a lone tile at each end, that spacing picks one.
7. The reading direction (which way is "right") comes from the winning tile, the chows (claimed from
   the left, so their sideways tile is at the left end), then weak cues (sorted rows, a photo taken from
   the player's side). When it stays ambiguous and a meld's claim depends on it, a question.
8. The hand is validated by building a scorer ``Hand``; anything the layout cannot say becomes a
   question (with whole hands as choices where they follow), never a silent guess.
9. When the tiles as read make no winning hand, unsure tiles are read again with the detector's next
   readings (``vision.repair``): a clearly likeliest re-reading is taken and listed in ``corrections``;
   close ones become a question.
10. When the standing row is sorted by suit and number but for unsure tiles, the re-reading that sorts it
    and makes a winning hand is taken the same way (``vision.row_order``).
11. When a clean winning hand's alike standing tiles (a pair, a pung) could all be another face that makes a
    winning hand too, a question asks which (``vision.alike_tiles``).
12. When the tiles are one short of a hand (the winning tile apart, the melds whole), the question ``hand`` offers
    the tiles one more of which in the standing row makes a winning hand (``vision.missed_tile``).

>>> from vision.detections import Detection, Detections
>>> from scorer.tiles import Tile
>>> row = [Detection(Tile.parse(c), (100 + 42 * i, 300, 140 + 42 * i, 356), 0.9)
...        for i, c in enumerate("1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z 5z 5z".split())]
>>> win = Detection(Tile.parse("5z"), (100 + 42 * 13 + 20, 300, 140 + 42 * 13 + 20, 356), 0.8)
>>> reading = group(Detections(1200, 800, tuple(row) + (win,)))
>>> reading.hand.winning_tile.code, len(reading.hand.concealed), reading.questions
('5z', 14, ())
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Sequence

import numpy as np

from scorer.codec import hand_to_dict, meld_to_dict
from scorer.errors import HandError
from scorer.hand import Hand
from scorer.melds import Direction, Meld, MeldKind
from scorer.tiles import PLAYING_TILES, Tile
from vision.classes import BACK
from vision.detections import Detection, Detections
from vision.repair import is_winning_shape

GAP = 0.16
OVERLAP = 0.7
"""Neighbours' boxes may overlap along the row by this share of a tile (perspective makes faces trapezoids)."""
"""A gap wider than this share of the tile size splits two groups (tight groups: ~0.02; apart: >= 0.3)."""
STACK_OVERLAP = 0.5
"""Two boxes whose intersection covers this share of the smaller one are stacked (or a duplicate)."""
SIDEWAYS_RATIO = 1.09
"""A tile is sideways when its box's along/across ratio is this many times its neighbours' (measured on
rendered melds within 10 degrees of the axes: sideways 1.14-1.89, upright at most 1.04)."""
READABLE_DEGREES = 10.0
"""Rows within this angle of the photo's axes show in their boxes which way each tile lies."""
FIRST_RATIO = 1.3
"""Before grouping, a box this much longer along the row (relative to its line's) than its neighbours is
taken for sideways."""
SPACING_RATIO = 1.08
SPACING_SURE = 1.12
"""A spacing this much wider than a group's narrowest marks a sideways tile beside it ((H+W)/2W, about 1.15)."""
HINT_DEGREES = 25.0
"""Up to this angle the boxes still hint at it (they settle a group where the detector's flags do not)."""
# a lone detector flag on the box whose along/across ratio is this much above the group's others wins over
# the spacing (two kinds of evidence against one)
FLAG_BOX_RATIO = 1.05
# a kong's fourth tile pushed off the sideways one: its centre and the one under it lie at least this far
# apart (in box sizes) across the meld's line (and each a third of that off the line)
ON_TOP_OFFSET = 0.35
# a kong's fourth tile laid beside the sideways one: its centre lies within this share of the sideways tile's
# length along the row (in a steep view a tile laid further from the player shows shifted along a turned row)
BESIDE_ALONG = 0.6
# ... and from this to this share of a tile's width across the row from it. From 0.35, not 0.7 (stop 47): a fourth
# tile laid on the sideways one and pushed half off it overlaps it too little to be one place (STACK_OVERLAP) and
# lies some 0.5 across; it was ignored and the kong read as a pung (held-out seeds 10-22: 1,319 hands of 1,600 exact
# against 1,318, one silent error fewer, nothing else changed; from the true boxes the same)
BESIDE_ACROSS = (0.35, 1.45)
STACKED_TRIES = 4
"""Where the hand lacks a tile, at most this many boxes set aside as lying on another (the most confident first) are
each read as a tile of their own, each a whole reading with its re-readings (``group``): a photo of overlapping boxes
(a heap; random boxes) set aside two dozen, and took 20 s (stop 55)."""
HIDDEN_UNDER_OFFSET = 0.4
"""A pung's end tile whose centre lies this far (in box sizes) across the line through its other two is a kong's
fourth tile, laid on the sideways tile and pushed off it, that hides the sideways tile from the detector
(``_hidden_under``). Measured at stop 55 on the held-out seeds 10-22 (the detector's boxes): of 1,002 ends of pungs
read, none of a true pung lay 0.33 or more off; the seven true kongs read as pungs this way lay 0.47-0.88 off."""
APART = "it lies apart from the concealed row and the melds"
NOT_A_MELD = "it lies in a group that does not form a meld"
"""Why a tile in no group is ignored (``Ignored.reason``); vision.repair asks whether such a tile is a flower."""
NOT_DECLARED = "no, the tiles are concealed (not a declared meld)"
"""The choice of a question ``claim-T`` (a chow or pung shown without a sideways tile) that takes the group's tiles
as concealed ones, laid apart from the row: players often show their concealed sets that way."""
CONCEALED_KONG = "no, it is a concealed kong"
"""The choice of a question ``claim-T`` about a kong shown face up without a sideways tile that makes it concealed."""
NOT_A_FLOWER = "no, it is not part of the hand"
"""The choice of a question ``flower-N`` that leaves the tile out of the hand."""
FLOWER_READING = "flower-reading-"
"""The id prefix of the question about an unsure flower or season of the hand (``vision.repair``; the
detection's index follows): its choices are flowers and seasons, or ``NOT_A_FLOWER``."""
LOOSE_BACK = "a face-down tile among face-up ones where no concealed kong can lie"
BACKS_APART = ("face-down tiles lying apart, fewer than a concealed kong shows: the hand is a winning one without "
               "them")
NO_TILE = "taken for no tile: the tiles make a winning hand without it, and its reading was unsure (vision.repair)"
TILE_TOP = "read as a White dragon, it lies on the top of a standing tile (vision.face_geometry.on_tops)"
"""Why a White dragon is ignored whose box lies on the top edge of another face: a standing tile's blank top, seen
from above, reads as a blank or framed White dragon in art styles the classifier never saw (stop 40)."""
WHITE_DRAGON = Tile.parse("5z")
ONE_OF_EACH = "a set has one of each flower and season"
"""The end of the reason a second copy of a flower or season is ignored with: one of the two is misread, and
vision.repair reads them again or asks."""


# --------------------------------------------------------------------------------------------------
# The answer


@dataclass(frozen=True, slots=True)
class Choice:
    """One answer to a question: a label and, where it follows, the whole hand it gives."""

    label: str
    hand: Hand | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"label": self.label, "hand": hand_to_dict(self.hand) if self.hand is not None else None}


@dataclass(frozen=True, slots=True)
class Question:
    """Something the layout cannot say: ``id`` (stable, for ``--answer ID=CHOICE``), text for the
    player, and the choices (labels, or Choice values carrying a whole hand)."""

    id: str
    text: str
    choices: tuple[Choice, ...] = ()

    def choice(self, label: str) -> Choice | None:
        for choice in self.choices:
            if choice.label == label:
                return choice
        return None

    def pick(self, text: str) -> Choice:
        """The choice a player's answer names: its number from 1, its label, or the start of exactly one label
        (any case). Raises ValueError, naming the choices, for any other answer."""
        text = str(text).strip()
        if text.isdigit() and 1 <= int(text) <= len(self.choices):
            return self.choices[int(text) - 1]
        named = self.choice(text)
        if named is not None:
            return named
        starts = [c for c in self.choices if c.label.lower().startswith(text.lower())] if text else []
        if len(starts) == 1:
            return starts[0]
        raise ValueError(f"{text!r} is not a choice of question {self.id!r}: "
                         + ", ".join(f"{i + 1}) {c.label}" for i, c in enumerate(self.choices)))

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "text": self.text, "choices": [c.to_dict() for c in self.choices]}


@dataclass(frozen=True, slots=True)
class TileEvidence:
    """Which detection (its index in the Detections) became which tile of which group."""

    detection: int
    code: str  # the tile it stands for (a face-down kong tile: the kong's tile, or "back" if unknown)
    group: str  # "concealed", "winning", "meld:N" (N indexes hand.melds), "flower"
    position: int  # its place in the group, in reading order
    confidence: float
    sideways: bool = False
    face_down: bool = False
    on_top: bool = False

    def __post_init__(self) -> None:
        # plain Python values, whatever numpy computed them as: the reading goes out as JSON
        for name in ("detection", "position"):
            value = getattr(self, name)
            if isinstance(value, bool) or int(value) != value or value < 0:
                raise ValueError(f"a tile's {name} must be a whole number from 0, not {value!r}")
            object.__setattr__(self, name, int(value))
        confidence = float(self.confidence)
        if not 0.0 <= confidence <= 1.0:
            raise ValueError(f"a confidence must lie in 0..1, not {self.confidence!r}")
        object.__setattr__(self, "confidence", confidence)
        for name in ("sideways", "face_down", "on_top"):
            object.__setattr__(self, name, bool(getattr(self, name)))

    def to_dict(self) -> dict[str, Any]:
        return {"detection": self.detection, "code": self.code, "group": self.group, "position": self.position,
                "confidence": round(self.confidence, 4), "sideways": self.sideways, "face_down": self.face_down,
                "on_top": self.on_top}


@dataclass(frozen=True, slots=True)
class MeldEvidence:
    meld: Meld
    confidence: float
    detections: tuple[int, ...]
    how: str  # "claimed left (sideways tile first)", "concealed kong, face-down ends", ...

    def __post_init__(self) -> None:
        object.__setattr__(self, "confidence", float(self.confidence))
        object.__setattr__(self, "detections", tuple(int(i) for i in self.detections))

    def to_dict(self) -> dict[str, Any]:
        return {**meld_to_dict(self.meld), "confidence": round(self.confidence, 4),
                "detections": list(self.detections), "how": self.how}


@dataclass(frozen=True, slots=True)
class Ignored:
    detection: int
    code: str
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"detection": self.detection, "code": self.code, "reason": self.reason}


KONG_FACE_DOWN = "kong-face-down"
"""The id of the question which tile a concealed kong laid all four face down is; a second such kong's is
``kong-face-down-2``, and so on (``face_down_kong_ids``)."""


def face_down_kong_ids(count: int) -> tuple[str, ...]:
    """The ids of the questions about ``count`` concealed kongs laid all face down, in reading order.

    >>> face_down_kong_ids(1), face_down_kong_ids(3)
    (('kong-face-down',), ('kong-face-down', 'kong-face-down-2', 'kong-face-down-3'))
    """
    return tuple(KONG_FACE_DOWN if n == 1 else f"{KONG_FACE_DOWN}-{n}" for n in range(1, count + 1))


@dataclass(frozen=True, slots=True)
class FaceDownKongs:
    """The hand but for two or more concealed kongs laid all four face down: ``melds`` holds None where each lies
    (in reading order). One kong's question offers whole hands; two cannot (each choice would need the other's
    answer), so ``Reading.answer`` builds the hand once every one is answered (``with_kongs``)."""

    concealed: tuple[Tile, ...]
    melds: tuple[Meld | None, ...]
    winning_tile: Tile | None
    flowers: tuple[Tile, ...]

    def with_kongs(self, kong_tiles: Sequence[Tile]) -> Hand:
        """The hand with the face-down kongs, in reading order, of these tiles (raises ``HandError``)."""
        tiles = iter(kong_tiles)
        melds = tuple(meld if meld is not None else Meld.kong(next(tiles), concealed=True) for meld in self.melds)
        return Hand(self.concealed, melds, self.winning_tile, self.flowers)


@dataclass(frozen=True, slots=True)
class Reading:
    """What the layout says: the hand (None when it cannot say), open questions, and the evidence."""

    hand: Hand | None
    questions: tuple[Question, ...] = ()
    tiles: tuple[TileEvidence, ...] = ()
    melds: tuple[MeldEvidence, ...] = ()
    ignored: tuple[Ignored, ...] = ()
    direction: tuple[float, float] = (1.0, 0.0)  # the reading direction (left to right) in photo pixels
    notes: tuple[str, ...] = ()
    corrections: tuple[Any, ...] = ()  # vision.repair.Correction: tiles read again to make a winning hand
    face_down_kongs: FaceDownKongs | None = None  # two or more concealed kongs all face down: the rest of the hand
    advice: tuple[Any, ...] = ()  # vision.photo_advice.Advice: how a second photo could be read more surely

    @property
    def confidence(self) -> float:
        """The weakest tile's confidence (0 without a hand)."""
        if self.hand is None or not self.tiles:
            return 0.0
        return min(t.confidence for t in self.tiles)

    def question(self, qid: str) -> Question | None:
        for q in self.questions:
            if q.id == qid:
                return q
        return None

    def answer(self, answers: dict[str, str]) -> tuple[Hand | None, tuple[Question, ...]]:
        """The hand after the player's answers (question id -> a choice's label, a label's start, or its
        number from 1), and the questions still open. Raises ValueError for an unknown id or choice.

        A choice that carries a whole hand is taken first, then the answers that change a part of the hand
        (whose discard a meld claimed, which flower a tile is) are applied to it, so that answers to two
        questions add up whatever order the questions come in."""
        hand = self.hand
        open_questions = [q for q in self.questions if q.id not in answers]
        picked = [(q, q.pick(answers[q.id])) for q in self.questions if q.id in answers]
        if self.face_down_kongs is not None:  # two or more face-down kongs: the hand once each is answered
            kong_ids = face_down_kong_ids(sum(m is None for m in self.face_down_kongs.melds))
            told = {q.id: choice.label for q, choice in picked if q.id in kong_ids}
            if len(told) == len(kong_ids):
                try:
                    hand = self.face_down_kongs.with_kongs([Tile.parse(told[qid]) for qid in kong_ids])
                except HandError as error:
                    raise ValueError(f"the face-down kongs cannot be those tiles: {error.message}") from None
        for q, choice in sorted(picked, key=lambda qc: qc[1].hand is None):
            if choice.hand is not None:
                hand = choice.hand
            elif q.id.startswith("claim-") and hand is not None:
                # "claim-3s", or "claim-3s-pung" where a meld of another kind asks "claim-3s" too
                code, _, kind = q.id[len("claim-"):].partition("-")
                named = {other.id.rsplit("-", 1)[1] for other in self.questions
                         if other.id.startswith(f"claim-{code}-")}
                kinds = {kind} if kind else {k.value for k in MeldKind} - named
                hand = _with_claim(hand, code, choice.label, kinds)
            elif q.id.startswith(FLOWER_READING) and hand is not None:
                # an unsure flower of the hand (vision.repair): which one it is, or none
                read = next(t.code for t in self.tiles if t.detection == int(q.id[len(FLOWER_READING):]))
                hand = _with_flower_as(hand, Tile.parse(read),
                                       None if choice.label == NOT_A_FLOWER else Tile.parse(choice.label))
            elif q.id.startswith("flower-") and hand is not None and choice.label != NOT_A_FLOWER:
                # "yes, 6f" (a stray tile that is a flower) or "6f" (which flower a second copy is)
                hand = _with_flower(hand, Tile.parse(choice.label.removeprefix("yes, ")))
        unknown = set(answers) - {q.id for q in self.questions}
        if unknown:
            raise ValueError(f"no question has the id {sorted(unknown)[0]!r}; the questions are: "
                             + (", ".join(q.id for q in self.questions) or "none"))
        if hand is None and not open_questions:
            raise ValueError("the answers do not give a whole hand; please enter the hand by hand")
        return hand, tuple(open_questions)

    def detection_groups(self) -> dict[int, str]:
        """Each used detection's group as the server's detection JSON tags it (docs/server.md):
        ``concealed``, ``winning``, ``meld:N`` or ``flowers``."""
        return {t.detection: "flowers" if t.group == "flower" else t.group for t in self.tiles
                if t.group != "meld:?"}

    def tag_detection(self, detections: Detections) -> dict[str, Any]:
        """The spec's detection JSON with each used tile's ``group`` (the page colours the boxes by it)."""
        data = detections.to_dict()
        groups = self.detection_groups()
        for index, tile in enumerate(data["tiles"]):
            if index in groups:
                tile["group"] = groups[index]
        return data

    def to_dict(self) -> dict[str, Any]:
        return {"hand": hand_to_dict(self.hand) if self.hand is not None else None,
                "questions": [q.to_dict() for q in self.questions],
                "tiles": [t.to_dict() for t in self.tiles],
                "melds": [m.to_dict() for m in self.melds],
                "ignored": [i.to_dict() for i in self.ignored],
                "direction": [round(self.direction[0], 4), round(self.direction[1], 4)],
                "confidence": round(self.confidence, 4),
                "notes": list(self.notes),
                "corrections": [c.to_dict() for c in self.corrections],
                "photo_advice": [a.to_dict() for a in self.advice]}


def _with_flower(hand: Hand, flower: Tile) -> Hand:
    if flower in hand.flowers:
        return hand
    return Hand(hand.concealed, hand.melds, hand.winning_tile, hand.flowers + (flower,), hand.context)


def _with_flower_as(hand: Hand, read: Tile, taken: Tile | None) -> Hand:
    """``hand`` with its flower ``read`` taken as ``taken`` instead, or left out (None). A Hand keeps its flowers
    sorted, one of each (``_with_flower`` adds none twice)."""
    without = Hand(hand.concealed, hand.melds, hand.winning_tile, tuple(f for f in hand.flowers if f != read),
                   hand.context)
    return without if taken is None else _with_flower(without, taken)


def _with_claim(hand: Hand, code: str, answer: str, kinds: set[str]) -> Hand:
    """``hand`` with its unclaimed exposed melds of ``kinds`` whose first tile is ``code`` settled by the answer to their
    ``claim-`` question: whose discard it claimed, or ``NOT_DECLARED`` (its tiles join the concealed ones) or
    ``CONCEALED_KONG``. A chow's claimed tile is taken to be its middle one: the photo does not show which of the
    three it was, the notation needs one, and no rule set scores it."""
    melds, concealed = [], hand.concealed
    for m in hand.melds:
        if m.claimed is None and not m.concealed and m.tiles[0].code == code and m.kind.value in kinds:
            if answer == NOT_DECLARED:
                concealed += m.tiles
                continue
            if answer == CONCEALED_KONG:
                m = Meld(m.kind, m.tiles, concealed=True)
            else:
                direction = Direction.parse(answer)
                m = Meld(m.kind, m.tiles, claimed=direction,
                         claimed_tile=m.tiles[1] if m.kind is MeldKind.CHOW else m.tiles[0])
        melds.append(m)
    return Hand(concealed, tuple(melds), hand.winning_tile, hand.flowers, hand.context)


# --------------------------------------------------------------------------------------------------
# Geometry


@dataclass
class _Place:
    """One place on the table: a detection, maybe with a second tile stacked on it."""

    index: int  # detection index
    det: Detection
    centre: np.ndarray
    extra: list[int] = field(default_factory=list)  # detections on top / beside (a kong's fourth tile)
    beside: list[int] = field(default_factory=list)  # those of extra laid beside, not on top
    sideways: bool = False
    pitch: float = 0.0  # the local upright tile width along the row
    box_along: float | None = None  # the box's extent along the row, where the row runs near an axis
    own_along: float | None = None  # the tile's extent along the row solved from its box (rows within 30 degrees of an axis)
    u: float = 0.0
    v: float = 0.0
    dir: np.ndarray = field(default_factory=lambda: np.array([1.0, 0.0]))  # the local row direction
    basis: str = ""  # what settled its group's sideways tile: "box", "spacing", "flag", "hint" ("" before)
    hidden_under: bool = False  # a kong's fourth tile hiding the sideways tile it lies on (``_hidden_under``)

    @property
    def box_size(self) -> float:
        return math.sqrt(max(self.det.width * self.det.height, 1e-6))

    @property
    def along(self) -> float:
        if self.box_along is not None:
            return self.box_along
        return self.pitch * _length(self.sideways)

    @property
    def size(self) -> float:
        return self.pitch

    @property
    def is_back(self) -> bool:
        return self.det.is_back


def row_angle(centres: np.ndarray, sizes: np.ndarray) -> float:
    """The dominant direction (radians, in [0, pi)) between tiles and their nearest neighbours."""
    n = len(centres)
    if n < 2:
        return 0.0
    diff = centres[None, :, :] - centres[:, None, :]
    dist = np.hypot(diff[..., 0], diff[..., 1])
    scale = (sizes[None, :] + sizes[:, None]) / 2
    norm = dist / np.maximum(scale, 1e-6)
    np.fill_diagonal(norm, np.inf)
    angles, weights = [], []
    for i in range(n):
        order = np.argsort(norm[i])[:2]
        for rank, j in enumerate(order):
            if not np.isfinite(norm[i, j]) or norm[i, j] > 3.0:
                continue
            angles.append(math.atan2(diff[i, j, 1], diff[i, j, 0]) % math.pi)
            weights.append((1.0 if rank == 0 else 0.5) / max(norm[i, j], 0.3))
    if not angles:
        return 0.0
    a = np.array(angles)
    w = np.array(weights)
    grid = np.radians(np.arange(0, 180, 1.0))
    delta = (a[None, :] - grid[:, None] + math.pi / 2) % math.pi - math.pi / 2
    score = (w[None, :] * np.exp(-(delta ** 2) / (2 * math.radians(6) ** 2))).sum(axis=1)
    mode = grid[int(np.argmax(score))]
    delta = (a - mode + math.pi / 2) % math.pi - math.pi / 2
    near = np.abs(delta) < math.radians(15)
    refined = mode + float(np.average(delta[near], weights=w[near]))
    return refined % math.pi


def extents(box: Sequence[float], theta: float, sideways_hint: bool = False) -> tuple[float, float, bool]:
    """A rectangle's extent along and across a row at angle ``theta``, from its axis-aligned box;
    ``conditioned`` is False near 45 degrees, where only their sum can be told (then split by the hint)."""
    w, h = box[2] - box[0], box[3] - box[1]
    c, s = abs(math.cos(theta)), abs(math.sin(theta))
    det = c * c - s * s
    if abs(det) >= 0.3:
        a = (c * w - s * h) / det
        b = (c * h - s * w) / det
        low = 0.25 * max(w, h)
        return max(a, low), max(b, low), True
    total = (w + h) / max(c + s, 1e-6)
    ratio = 1.3
    small, large = total / (1 + ratio), total * ratio / (1 + ratio)
    return (large, small, False) if sideways_hint else (small, large, False)


def _overlap(a: Sequence[float], b: Sequence[float]) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    area = min((a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1]))
    return ix * iy / area if area > 0 else 0.0


# --------------------------------------------------------------------------------------------------
# Reading


class _Builder:
    def __init__(self, detections: Detections):
        self.dets = detections
        self.ignored: list[Ignored] = []
        self.questions: list[Question] = []
        self.notes: list[str] = []

    def ignore(self, index: int, reason: str) -> None:
        self.ignored.append(Ignored(index, self.dets.tiles[index].code_str, reason))


def group(detections: Detections, *, reread: bool = True) -> Reading:
    """Read a hand from typed detections (see the module's doc). When the tiles as read make no winning hand,
    the detections' alternative readings are tried (``vision.repair``); when the standing row is sorted but for
    unsure tiles, the re-reading that sorts it (``vision.row_order``). ``reread`` False skips ``vision.repair``,
    the check of alike tiles and the offer of missed tiles (for a caller that only takes a reading no tile of which
    was read again: ``vision.photo_reading``, which groups a photo's detections once for each box it tries, and each
    repair groups them dozens of times)."""
    from vision.alike_tiles import ask_about_alike_tiles
    from vision.missed_tile import offer_hidden_kong, offer_missed_tiles
    from vision.repair import ask_about_flowers, is_winning_shape, lacks_a_tile, repair
    from vision.row_order import settle_by_order

    def reader(own: frozenset[int]) -> Callable[[Detections, frozenset[int]], Reading]:
        """Reads a layout with the detections ``own`` read as places of their own (not as lying on another)."""
        def read(changed: Detections, dropped: frozenset[int]) -> Reading:
            return _group(changed, own, dropped=dropped)

        return read

    def full(own: frozenset[int]) -> Reading:
        """The whole reading with the detections ``own`` read as places of their own."""
        read = reader(own)
        first = _group(detections, own)
        return settle_by_order(detections, repair(detections, first, read) if reread else first, read)

    own: frozenset[int] = frozenset()
    reading = full(own)
    if lacks_a_tile(reading):
        # a box set aside as lying on a more confident one may be a tile after all: in a row seen end on, or
        # steeply, neighbours' boxes overlap by half. Read each such box as a tile of its own; one clean winning
        # hand (no question) is taken, and the reading says so
        found: dict[Hand, tuple[int, Reading]] = {}
        stacked = [ignored.detection for ignored in reading.ignored if ignored.reason.startswith(LIES_ON)]
        for index in sorted(stacked, key=lambda i: -detections.tiles[i].confidence)[:STACKED_TRIES]:
            again = full(frozenset({index}))
            if again.hand is not None and not again.questions and is_winning_shape(again.hand):
                found.setdefault(again.hand, (index, again))
        if len(found) == 1:
            ((index, again),) = found.values()
            note = (f"Detection {index} ({detections.tiles[index].code_str}) was set aside as lying on a more "
                    "confident box; read as a tile of its own, the tiles make a winning hand, so it was taken so.")
            reading = replace(again, notes=again.notes + (note,))
            own = frozenset({index})
    if reread:  # a clean hand whose alike standing tiles could all be another face is asked about (stop 52)
        reading = ask_about_alike_tiles(detections, reading, reader(own))
    reading = ask_about_flowers(detections, reading)
    # tiles one short of a hand: the question "hand" offers the tiles the photo may have missed (stop 53); a caller
    # that takes only a clean reading (``vision.photo_reading``, dozens of times a photo) has no use for it
    return offer_hidden_kong(offer_missed_tiles(reading)) if reread else reading


def _group(detections: Detections, unstack: frozenset[int], dropped: frozenset[int] = frozenset(),
           distrust: frozenset[int] = frozenset()) -> Reading:
    """``unstack``: detections read as places of their own though their boxes lie on another's: of their code,
    not a kong's fourth tile after all (their group is no pung), neighbours whose boxes overlap in strong
    perspective; of another code, a box ``group`` reads again as a tile when the hand is short without it.
    ``distrust``: detections whose sideways flags proved implausible (``_implausible_flags``): theirs are dropped,
    and every other flag counts only where the geometry bears it out (``_mark_sideways``'s ``doubted``; stop 34:
    until then one implausible meld dropped every flag of the photo). Every detection, once the flags proved
    absent or implausible throughout: then a claim only the geometry could guess is asked. ``dropped``:
    detections taken for no tile (``vision.repair``), ignored as ``NO_TILE``."""
    if distrust:
        detections = Detections(detections.width, detections.height,
                                 tuple(replace(t, sideways=False) if t.sideways and i in distrust else t
                                       for i, t in enumerate(detections.tiles)))
    b = _Builder(detections)
    tiles = detections.tiles
    for i in sorted(dropped):
        b.ignore(i, NO_TILE)
    tops = _white_dragons_on_tops(detections, dropped)
    for i in sorted(tops):
        b.ignore(i, TILE_TOP)
    left_out = dropped | tops
    flowers = [i for i, t in enumerate(tiles) if not t.is_back and t.code.is_bonus and i not in left_out]
    others = [i for i, t in enumerate(tiles) if (t.is_back or not t.code.is_bonus) and i not in left_out]

    # 1. duplicates and stacked tiles
    others.sort(key=lambda i: -tiles[i].confidence)
    places: list[_Place] = []
    for i in others:
        det = tiles[i]
        host = None
        for p in places:
            if _overlap(det.box, p.det.box) >= STACK_OVERLAP:
                host = p
                break
        if host is None or i in unstack:
            places.append(_Place(i, det, np.array(det.center, dtype=float)))
        elif host.det.code == det.code and not det.is_back and not host.extra:
            host.extra.append(i)  # a kong's fourth tile lying on the sideways one
        else:
            b.ignore(i, _lies_on(host))
    flower_dup = _dedupe_flowers(b, flowers)

    if not places:
        b.questions.append(Question("hand", "No standing tiles or melds were found to read a hand from. "
                                            "Please enter the hand."))
        evidence = tuple(TileEvidence(i, tiles[i].code_str, "flower", n, tiles[i].confidence)
                         for n, i in enumerate(flower_dup))
        return Reading(None, tuple(b.questions), evidence, (), tuple(sorted(b.ignored, key=lambda x: x.detection)),
                       (1.0, 0.0), tuple(b.notes))

    # 2. the row direction, extents along/across
    boxes_all = [tiles[p.index].box for p in places] + [tiles[i].box for i in flower_dup]
    centres_all = np.array([[(bx[0] + bx[2]) / 2, (bx[1] + bx[3]) / 2] for bx in boxes_all])
    sizes_all = np.array([math.sqrt(max((bx[2] - bx[0]) * (bx[3] - bx[1]), 1e-6)) for bx in boxes_all])
    theta = row_angle(centres_all, sizes_all)
    u = np.array([math.cos(theta), math.sin(theta)])
    if u[0] < -1e-9 or (abs(u[0]) <= 1e-9 and u[1] < 0):
        u = -u
    v = np.array([-u[1], u[0]])
    for p in places:
        p.u, p.v = float(p.centre @ u), float(p.centre @ v)
    _local_directions(places, u)
    angle = math.degrees(math.atan2(abs(u[1]), abs(u[0])))
    offset = min(angle, 90 - angle)  # boxes near the photo's axes show which way a tile lies
    _flags_from_axes(places, distrust)
    _first_sideways(places, offset)

    # flowers take part in the grouping (one lying in the standing row leaves no hole in it), then leave
    n_tiles = len(places)
    for i in flower_dup:
        places.append(_Place(i, tiles[i], np.array(tiles[i].center, dtype=float)))
        places[-1].u, places[-1].v = float(places[-1].centre @ u), float(places[-1].centre @ v)

    _local_directions(places, u)

    def without_flowers(groups: list[list[int]]) -> list[list[int]]:
        return [g for g in ([k for k in g if k < n_tiles] for g in groups) if g]

    # 3. tight groups, by gaps measured against the local tile width
    if min(angle, 90 - angle) < AXIS_DEGREES:  # the boxes' own extents along the row are good
        for p in places:
            p.box_along = abs(p.det.width * p.dir[0]) + abs(p.det.height * p.dir[1])
    for p in places:
        along, _, conditioned = extents(p.det.box, math.atan2(p.dir[1], p.dir[0]))
        p.own_along = along if conditioned and min(angle, 90 - angle) <= 30 else None
    _pitches(places)
    groups = without_flowers(_tight_groups(places))

    # 4. sideways, relative to the group's other tiles; then group again with the checked flags
    _mark_sideways(places, groups, offset, detections.width, detections.height, bool(distrust))
    _pitches(places)
    groups = without_flowers(_tight_groups(places))

    # a kong's fourth tile beside the sideways one (further from the player): attach it
    groups = _attach_beside(places, groups)
    groups = _split_face_down_run(places, groups)
    groups = _mend_melds(places, groups, unmarked=True)
    _mark_sideways(places, groups, offset, detections.width, detections.height, bool(distrust))
    groups = _attach_beside(places, groups)  # again, now that the melds' sideways tiles are settled
    groups = _detach_on_top(places, groups)
    _hidden_under(places, groups)
    groups, loose = _loose_backs(places, groups)
    for k in loose:
        b.ignore(places[k].index, LOOSE_BACK)

    # a tile "on top" must make a kong with its group (a pung's shape); otherwise it was a neighbour
    for g in groups:
        for k in g:
            stacked = [e for e in places[k].extra if e not in places[k].beside]
            codes = {places[j].det.code for j in g}
            if stacked and not (len(g) == 3 and len(codes) == 1):
                return _group(detections, unstack | set(stacked), dropped, distrust)

    suspect = _implausible_flags(places, groups, detections)
    if suspect is not None and not suspect <= distrust:
        # first only the implausible melds' flags are dropped (the others' must then be borne out by the
        # geometry); when the melds so read are implausible still, every flag is
        every = frozenset(range(len(tiles)))
        return _group(detections, unstack, dropped, every if distrust else suspect)
    return _read(b, places, groups, flower_dup, u, distrust)


def _white_dragons_on_tops(detections: Detections, dropped: frozenset[int]) -> frozenset[int]:
    """The White dragons (``TILE_TOP``) whose boxes lie on the top of another tile's face (not a White dragon's, whose
    fourth tile of a kong may lie on it, nor a face-down tile's), by the faces' axes."""
    from vision.face_geometry import on_tops

    tiles = detections.tiles
    candidates = [i for i, t in enumerate(tiles) if i not in dropped and not t.is_back and t.code == WHITE_DRAGON]
    if not candidates:
        return frozenset()
    hosts = [i for i, t in enumerate(tiles)
             if i not in dropped and t.axis is not None and not t.is_back and t.code != WHITE_DRAGON]
    boxes = np.array([t.box for t in tiles], dtype=float)
    axes = np.array([np.nan if t.axis is None else t.axis for t in tiles], dtype=float)
    return frozenset(on_tops(boxes, axes, candidates, hosts))


def _implausible_flags(places: list[_Place], groups: list[list[int]], detections: Detections
                       ) -> frozenset[int] | None:
    """None when the detector's sideways flags look like a meld's (each exposed meld shows one sideways tile; the
    renderer's true flags always do, the detector's mostly do); else the detections whose flags are implausible:
    those of a group that makes a meld by its codes and carries two flags or more (a fourth tile on top aside), or
    none while the geometry marks a sideways tile in it, and a flagged tile lying alone or in a pair (stop 34);
    every detection when no tile of the photo is flagged at all while a group apart from the largest one makes a
    meld by its codes."""
    largest = max(groups, key=len) if groups else []
    any_flag = any(p.det.sideways for p in places if not p.is_back)
    suspect: set[int] = set()
    for g in groups:
        if len(g) not in (3, 4) or g is largest or any(places[k].is_back for k in g):
            continue
        codes = [places[k].det.code for k in g] + [detections.tiles[e].code for k in g for e in places[k].extra]
        if _meld_kind(codes) is None:
            continue
        flagged = [k for k in g if places[k].det.sideways]
        marked = [k for k in g if places[k].sideways]
        if not any_flag:
            return frozenset(range(len(detections.tiles)))
        if len(flagged) >= 2 or (marked and not flagged):
            suspect.update(places[k].index for k in g)
            suspect.update(e for k in g for e in places[k].extra)
    # the layout lays no lone tile sideways (a kong's fourth tile beside its sideways one is attached by now): a
    # flag on the winning tile or a stray is the reader's error, so the melds' lone flags are doubted too
    suspect.update(places[k].index for g in groups if len(g) <= 2 for k in g
                   if places[k].det.sideways and not places[k].extra)
    return frozenset(suspect) if suspect else None


def _dedupe_flowers(b: _Builder, flowers: list[int]) -> list[int]:
    tiles = b.dets.tiles
    kept: list[int] = []
    for i in sorted(flowers, key=lambda i: -tiles[i].confidence):
        same = [k for k in kept if tiles[k].code == tiles[i].code]
        if same:
            b.ignore(i, f"a second {tiles[i].code_str}: {ONE_OF_EACH}")
        else:
            kept.append(i)
    return kept


LOCAL_DEGREES = 35.0
"""A tile's local row direction follows neighbours lying within this angle of the photo's main direction."""
WIN_GAP = 0.0
WIN_RATIO = 2.0
"""The winning tile is set apart from the standing row by at least this share of a tile (the guide asks
for a clear gap; the tight grouping splits at GAP, which an unevenly laid real row can reach)."""
MEND = 0.6
"""Fragments closer than this share of a tile that together make one meld are joined (see _mend_melds)."""
SURE_BASIS = ("box", "spacing", "hint", "flag", "axis")
"""Without the detector's flags, a pung's sideways tile stands only on this evidence (else its claim is asked:
"conflict", where the spacing and the box that stands out point at different tiles)."""
MEND_LONE = 1.0
"""A lone sideways tile joins a pair beside it (gap under this share of a tile) when they make one meld."""
AXIS_DEGREES = 3.0
"""Rows within this angle of the photo's axes are measured with the boxes' own extents."""
SIDEWAYS_LENGTH = 1.3
"""A sideways tile's length along the row, in upright tile widths (the tile's height over its width)."""


def _pitches(places: list[_Place]) -> None:
    """Each place's local tile width along the row: the spacing to its nearest neighbour on its line
    (corrected for sideways tiles), as a median over the nearest places, so perspective is followed."""
    du, dv = _offset_matrices(places)
    far = np.abs(du)
    size = np.array([p.box_size for p in places])
    sizes = size[:, None] + size[None, :]
    on_line = np.abs(dv) <= 0.45 * sizes / 2
    length = np.array([_length(p.sideways) for p in places])
    units = (length[:, None] + length[None, :]) / 2
    apart = on_line & ~(far < 0.5 * sizes / 2)
    np.fill_diagonal(apart, False)
    nearest = np.where(apart, far / units, np.inf).min(axis=1, initial=np.inf)
    spacing = np.where(np.isfinite(nearest), nearest, np.nan)
    # a spacing over 1.6 tile sizes is a gap, not a pitch; a tile's size is its box's, or its extent along the
    # row where that is longer: a tile lying flat seen at a grazing angle has a box squashed across the row
    # (stop 36: a pung beyond a standing row boxed 77-100 px along and 23-30 across, its 89 px pitch refused)
    own = np.array([p.own_along or 0.0 for p in places])
    pitch_like = np.isfinite(spacing) & (spacing < 1.6 * np.maximum(size, own))
    for i, pi in enumerate(places):
        line = np.flatnonzero(on_line[i] & pitch_like)  # itself among them
        line = line[np.argsort(far[i, line], kind="stable")]
        vals = [spacing[j] for j in line[:3]]  # itself and its nearest neighbours on its line
        pi.pitch = _median(vals) if vals else 0.85 * pi.box_size
        if len(line) < 3:  # two tiles alone on a line (the pair of a four-meld hand): their spacing may be a gap
            pi.pitch = min(pi.pitch, 0.9 * pi.box_size)


def _median(values: Sequence[float]) -> float:
    """The median of a few finite numbers, as ``np.median`` gives it (the mean of the middle two of an even
    count), without its overhead: the grouping takes tens of thousands of medians of two to four numbers."""
    ordered = sorted(float(x) for x in values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def _offsets(pi: _Place, pj: _Place) -> tuple[float, float]:
    """The offset from place i to place j along and across the row, in the row's local direction there
    (the mean of both places' local directions, so bent rows are followed)."""
    d = pi.dir + pj.dir
    norm = math.hypot(d[0], d[1])
    d = d / norm if norm > 1e-9 else pi.dir
    delta = pj.centre - pi.centre
    return float(delta @ d), float(delta[1] * d[0] - delta[0] * d[1])


def _offset_matrices(places: list[_Place]) -> tuple[np.ndarray, np.ndarray]:
    """``_offsets`` of every pair at once: ``du[i, j], dv[i, j]`` from place i to place j, along and across the
    row. The grouping measures every pair several times a reading, and a repair reads a photo dozens of times:
    one pair at a time that was most of a reading's time (stop 50)."""
    centres = np.array([p.centre for p in places], dtype=float).reshape(-1, 2)
    dirs = np.array([p.dir for p in places], dtype=float).reshape(-1, 2)
    d = dirs[:, None, :] + dirs[None, :, :]
    norm = np.hypot(d[..., 0], d[..., 1])
    turned = norm > 1e-9  # two opposite directions have no mean: place i's own is taken
    d = np.where(turned[..., None], d / np.where(turned, norm, 1.0)[..., None], dirs[:, None, :])
    delta = centres[None, :, :] - centres[:, None, :]
    du = delta[..., 0] * d[..., 0] + delta[..., 1] * d[..., 1]
    dv = delta[..., 1] * d[..., 0] - delta[..., 0] * d[..., 1]
    return du, dv


def _local_directions(places: list[_Place], u: np.ndarray) -> None:
    """Each place's row direction from its nearest neighbours lying roughly along the row (within
    LOCAL_DEGREES of the photo's main direction), oriented like ``u``."""
    theta = math.atan2(u[1], u[0])
    centres = np.array([p.centre for p in places], dtype=float).reshape(-1, 2)
    size = np.array([p.box_size for p in places])
    delta = centres[None, :, :] - centres[:, None, :]  # from place i to place j
    dist = np.hypot(delta[..., 0], delta[..., 1]) / ((size[:, None] + size[None, :]) / 2)
    diff = (np.arctan2(delta[..., 1], delta[..., 0]) - theta + math.pi / 2) % math.pi - math.pi / 2
    near_row = (dist <= 1.8) & (np.abs(diff) < math.radians(LOCAL_DEGREES))
    np.fill_diagonal(near_row, False)
    for i, p in enumerate(places):
        near = sorted(zip(dist[i, near_row[i]].tolist(), diff[i, near_row[i]].tolist()))
        if near:
            diffs = [d for _, d in near[:2]]
            local = theta + sum(diffs) / len(diffs)
            p.dir = np.array([math.cos(local), math.sin(local)])
        else:
            p.dir = u.copy()


def _length(sideways: bool) -> float:
    return SIDEWAYS_LENGTH if sideways else 1.0


def _tight_groups(places: list[_Place]) -> list[list[int]]:
    n = len(places)
    parent = list(range(n))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    du, dv = _offset_matrices(places)
    far = np.abs(du)
    size = np.array([p.box_size for p in places])
    on_line = ~(np.abs(dv) > 0.45 * (size[:, None] + size[None, :]) / 2)
    np.fill_diagonal(on_line, False)
    along = np.array([p.along for p in places])
    pitch = np.array([p.pitch for p in places])
    gap = far - (along[:, None] + along[None, :]) / 2
    scale = (pitch[:, None] + pitch[None, :]) / 2
    tight = (-OVERLAP * scale <= gap) & (gap <= GAP * scale)
    # the boxes' own extents (solved for the row's angle) also may say so: tiles of another size on one line
    # (a face-down tile's back is boxed larger than a face)
    own = np.array([np.nan if p.own_along is None else p.own_along for p in places])
    back = np.array([p.is_back for p in places])
    own_gap = far - (own[:, None] + own[None, :]) / 2
    by_own = (back[:, None] | back[None, :]) & (-OVERLAP * scale <= own_gap) & (own_gap <= GAP * scale)
    tight = on_line & (tight | by_own)  # NaN (no own extent) compares false
    for i in range(n):
        for side in (du[i] > 0, ~(du[i] > 0)):  # the nearest tight neighbour on each side
            candidates = tight[i] & side
            if candidates.any():
                j = int(np.argmin(np.where(candidates, far[i], np.inf)))
                parent[find(i)] = find(j)
    comps: dict[int, list[int]] = {}
    for i in range(n):
        comps.setdefault(find(i), []).append(i)
    return [sorted(c, key=lambda k: places[k].u) for c in comps.values()]


def _ratio(p: _Place) -> float:
    """The box's extent along the row over its extent across (in the place's local direction)."""
    w, h = p.det.width, p.det.height
    along = abs(w * p.dir[0]) + abs(h * p.dir[1])
    across = abs(w * p.dir[1]) + abs(h * p.dir[0])
    return along / max(across, 1e-6)


def _first_sideways(places: list[_Place], offset: float) -> None:
    """Sideways before grouping (it sets how long a tile is along the row): the detector's flag, or, where
    boxes show it (rows within READABLE_DEGREES of the photo's axes), a box whose long side runs along the
    row while its neighbours' on the line run across (its along/across ratio FIRST_RATIO times theirs).
    The groups then settle it (``_mark_sideways``)."""
    ratios = [_ratio(p) for p in places]
    sizes = np.array([p.box_size for p in places])
    offsets = None  # every pair's, measured once where a box needs them
    for i, p in enumerate(places):
        if p.extra:
            p.sideways = True
            continue
        p.sideways = p.det.sideways and not p.is_back
        p.basis = "flag" if p.sideways else ""
        if offset >= READABLE_DEGREES or p.is_back or p.sideways:
            continue
        if offsets is None:
            offsets = _offset_matrices(places)
        du, dv = np.abs(offsets[0][i]), np.abs(offsets[1][i])
        scale = (p.box_size + sizes) / 2
        line = sorted((du[j], j) for j in np.flatnonzero((dv <= 0.45 * scale) & (du <= 2.6 * scale)) if j != i)
        near = [ratios[j] for _, j in line[:4]]
        if near:
            p.sideways = bool(ratios[i] / max(_median(near), 1e-6) >= FIRST_RATIO)  # (numpy's bool is no JSON)
            p.basis = "box" if p.sideways else ""


def _at_edge(det: Detection, width: int, height: int) -> bool:
    x1, y1, x2, y2 = det.box
    return x1 <= 1 or y1 <= 1 or x2 >= width - 1 or y2 >= height - 1


def _mark_sideways(places: list[_Place], groups: list[list[int]], offset: float, width: int = 0,
                   height: int = 0, doubted: bool = False) -> None:
    """Sideways within each group of 3 or 4 (a meld's size). Near the axes (under READABLE_DEGREES) the
    boxes decide: the one box whose along/across ratio stands above the others' (or none). Further, where
    an axis-aligned box cannot show which way its tile lies, the spacing does: a sideways tile is longer
    along the row, so its neighbours' centres lie further from it (H+W)/2 instead of W); the detector's
    flags settle what the spacing leaves open, and under HINT_DEGREES clear boxes do. ``doubted``: another
    meld's flags proved implausible (``_implausible_flags``), so a lone flag counts only where the spacing or the
    box shape bears it out; otherwise the meld is read as without flags (a spacing pointing elsewhere is a
    ``conflict``, and no sideways tile at all leaves the claim to be asked)."""
    ratios = {k: _ratio(places[k]) for g in groups for k in g}
    rows = [places[k].pitch / places[k].box_size for g in groups if len(g) >= 5 for k in g]
    row_pitch = float(np.median(rows)) if rows else None
    for g in groups:
        if len(g) not in (3, 4) or any(places[k].is_back or places[k].extra for k in g):
            continue  # only a meld's tiles can be claimed
        kind = _meld_kind([places[k].det.code for k in g])
        if kind is None:
            # a box shape's mark (``_first_sideways``, not a flag) in a group that forms no meld is no claim: a
            # row's end box is often wider (stop 22: seeds 11, 14, 16 and 17 +1 hand each from the true boxes)
            for k in g:
                if places[k].basis == "box":
                    places[k].sideways, places[k].basis = False, ""
            continue
        rel = {k: ratios[k] / max(_median([ratios[j] for j in g if j != k]), 1e-6) for k in g}
        best = max(g, key=lambda k: rel[k])
        chosen: set[int] | None = None
        if any(_at_edge(places[k].det, width, height) for k in g) and \
                sum(places[k].det.sideways for k in g) == 1:
            continue  # a box cut by the photo's edge has lost its shape and its centre: a lone flag stands
        basis = ""
        if offset < READABLE_DEGREES:
            flagged = {k for k in g if places[k].det.sideways}
            if rel[best] >= SIDEWAYS_RATIO and all(rel[k] <= 1.06 for k in g if k != best):
                chosen, basis = {best}, "box"
            elif rel[best] < SIDEWAYS_RATIO:  # no box stands out: a lone flag on the likeliest box stands,
                # or one the centre spacing also points at (in steep views near READABLE_DEGREES the boxes
                # of a meld's tiles all look alike, and the likeliest box is a toss-up)
                agree = len(flagged) == 1 and _by_spacing(places, g, row_pitch, SPACING_RATIO) == flagged
                # or a lone flag its face's axis gives (``_flags_from_axes``; stop 37: a pung lying flat beside a row
                # seen at 49 degrees of tilt, its boxes squashed across the row, seed 19's 000060)
                by_axis = len(flagged) == 1 and all(
                    (off := _axis_off_row(places[k])) is not None and off < AXIS_FLAG for k in flagged)
                chosen = flagged if flagged == {best} or agree or by_axis else set()
                basis = "flag" if chosen else ""
            if chosen == set():  # no sideways tile shows in the boxes or the flags: the faces' axes may show one
                marked = _by_axis(places, g)
                if marked:
                    chosen, basis = marked, "axis"
        else:
            flagged = {k for k in g if places[k].det.sideways}
            spaced = _by_spacing(places, g, row_pitch, SPACING_RATIO)
            sure = _by_spacing(places, g, row_pitch, SPACING_SURE)
            chosen = sure or (flagged if len(flagged) == 1 else spaced)
            basis = "spacing" if sure else "flag" if len(flagged) == 1 else "spacing" if spaced else ""
            if len(flagged) == 1 and chosen != flagged and kind is MeldKind.CHOW:
                ends = sorted(g, key=lambda k: places[k].u)
                if flagged <= {ends[0], ends[-1]}:
                    # a chow's lone flag on an end tile stands against the spacing: in a steep view turned on the
                    # photo the spacing can mark the far end (seed 13's 000002 and 000164); a flag on a chow's
                    # middle tile is no claim a chow can have, and the spacing keeps it
                    chosen, basis = flagged, "flag"
            if len(flagged) == 1 and chosen != flagged and flagged == {best} and rel[best] >= FLAG_BOX_RATIO:
                # the flag and the box shape agree against the spacing: a sideways tile lies with its near
                # edge on the meld's line, so its centre sits off the others' line, and in an oblique
                # view that offset leaks into the spacing along the row (a pung claimed from across
                # then looks like one claimed from the left)
                chosen, basis = flagged, "flag"
            if basis == "spacing" and chosen and (best not in chosen and rel[best] >= FLAG_BOX_RATIO
                                                   and flagged != chosen
                                                   or len(flagged) == 1 and flagged != chosen):
                # the box that stands out, or the detector's lone flag, is on another tile than the spacing's:
                # in an oblique view a pung claimed from across (both spacings wide) can measure like one
                # claimed at an end (a flag that agrees with the spacing outweighs the box: stop 22, true boxes
                # of seeds 13 and 14 +1 hand each, where the box stood out by 1.05, just at FLAG_BOX_RATIO)
                basis = "conflict"
                if len(flagged) == 1 and flagged != chosen and kind is not MeldKind.CHOW:
                    # but a pung's lone flag outweighs the spacing: in the meld scenes of seeds 10-16 a pung whose
                    # flag and spacing disagreed was claimed as flagged in every case seen (stop 22: true boxes +7
                    # hands, detections +3; one kong whose bottom tile is hidden now reads as a pung, as it looks)
                    chosen, basis = flagged, "flag"
            if doubted and basis == "flag" and not (spaced == flagged
                                                     or (flagged == {best} and rel[best] >= FLAG_BOX_RATIO)):
                # another meld's flags proved wrong, so this one's may be too: a lone flag that neither the spacing
                # nor the box shape bears out is no evidence (as when every flag is dropped): a spacing pointing
                # elsewhere makes a conflict (asked), and none leaves the meld without a sideways tile (asked)
                chosen, basis = (spaced, "conflict") if spaced else (set(), "")
            marked = _by_axis(places, g)
            if marked:
                # the faces' axes outweigh the rest where they single one tile out (stop 37): its print runs along
                # the row, the others' clearly across it. On the detector's readings of the 1,600 held-out meld
                # scenes they did so in 1,328 exposed melds, never on a tile that was not sideways, while the
                # spacing and the flags are skewed by oblique views
                chosen, basis = marked, "axis"
            if chosen is None:
                if offset < HINT_DEGREES and rel[best] >= 1.2 and all(rel[k] <= 1.1 for k in g if k != best):
                    chosen, basis = {best}, "hint"
                else:
                    for k in g:  # a mark left from a smaller group (before mending) that this one does not bear out
                        places[k].basis = ""
        if _all_upright(places, g):
            # every face's print runs across the row: none of them lies sideways, whatever the boxes or the spacing
            # said (stop 56: in steep views the far end of a standing row split off, and its widest box or gap
            # made it a meld claimed from an end)
            chosen, basis = set(), "axis"
        if chosen is not None:
            for k in g:
                places[k].sideways = k in chosen
                places[k].basis = basis


AXIS_FLAG = 20.0
"""A face whose axis lies within this many degrees of its row's local direction is flagged sideways, one further
off is not, in place of the detector's flag (stop 37, ``_flags_from_axes``). Against the true flags of the 20,058
tiles with a known axis that the detector found in the eight held-out sets (meld scenes, seeds 10, 12 and 17-22): the
detector's flags 97.2 % right on the melds' tiles and 99.6 % on the others; the axis against the row within 15, 20,
25, 30 or 45 degrees: 98.4, 98.4, 98.3, 98.3 and 97.7 % on the melds' tiles, 99.8 % on the others."""
CROSS_AGREEMENT = 0.5
"""How well the faces' axes must agree on a cross (the length of their quadrupled-angle mean) for a photo's flags to
come from them: ``vision.orientation.MIN_AGREEMENT``, the detector's own bar (tiles each within 20 degrees of the
cross's arms reach 0.77; a heap at every angle stays near 0)."""
AXIS_ALONG = 40.0
"""A face whose axis (``Detection.axis``) lies within this many degrees of its row's direction lies sideways..."""
AXIS_MARGIN = 12.0
"""... when every other tile of its group has an axis at least this many degrees further from the row's (stop 37,
measured on the detector's readings of the held-out seeds 10, 12 and 17-22: over the 1,397 exposed melds whose
every axis is known, 40 / 12 singled out a tile in 1,328, each the sideways one; 45 / 10 in 1,334, one of them
wrong; 25 / 25 in 1,316, and read 3 hands fewer)."""


UPRIGHT_AXES = 60.0
"""A group of 3 or 4 whose every face's axis lies at least this many degrees from its row's direction shows no
sideways tile (``_all_upright``; stop 56). On the detector's readings of the 1,600 held-out meld scenes (seeds 10, 12
and 17-22), of the 1,616 true exposed melds whose every axis was known, 2 had none within 60 degrees of the row (their
sideways tiles' prints misread, at 65 and 80 degrees), and 9 of the 12 pieces of standing rows split off had all theirs
60 degrees or more off (the two read as claimed chows, silently wrong, at 73 and 88). At 45 one more right hand was
asked about; at 75 one of the two silent errors stayed."""


def _all_upright(places: list[_Place], g: list[int]) -> bool:
    """Whether every face of the group has a known axis, each at least ``UPRIGHT_AXES`` from the row's direction:
    each print runs across the row, as a standing or upright lying tile's does, and none along it, as a sideways
    tile's would. True boxes and hand-typed detections carry no axes: never."""
    return all((off := _axis_off_row(places[k])) is not None and off >= UPRIGHT_AXES for k in g)


def _axis_off_row(place: _Place) -> float | None:
    """How far, in degrees (0..90), its face's axis lies from its row's local direction; None where unknown."""
    if place.det.axis is None:
        return None
    row = math.degrees(math.atan2(-place.dir[1], place.dir[0]))  # the axis's sense: counter-clockwise, y up
    return abs((place.det.axis - row + 90.0) % 180.0 - 90.0)


def _flags_from_axes(places: list[_Place], distrust: frozenset[int]) -> None:
    """Each face's sideways flag from its axis measured against its own row (``AXIS_FLAG``), where the axis is known.
    The detector measures each axis against the cross of its seven nearest tiles (``vision.orientation``): beside a
    standing row seen steeply that is the row's cross, not the meld's, and a meld's flags come out several or none. A
    flag already dropped as implausible (``distrust``) stays dropped; backs have no print to read. Where the axes would
    flag half the faces or more, the row is not where the grouping found it (tiles laid in a grid whose columns lie
    closer than its rows: every upright face's print then runs along the "row"), and where the faces agree on no cross
    (``CROSS_AGREEMENT``: a heap), the detector's flags stand."""
    faces = [(p, off) for p in places if not p.is_back and p.index not in distrust
             for off in (_axis_off_row(p),) if off is not None]
    if not faces or 2 * sum(off < AXIS_FLAG for _, off in faces) >= len(faces):
        return
    quadrupled = np.radians([4 * p.det.axis for p, _ in faces])
    if math.hypot(float(np.cos(quadrupled).mean()), float(np.sin(quadrupled).mean())) < CROSS_AGREEMENT:
        return  # the faces lie at every angle (a heap): no row to measure them against
    for p, off in faces:
        if (off < AXIS_FLAG) != p.det.sideways:
            p.det = replace(p.det, sideways=off < AXIS_FLAG)


def _by_axis(places: list[_Place], g: list[int]) -> set[int] | None:
    """The sideways tile of a group of 3 or 4 by its faces' axes (the print of a sideways tile runs along the row,
    the others' across it), or None when they do not say clearly: an axis unknown, or no one tile standing out by
    AXIS_MARGIN. The detector's flags come from the same axes, but each measured against its seven nearest tiles'
    (``vision.orientation``); this measures them against the row, within the group alone."""
    off = {k: _axis_off_row(places[k]) for k in g}
    if any(v is None for v in off.values()):  # (one unknown axis allowed read 1 hand more and 1 more wrong unasked)
        return None
    along = min(g, key=lambda k: off[k])
    if off[along] > AXIS_ALONG or any(off[k] < off[along] + AXIS_MARGIN for k in g if k != along):
        return None
    return {along}


def _by_spacing(places: list[_Place], g: list[int], row_pitch: float | None, margin: float) -> set[int] | None:
    """The sideways tile of a group of 3 or 4 by its centre spacings, or None when they do not say."""
    order = sorted(g, key=lambda k: places[k].u)
    # spacings per box size, so that perspective (tiles growing towards the camera) does not look like a gap
    gaps = [abs(_offsets(places[a], places[b])[0]) / ((places[a].box_size + places[b].box_size) / 2)
            for a, b in zip(order, order[1:])]
    low = min(gaps)
    if any(1 + (margin - 1) / 3 < s / low < margin for s in gaps):
        return None  # a spacing neither wide nor narrow: no clear pattern
    wide = [s / low >= margin for s in gaps]
    n = len(order)
    if n == 3:
        if wide == [True, False]:
            return {order[0]}
        if wide == [False, True]:
            return {order[2]}
        if row_pitch and margin < SPACING_SURE:  # even: the middle one when both spacings exceed the row's pitch
            ratio = (gaps[0] + gaps[1]) / 2 / row_pitch
            if ratio >= margin + 0.02:
                return {order[1]}
        return None
    patterns = {(True, False, False): 0, (True, True, False): 1, (False, True, True): 2, (False, False, True): 3}
    pos = patterns.get(tuple(wide))
    return {order[pos]} if pos is not None else None


def _attach_beside(places: list[_Place], groups: list[list[int]]) -> list[list[int]]:
    """A single sideways tile right across from a meld's sideways tile with its code is that kong's
    fourth tile, laid beside it instead of on it, or on it but pushed half off (``BESIDE_ACROSS``)."""
    singles = [g for g in groups if len(g) == 1]
    used: set[int] = set()
    for g in groups:
        if len(g) != 3:
            continue
        side = [k for k in g if places[k].sideways and not places[k].extra]
        if len(side) != 1:
            continue
        host = places[side[0]]
        if any(places[k].is_back or places[k].det.code != host.det.code for k in g):
            continue  # only a pung becomes a kong
        for s in singles:
            k = s[0]
            if k in used:
                continue
            p = places[k]
            if p.det.is_back or p.det.code != host.det.code:
                continue
            delta = p.centre - host.centre  # in the host's own direction: the lone tile's may be skewed
            du = float(delta @ host.dir)
            dv = float(delta[1] * host.dir[0] - delta[0] * host.dir[1])
            scale = (p.pitch + host.pitch) / 2
            if abs(du) < BESIDE_ALONG * host.along and BESIDE_ACROSS[0] * scale <= abs(dv) <= BESIDE_ACROSS[1] * scale:
                host.extra.append(p.index)
                host.beside.append(p.index)
                used.add(k)
                break
    return [g for g in groups if not (len(g) == 1 and g[0] in used)]


def _detach_on_top(places: list[_Place], groups: list[list[int]]) -> list[list[int]]:
    """A kong's fourth tile laid on the sideways one but pushed off it (partly on it, partly beyond), so
    that both show: their boxes overlap too little to be one place, and the gaps put both in the meld's
    group, as if it were four along the row. In a group of four of one code, two tiles lying across the
    row from each other (their centres apart more across the line of the other two than along it, by
    ON_TOP_OFFSET to 1.2 box sizes), one at least off that line (the fourth is pushed away from the player;
    the sideways tile under it may lie on the line), are the sideways tile and the fourth tile on it: the fourth is the one whose face shows
    whole (the larger box; the one under it shows only the part left uncovered). It becomes the extra of
    the tile under it, which is the sideways (claimed) tile."""
    out = []
    for g in groups:
        if len(g) != 4 or any(places[k].is_back for k in g) or len({places[k].det.code for k in g}) != 1 \
                or any(places[k].extra for k in g):
            out.append(g)
            continue
        found = None
        for a, b in itertools.combinations(g, 2):
            o1, o2 = [k for k in g if k not in (a, b)]
            line = places[o2].centre - places[o1].centre
            if np.linalg.norm(line) < 1e-6:
                continue
            line = line / np.linalg.norm(line)
            if abs(float(line @ places[o1].dir)) < math.cos(math.radians(LOCAL_DEGREES)):
                # the other two do not run along the row (within the bends it follows): they are the stacked
                # pair itself, one off the other's line, and two neighbours along the row would look "across"
                continue
            d = places[b].centre - places[a].centre
            du, dv = abs(float(d @ line)), _off_line(places[b].centre, places[a].centre, places[a].centre + line)
            size = (places[a].box_size + places[b].box_size) / 2
            offs = [_line_offset(places, [o1, o2], k) for k in (a, b)]
            if dv > 1.5 * du and ON_TOP_OFFSET * size <= dv <= 1.2 * size and max(offs) >= ON_TOP_OFFSET / 3:
                found = (a, b)
                break
        if found is None:
            out.append(g)
            continue
        top, host = sorted(found, key=lambda k: -places[k].det.width * places[k].det.height)
        places[host].extra.append(places[top].index)
        places[host].beside.append(places[top].index)
        rest = [k for k in g if k != top]
        for k in rest:
            places[k].sideways = k == host
        out.append(rest)
    return out


def _hidden_under(places: list[_Place], groups: list[list[int]]) -> None:
    """A kong's fourth tile laid on the sideways one and pushed off it can hide it: the detector then boxes the
    fourth tile alone, and the meld shows three tiles, a pung. But the fourth lies off the meld's line, pushed away
    from the player, where no tile of a pung lies: in a group of three of one code, an end tile whose centre lies
    ``HIDDEN_UNDER_OFFSET`` box sizes or more across the line through the other two (and further than either of
    them from the line through the rest) is such a fourth tile. It is marked so (``hidden_under``) and as the
    sideways tile: the meld reads as a kong claimed from that end."""
    for g in groups:
        if len(g) != 3 or any(places[k].is_back or places[k].extra for k in g) \
                or len({places[k].det.code for k in g}) != 1:
            continue
        order = sorted(g, key=lambda k: places[k].u)
        size = max(float(np.median([places[k].box_size for k in g])), 1e-6)
        offsets = [_off_line(places[k].centre, *(places[j].centre for j in order if j != k)) / size for k in order]
        end = int(np.argmax(offsets))
        if end != 1 and offsets[end] >= HIDDEN_UNDER_OFFSET:
            for k in order:
                places[k].sideways = k == order[end]
            places[order[end]].hidden_under = True
            places[order[end]].basis = "hidden"


def _off_line(point: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    """How far ``point`` lies from the line through ``a`` and ``b`` (0 where they coincide: no line)."""
    line = b - a
    norm = float(np.linalg.norm(line))
    return 0.0 if norm < 1e-6 else abs(float((point - a)[0] * line[1] - (point - a)[1] * line[0])) / norm


def _line_offset(places: list[_Place], row: list[int], k: int) -> float:
    """How far place k's centre lies across the line fitted through the row (in its across sizes)."""
    us = np.array([places[i].u for i in row])
    vs = np.array([places[i].v for i in row])
    p = places[k]
    if len(row) >= 6 and np.ptp(us) > 1e-6:  # a bent row: a parabola, extrapolated from its nearer end
        near = sorted(row, key=lambda i: abs(places[i].u - p.u))[:6]
        coef = np.polyfit([places[i].u for i in near], [places[i].v for i in near], 2)
        line = float(np.polyval(coef, p.u))
    elif len(row) >= 2 and np.ptp(us) > 1e-6:
        slope, icpt = np.polyfit(us, vs, 1)
        line = float(slope * p.u + icpt)
    else:
        line = float(vs.mean())
    return abs(p.v - line) / max(float(np.median([places[i].box_size for i in row])), 1e-6)


def _split_face_down_run(places: list[_Place], groups: list[list[int]]) -> list[list[int]]:
    """A concealed kong laid all four face down close beside an exposed meld: a face-down tile's back is
    boxed larger than a face, so the gap between them reads narrow and the tight grouping joins them (a
    chow and four backs make no meld). Four backs at one end of a group whose other three or four tiles
    make a meld by their codes are split off."""
    out = []
    for g in groups:
        order = sorted(g, key=lambda k: places[k].u)
        split = None
        if 7 <= len(order) <= 8:
            for backs, rest in ((order[:4], order[4:]), (order[-4:], order[:-4])):
                if all(places[k].is_back for k in backs) and not any(places[k].is_back for k in rest) \
                        and _meld_kind([places[k].det.code for k in rest]) is not None:
                    split = [rest, backs]
        out.extend(split or [g])
    return out


def _kong_backs(faces_down: Sequence[bool]) -> bool:
    """Whether four places, face down (True) or up, lie as a concealed kong shows: face-down ends, face-down
    middles, or all four face down."""
    return tuple(faces_down) in ((True, False, False, True), (False, True, True, False), (True,) * 4)


def _loose_backs(places: list[_Place], groups: list[list[int]]) -> tuple[list[list[int]], list[int]]:
    """Groups without the face-down tiles that no concealed kong can hold: in a group longer than a kong, a
    back that lies in no four neighbours shaped as one (``_kong_backs``). A tile back does not lie alone among
    standing tiles; a patterned cloth seen in a row's gaps reads as one. Answers the groups and the places
    taken out.

    >>> faces = lambda pattern: [type("P", (), {"is_back": c == "B", "u": n})() for n, c in enumerate(pattern)]
    >>> _loose_backs(faces("ffffBfBB"), [list(range(8))])
    ([[0, 1, 2, 3, 5]], [4, 6, 7])
    >>> _loose_backs(faces("fffBffB"), [list(range(7))])   # a kong shown with face-down ends, after a row
    ([[0, 1, 2, 3, 4, 5, 6]], [])
    """
    out: list[list[int]] = []
    loose: list[int] = []
    for g in groups:
        order = sorted(g, key=lambda k: places[k].u)
        down = [places[k].is_back for k in order]
        if len(order) <= 4 or all(down) or not any(down):
            out.append(g)
            continue
        held = set()
        for start in range(len(order) - 3):
            if _kong_backs(down[start:start + 4]):
                held.update(range(start, start + 4))
        gone = [order[i] for i, d in enumerate(down) if d and i not in held]
        loose.extend(gone)
        out.append([k for k in g if k not in gone])
    return out, loose


def _mend_melds(places: list[_Place], groups: list[list[int]], unmarked: bool = False) -> list[list[int]]:
    """Join two or three fragments following each other on one line, close together (under MEND of a
    tile), when together they make exactly one meld (with one sideways tile, or none yet when
    ``unmarked``): a meld that slightly wide gaps split (a sideways tile not yet known counts too short
    along the row; tiles that wander on the table)."""
    groups = [list(g) for g in groups]

    def follows(a: list[int], c: list[int], limit: float = MEND, across: float = 0.45) -> bool:
        if places[c[0]].u < places[a[-1]].u:
            return False
        end, start = places[a[-1]], places[c[0]]
        du, dv = _offsets(end, start)
        if abs(dv) > across * (start.box_size + end.box_size) / 2:
            return False
        return abs(du) - (end.along + start.along) / 2 <= limit * (end.pitch + start.pitch) / 2

    def lone_claim(a: list[int], c: list[int]) -> bool:
        """A lone tile and a pair beside it on the line that make one meld together, split at its claimed tile:
        in steep views the pair's pitch is read short, so the gap looks wide; and a wrong flag on the pair reads
        that tile longer along the row, so the gaps split the meld. Joined when the lone tile is sideways (the
        pair unflagged, or with flags of its own), or when two of the three carry a flag; a joined meld's flags
        are then judged again (``_implausible_flags``, ``_mark_sideways``). The pair alone is no group of a hand,
        so joining them risks nothing the reading had. (The flagged pairs, stop 23: with the detector in the
        loop +16 hands on seeds 10-17, two of them wrong before; none lost; the true boxes unchanged.)"""
        single, pair = (a, c) if len(a) == 1 else (c, a)
        if len(single) != 1 or len(pair) != 2 or any(places[k].is_back or places[k].extra for k in a + c):
            return False
        if not places[single[0]].sideways and sum(places[k].sideways for k in a + c) < 2:
            return False
        return follows(a, c, MEND_LONE) and _meld_kind([places[k].det.code for k in a + c]) is not None

    def meld_of(parts: list[list[int]]) -> bool:
        union = [k for g in parts for k in g]
        if len(union) not in (3, 4):
            return False
        ps = [places[k] for k in union]
        marks = sum(p.sideways for p in ps)
        if marks > 1 or (marks == 0 and not unmarked) or any(p.is_back or p.extra for p in ps):
            return False
        return _meld_kind([p.det.code for p in ps]) is not None

    def pushed_kong(parts: list[list[int]]) -> bool:
        """Four places of one face, two of them flagged: a kong whose fourth tile lies pushed off the sideways
        one (both flagged, as the renderer flags them), split by the gap the pushed tile leaves on the line;
        ``_detach_on_top`` then tells which of the two lies on top."""
        ps = [places[k] for g in parts for k in g]
        return len(ps) == 4 and sum(p.sideways for p in ps) == 2 and len({p.det.code for p in ps}) == 1 \
            and not any(p.is_back or p.extra for p in ps)


    def concealed_kong(parts: list[list[int]]) -> bool:
        """Four places, two or more face down, the face-up ones alike: a concealed kong (a face-down
        tile's back is boxed larger than a face, so the gap beside it is read wide)."""
        ps = [places[k] for g in parts for k in g]
        if len(ps) != 4 or any(p.sideways or p.extra for p in ps):
            return False
        faces = {p.det.code for p in ps if not p.is_back}
        return sum(p.is_back for p in ps) >= 2 and len(faces) <= 1

    def pair_joins(a: list[int], c: list[int]) -> bool:
        # a kong's two halves meet at the sideways tile and the one pushed off it, which lie across from each
        # other (up to 1.2 box sizes, as _detach_on_top takes them), not along one line
        return lone_claim(a, c) or (len(a) == len(c) == 2 and pushed_kong([a, c]) and follows(a, c, across=1.2))

    for a in [g for g in groups if len(g) <= 2]:
        for c in [g for g in groups if len(g) <= 2]:
            if a is not c and a in groups and c in groups and pair_joins(a, c):
                groups.remove(a)
                groups.remove(c)
                groups.append(a + c)
    joined = True
    while joined:
        joined = False
        small = [g for g in groups if len(g) <= 3]
        for a in small:
            for c in small:
                if a is c or not follows(a, c):
                    continue
                chains = [[a, c]] + [[a, c, e] for e in small if e is not a and e is not c and follows(c, e)]
                for chain in chains:
                    if meld_of(chain) or concealed_kong(chain) or pushed_kong(chain):
                        for g in chain:
                            groups.remove(g)
                        groups.append([k for g in chain for k in g])
                        joined = True
                        break
                if joined:
                    break
            if joined:
                break
    return groups


def _pose_apart(places: list[_Place], row: list[int], u: np.ndarray, wider: bool = False) -> int | None:
    """The end of a row (0 first, -1 last) whose tile lies in another pose than the rest (a winning tile laid
    flat at the end of a standing row, with hardly a gap), or None. ``wider``: only a tile longer along the row
    than the rest counts (laid flat, not cut short by a finger or the photo's edge)."""
    def ratio(k: int) -> float:
        w, h = places[k].det.width, places[k].det.height
        return (abs(w * u[0]) + abs(h * u[1])) / max(abs(w * u[1]) + abs(h * u[0]), 1e-6)

    inner = [ratio(k) for k in row[1:-1]]
    med = float(np.median(inner))
    if max(inner) / min(inner) > 1.3:  # the row itself varies: no telling
        return None
    odd = [end for end, k in ((0, row[0]), (-1, row[-1]))
           if (ratio(k) / med if wider else max(ratio(k) / med, med / ratio(k))) >= 1.45]
    return odd[0] if len(odd) == 1 else None


WIN_SPACING = 1.18
"""A row's end tile is set apart when its centre spacing (per box size) is this many times the row's own
nearby spacings (the guide's gap is 0.3-1 tile, a spacing of 1.3-2; rows laid tight measure 0.9-1.1)."""
WIN_RAW = 1.08
"""... and its raw spacing this many times the row's nearby raw spacings, extrapolated to the end."""
WIN_SPACING_MARGIN = 0.07
"""... and this much more than the other end's (a row stretched at both ends by a wide lens says nothing). 0.1
until stop 22; at 0.07 seed 15's 000111 (far end 1.33, near end 1.25 in a steep view) is read, and no other
reading of seeds 10-16 (true boxes and the detector's) changes; 0.05 reads the same."""


def _sized_spacings(places: list[_Place], row: list[int]) -> list[float]:
    """Each centre spacing along a row divided by the two boxes' mean size (perspective and a wide lens scale both
    alike)."""
    return [abs(_offsets(places[a], places[c])[0]) / ((places[a].box_size + places[c].box_size) / 2)
            for a, c in zip(row, row[1:])]


def _spacing_apart(places: list[_Place], row: list[int]) -> int | None:
    """The end of a row (0 first, -1 last) whose tile is set apart by its centre spacing, or None.

    The gap between boxes says little in long or steeply seen rows: a lying tile's box takes in its sides,
    so boxes overlap along the row and their overlap changes from one end to the other. The centres do not
    lie: each spacing is divided by the two boxes' mean size (perspective and a wide lens scale both alike),
    and the end spacing is compared with the median of the four nearest spacings inside the row (a box cut
    short by a finger moves its centre: one spacing grows, the next shrinks; the median keeps neither)."""
    if len(row) < 5:
        return None
    raw = [abs(_offsets(places[a], places[c])[0]) for a, c in zip(row, row[1:])]
    norm = _sized_spacings(places, row)
    flowers = [k for k, p in enumerate(places) if not p.is_back and p.det.code.is_bonus]

    def ratio(end: int) -> float:
        spacings = norm if end == -1 else norm[::-1]
        inner = spacings[:-1][::-1][:4]
        outer, near = (row[-1], row[-2]) if end == -1 else (row[0], row[1])
        lo, hi = sorted((places[outer].u, places[near].u))
        if any(lo < places[f].u < hi and _line_offset(places, row, f) < 0.6 for f in flowers):
            return 1.0  # a flower lay between them: the hole is its place, not a gap
        # the raw spacings must say so too (one box labelled smaller than its neighbours, as on a real
        # photo's hand-drawn labels, inflates the spacing per box size): the end spacing against the
        # nearest spacings inside the row, extrapolated along it (perspective grows them steadily)
        plain = (raw if end == -1 else raw[::-1])[:-1][::-1][:4]
        if len(plain) >= 3:
            expected = float(np.polyval(np.polyfit(np.arange(1, len(plain) + 1), plain, 1), 0))
        else:
            expected = float(np.median(plain))
        if (raw[-1] if end == -1 else raw[0]) < WIN_RAW * max(expected, 1e-6):
            return 1.0
        return spacings[-1] / max(float(np.median(inner)), 1e-6)

    first, last = ratio(0), ratio(-1)
    for end, mine, other in ((-1, last, first), (0, first, last)):
        if WIN_SPACING <= mine < 3.0 and mine - other >= WIN_SPACING_MARGIN:
            return end
    return None


CUT_BOX = 0.75
"""A row's end box this much smaller than its neighbour's is cut short (a finger, the photo's edge): its centre
has moved, so its spacing says nothing of a gap."""
WIN_FOLLOWS = 1.1
"""A lone tile at the row's end whose centre spacing is under this many times the row's spacings extrapolated
to it is one of the row, whatever its gap (on seeds 5-7 every winning tile set apart measured 1.2 or more)."""
WIN_OFFSET = 0.25
"""A row's end tile whose centre lies this far (in box sizes) off the line through the rest of a straight
row, the other end on it, lies in another pose: a winning tile laid flat at the end of a standing row (its
face lies further back than the standing faces), however small the gap. 0.3 until stop 36: at 0.25 seed 19's
000003 (0.29, the other end 0.01) and seed 10's 000094 (0.28) are read from the true boxes, and no other reading
of the held-out seeds 10, 12, 17-22 or of seed 11 changes, from the true boxes or the detector's; 0.2 reads the same."""


def _extrapolated_spacing(places: list[_Place], row: list[int], end: int) -> float:
    """The raw centre spacing at one end of a row (0 first, -1 last) over the spacing expected there from the
    row's nearest inner spacings, extrapolated along it (perspective grows them steadily towards the camera,
    so a near end tile's spacing is wider than its neighbours' without any gap)."""
    raw = [abs(_offsets(places[a], places[c])[0]) for a, c in zip(row, row[1:])]
    seq = raw if end == -1 else raw[::-1]  # seq[-1]: the end's spacing
    near = seq[:-1][::-1][:5]  # the nearest inner spacings, from the end inwards
    if not near:
        return 1.0
    # not a flower's hole in the row: a spacing half again as wide as its neighbours'
    kept = [(i + 1, x) for i, x in enumerate(near)
            if x <= 1.5 * min([near[j] for j in (i - 1, i + 1) if 0 <= j < len(near)] or [x])][:4]
    if not kept:
        return 1.0
    pos, inner = [p for p, _ in kept], [x for _, x in kept]
    expected = float(np.polyval(np.polyfit(pos, inner, 1), 0)) if len(inner) >= 3 else float(np.median(inner))
    return seq[-1] / max(expected, 1e-6)


def _sized_end_spacing(places: list[_Place], row: list[int], end: int) -> float:
    """The centre spacing at one end of a row (0 first, -1 last) per box size (``_sized_spacings``) over the median
    of the four nearest inside it."""
    sized = _sized_spacings(places, row)
    seq = sized if end == -1 else sized[::-1]
    inner = seq[:-1][::-1][:4]
    return seq[-1] / max(float(np.median(inner)), 1e-6) if inner else 1.0


def _end_by_spacing(places: list[_Place], row: list[int], candidates: list[tuple[int, int]]
                    ) -> tuple[int, int] | None:
    """Of two lone tiles, one at each end of the row, the one set apart by its centre spacing against the
    row's own spacings extrapolated to its end, and per box size against the nearest inside the row
    (``WIN_SPACING``, and ``WIN_SPACING_MARGIN`` above the other end's; a tile whose box is cut short says
    nothing), or None. Both must say so: in a close-up the near end's box also takes in the tile's side, and
    grows faster than the pitch (stop 35: seed 21's 000138, whose near end's spacing was 1.45 times the
    extrapolated one, its winning tile's 1.39; per box size 1.21 and 1.45)."""
    if len(row) < 4:
        return None
    ratios = []
    for k, side in candidates:
        full = sorted(row + [k], key=lambda i: places[i].u)
        near = full[-2] if side > 0 else full[1]
        cut = places[k].box_size < CUT_BOX * places[near].box_size
        end = -1 if side > 0 else 0
        ratios.append(1.0 if cut else min(_extrapolated_spacing(places, full, end),
                                          _sized_end_spacing(places, full, end)))
    for mine, other, cand in ((ratios[0], ratios[1], candidates[0]), (ratios[1], ratios[0], candidates[1])):
        if WIN_SPACING <= mine < 3.0 and mine - other >= WIN_SPACING_MARGIN:
            return cand
    return None


LIES_ON = "its box lies on the"
"""The start of the reason a box stacked on a more confident one is ignored (``_lies_on``)."""


def _lies_on(host: _Place) -> str:
    """Why a box stacked on a more confident one of another place (or of the same tile, boxed twice) is ignored."""
    return f"{LIES_ON} {host.det.code_str} (detection {host.index}), which is more confident"


SURE_APART = 0.5
"""Of two lone tiles at one end of the standing row, the one under this confidence, the other at least
``APART_MARGIN`` times as confident, is no winning tile: where it lies between the row and the other it is one of
the row, beyond it a stray box (a tile's top or side read as a face, a box across two tiles)."""
APART_MARGIN = 1.25


def _one_at_end(b: _Builder, places: list[_Place], row: list[int], candidates: list[tuple[int, int]],
                gaps: dict[int, float], wanted: int) -> tuple[list[int], list[tuple[int, int]]]:
    """The standing row and the winning tile when two lone tiles lie at the same end of it (the layout sets one
    apart): the same tile boxed twice (one code, stacked boxes: the less confident box is ignored), two alike that
    the hand needs both of (the hand is the same whichever won), or one sure and one unsure tile (``SURE_APART``),
    when the tile count then makes a hand (``wanted``: standing tiles and the winning tile). Otherwise both stay
    candidates, and the winning tile is asked."""
    near, far = sorted(candidates, key=lambda c: gaps[c[0]])
    a, c = places[near[0]], places[far[0]]
    if a.det.code == c.det.code and _overlap(a.det.box, c.det.box) >= STACK_OVERLAP:
        keep, drop = (near, far) if a.det.confidence >= c.det.confidence else (far, near)
        host = places[keep[0]]
        b.ignore(places[drop[0]].index, _lies_on(host))
        return row, [keep]
    if a.det.code == c.det.code and len(row) + 2 == wanted:
        # two alike, and the hand needs both: whichever won, the hand is the same (stop 22: seed 13's 000080, the
        # pair's second tile a little apart from the row's end, the winning tile far beyond it); the far one is taken
        return sorted(row + [near[0]], key=lambda k: places[k].u), [far]
    sure, unsure = sorted((near, far), key=lambda x: -places[x[0]].det.confidence)
    if places[unsure[0]].det.confidence >= SURE_APART \
            or places[sure[0]].det.confidence < APART_MARGIN * places[unsure[0]].det.confidence:
        return row, candidates
    if unsure is near:  # between the row and the winning tile: the row's end tile
        if len(row) + 2 != wanted:
            return row, candidates
        return sorted(row + [near[0]], key=lambda k: places[k].u), [far]
    if len(row) + 1 != wanted:
        return row, candidates
    stray = places[far[0]]
    for index in (stray.index, *stray.extra):  # the place's detection and any stacked on it
        b.ignore(index, f"it lies beyond the winning tile, and its reading was unsure ({stray.det.confidence:.2f})")
    return row, [near]


def _offset_apart(places: list[_Place], row: list[int]) -> int | None:
    """The end of a straight row (0 first, -1 last) whose tile lies off its line (``WIN_OFFSET``) while the
    other end lies on it, or None."""
    if len(row) < 6:
        return None
    offs = [_line_offset(places, row[1:], row[0]), _line_offset(places, row[:-1], row[-1])]
    inner = row[1:-1]
    if max(_line_offset(places, [i for i in inner if i != k], k) for k in inner) >= 0.12:
        return None  # the row itself wanders: no telling
    for end, mine, other in ((0, offs[0], offs[1]), (-1, offs[1], offs[0])):
        if mine >= WIN_OFFSET and other < WIN_OFFSET / 2:
            return end
    return None


@dataclass
class _MeldRead:
    group: list[int]  # places in u order
    kind: str  # "exposed", "concealed", "plain"


def _read(b: _Builder, places: list[_Place], groups: list[list[int]], flowers: list[int],
          u: np.ndarray, distrust: frozenset[int] = frozenset()) -> Reading:
    tiles = b.dets.tiles
    meldlike = [g for g in groups if any(places[k].is_back or places[k].extra for k in g)
                or (3 <= len(g) <= 4 and any(places[k].sideways for k in g))]
    plain = [g for g in groups if g not in meldlike]
    # face-down tiles lying apart, fewer than a concealed kong shows: no meld by themselves (a patterned cloth
    # read as tile backs, another player's tile); whether they are a kong missing its faces waits for the hand
    backs_apart = [g for g in meldlike if len(g) < 4 and all(places[k].is_back and not places[k].extra for k in g)]
    meldlike = [g for g in meldlike if g not in backs_apart]
    for g in plain:
        for k in g:
            places[k].sideways = False  # a lone or paired tile's shape says nothing of a claim

    # the concealed row: the largest plain group; its collinear neighbours
    concealed: list[int] = []
    winning: int | None = None
    win_side = 0
    stray: list[list[int]] = []
    candidates: list[tuple[int, int]] = []  # (place, side)
    gaps: dict[int, float] = {}
    win_known = True  # whether the winning tile's end is known (it gives the reading direction)
    parallel_joined = False
    if plain:
        plain.sort(key=lambda g: (-len(g), -float(np.mean([places[k].centre[1] for k in g]))))
        # the standing row: the largest plain group, unless a smaller one (of a row in two) has the winning tile
        tries = [_find_row(places, plain, i) for i, g in enumerate(plain) if i == 0 or len(g) >= 3]
        concealed, candidates, gaps, stray = next((t for t in tries if len(t[1]) == 1), tries[0])
        paired = _pair_as_row(places, plain, meldlike, (concealed, candidates, gaps, stray))
        if paired is not None:
            concealed, candidates, gaps, stray = paired
            b.notes.append("the standing tiles are a pair lying apart; a group without a sideways tile is taken "
                           "for a meld, as the tile count says")
        # a second row of standing tiles, beside the first, when the count says so
        # without the detector's flags, a group beside the row that makes a meld by its codes may be a meld
        # whose sideways tile does not show (claimed from across): it stays apart, and its claim is asked (so too
        # when some flags proved implausible and the rest count only where the geometry bears them out)
        parallel = [g for g in stray if len(g) >= 2 and _beside_row(places, concealed, g)
                    and (not distrust or not (len(g) in (3, 4) and _meld_kind([places[k].det.code for k in g])))]
        wanted = 14 - 3 * len(meldlike) - len(candidates[:1])
        if parallel and len(concealed) + sum(map(len, parallel)) == wanted:
            parallel_joined = True
            for g in parallel:
                stray.remove(g)
                concealed = concealed + g
            b.notes.append("the standing tiles lie in more than one row")
        if len(candidates) == 2 and len(concealed) >= 2 and candidates[0][1] != candidates[1][1]:
            # a tile alone at each end: the one set clearly further apart is the winning tile
            wide, narrow = sorted(candidates, key=lambda c: -gaps[c[0]])
            if gaps[wide[0]] >= 2 * max(gaps[narrow[0]], 0.05):
                concealed = sorted(concealed + [narrow[0]], key=lambda k: places[k].u)
                candidates = [wide]
            else:  # the gaps do not say (steep views: the near end's tiles grow faster than their pitch)
                pick = _end_by_spacing(places, concealed, candidates)
                if pick is None and places[candidates[0][0]].det.code == places[candidates[1][0]].det.code:
                    # both alike: the winning tile is that tile whichever it is (its end says no direction)
                    pick, win_known = candidates[0], False
                if pick is not None:
                    concealed = sorted(concealed + [k for k, _ in candidates if k != pick[0]],
                                       key=lambda k: places[k].u)
                    candidates = [pick]
        if len(candidates) == 2 and candidates[0][1] == candidates[1][1]:
            # two lone tiles at one end, where the layout has one: a box read twice, or a stray box beside it
            concealed, candidates = _one_at_end(b, places, concealed, candidates, gaps,
                                                14 - 3 * len(meldlike))
        if len(candidates) == 1 and len(concealed) >= 4 and not parallel_joined:
            # a lone tile whose centre spacing follows the row's own, extrapolated to its end, is not set
            # apart: in a steep view the near end's tiles grow faster than the pitch the gaps are measured by
            k, side = candidates[0]
            full = sorted(concealed + [k], key=lambda i: places[i].u)
            near = full[-2] if side > 0 else full[1]
            if places[k].box_size >= CUT_BOX * places[near].box_size \
                    and _extrapolated_spacing(places, full, -1 if side > 0 else 0) < WIN_FOLLOWS:
                concealed, candidates = full, []
        if len(candidates) == 1 and len(concealed) >= 5 and not parallel_joined:
            # a lone tile set apart at one end, and at the other end a tile in another pose (laid flat at the
            # end of a standing row): the pose wins; in a steep view the near end's first tile looks set apart
            k, side = candidates[0]
            full = sorted(concealed + [k], key=lambda i: places[i].u)
            end = _pose_apart(places, full, u, wider=True)
            if end is not None and full[end] != k:
                candidates = [(full[end], 1 if end else -1)]
                concealed = [i for i in full if i != full[end]]
        if not candidates and len(concealed) >= 5:
            end = _pose_apart(places, concealed, u)
            if end is None:
                end = _spacing_apart(places, concealed)
            if end is None and not parallel_joined:
                end = _offset_apart(places, concealed)
            if end is not None:
                candidates = [(concealed[end], 1 if end else -1)]
                concealed = concealed[1:] if end == 0 else concealed[:-1]
        if len(concealed) == 1 and len(candidates) == 1:
            # one tile and the winning tile, both alone (a four-meld hand): which is which waits for the direction
            candidates = [(concealed[0], -candidates[0][1]), candidates[0]]
            concealed = []
        sides = {s for _, s in candidates}
        if len(candidates) == 1:
            winning, win_side = candidates[0]
        elif len(candidates) == 2 and len(sides) == 2 and not concealed:
            # one tile and the winning tile, both alone: the pair of a four-meld hand
            pass
        else:  # no telling which: they stay with the row, and the winning tile is asked
            concealed = sorted(concealed + [k for k, _ in candidates], key=lambda k: places[k].u)
            candidates = []

    # melds' shapes (direction-free)
    reads = [_MeldRead(g, "concealed" if any(places[k].is_back for k in g) else "exposed") for g in meldlike]
    # a pung's sideways tile that the evidence does not settle is a guess (in an oblique view a pung claimed
    # from across measures like one claimed from the left): without the detector's flags, one the boxes do
    # not show; with them, one where the flag and the spacing disagree. Its claim is asked.
    for r in reads:
        if r.kind == "exposed" and not any(places[k].extra or places[k].hidden_under for k in r.group) \
                and _meld_kind([places[k].det.code for k in r.group]) in (MeldKind.PUNG, MeldKind.KONG) \
                and not any(places[k].sideways and places[k].basis in SURE_BASIS for k in r.group) \
                and (distrust or any(places[k].basis == "conflict" for k in r.group)):
            r.kind = "plain"
    # plain groups apart from the row that form a meld by their tiles: a meld without its sideways tile
    leftover: list[list[int]] = []
    for g in stray:
        codes = [places[k].det.code for k in g]
        if len(g) in (3, 4) and _meld_kind(codes) is not None:
            reads.append(_MeldRead(g, "plain"))
        else:
            leftover.append(g)

    # 5. the reading direction
    evidence, strong = 0.0, False
    if winning is not None and win_known:
        evidence += 3.0 * win_side
        strong = True
    for r in reads:
        if r.kind != "exposed":
            continue
        order = r.group
        codes = [places[k].det.code for k in order]
        side = [i for i, k in enumerate(order) if places[k].sideways]
        if len(order) == 3 and len(side) == 1 and _meld_kind(codes) is MeldKind.CHOW and not places[order[side[0]]].extra:
            if side[0] == 0:
                evidence += 2.0
                strong = True
            elif side[0] == 2:
                evidence -= 2.0
                strong = True
    weak = 0.0
    if abs(u[0]) > 0.6:
        weak += 0.5 * (1 if u[0] > 0 else -1)  # a photo taken from the player's side reads left to right
    if len(concealed) >= 4:
        idx = [places[k].det.code.index for k in concealed if not places[k].is_back]
        up = sum(1 for x, y in zip(idx, idx[1:]) if y > x)
        down = sum(1 for x, y in zip(idx, idx[1:]) if y < x)
        if abs(up - down) >= 3:
            weak += 0.6 * (1 if up > down else -1)
    total = evidence + weak
    sign = 1 if total > 0 else -1 if total < 0 else 1
    direction = tuple(float(x) for x in (u * sign))
    ambiguous = not strong or (evidence != 0 and abs(evidence) < 2.0)

    # the pair of a four-meld hand: both alone; the winning one is the right one
    if winning is None and len(candidates) == 2:
        right = max(candidates, key=lambda c: c[1] * sign)
        winning = right[0]
        concealed = sorted(concealed + [c[0] for c in candidates if c[0] != winning], key=lambda k: places[k].u)

    # 6. melds in reading order (along the meld row), with directions
    reads.sort(key=lambda r: sign * float(np.mean([places[k].u for k in r.group])))
    melds: list[tuple[Meld, _MeldRead, str]] = []
    direction_matters = False
    kong_question: _MeldRead | None = None
    for r in reads:
        order = r.group if sign > 0 else r.group[::-1]
        built = _build_meld(b, places, order, r)
        if built is None:
            _ask_not_a_meld(b, places, order)
            continue
        meld, how, depends = built
        direction_matters |= depends
        if meld is None:  # all four face down
            kong_question = r
            melds.append((None, r, how))  # type: ignore[arg-type]
            continue
        melds.append((meld, r, how))

    for g in leftover:
        for k in g:
            b.ignore(places[k].index, APART)
            for e in places[k].extra:
                b.ignore(e, APART)

    # 7. the winning tile, the hand, the questions
    concealed_tiles = [places[k].det.code for k in concealed]
    for k in concealed:
        if places[k].is_back:
            b.ignore(places[k].index, "a face-down tile among the standing tiles: it is not part of a concealed kong")
    concealed_tiles = [t for t in concealed_tiles if t != BACK]
    win_tile = places[winning].det.code if winning is not None and not places[winning].is_back else None
    flower_tiles = [tiles[i].code for i in flowers]
    if win_tile is None and len(concealed_tiles) >= 2 and len(set(concealed_tiles)) == 1:
        # every standing tile alike (the pair of a four-meld hand): the winning tile is that tile, whichever it was
        win_tile = concealed_tiles.pop()
        winning = next(k for k in reversed(concealed if sign > 0 else concealed[::-1]) if not places[k].is_back)
        concealed = [k for k in concealed if k != winning]

    def make(melds_now: list[Meld], win: Tile | None, extra_standing: Sequence[Tile] = ()) -> Hand:
        standing = list(concealed_tiles) + list(extra_standing)
        return Hand(concealed=tuple(standing), melds=tuple(melds_now), winning_tile=win, flowers=tuple(flower_tiles))

    known_melds = [m for m, _, _ in melds if m is not None]
    face_down_kongs: FaceDownKongs | None = None
    if kong_question is not None:
        others_count = Counter(concealed_tiles + ([win_tile] if win_tile else []))
        for m in known_melds:
            others_count.update(m.tiles)
        pending = FaceDownKongs(tuple(concealed_tiles) + ((win_tile,) if win_tile else ()),
                                tuple(m for m, _, _ in melds), win_tile, tuple(flower_tiles))
        free = [tile for tile in PLAYING_TILES if not others_count[tile]]
        unknown = sum(m is None for m in pending.melds)
        if unknown == 1:  # each choice carries its whole hand
            choices = tuple(Choice(tile.code, _attempt(lambda t=tile: pending.with_kongs([t]))) for tile in free)
            b.questions.append(Question(KONG_FACE_DOWN, "All four tiles of a concealed kong lie face down: "
                                        "which tile is it?", choices))
        else:  # one question a kong; the hand is built once all are answered (Reading.answer)
            ordinals = ("first", "second", "third", "fourth")  # a hand holds four sets; a photo may show more
            for n, qid in enumerate(face_down_kong_ids(unknown)):
                ordinal = ordinals[n] if n < len(ordinals) else f"{n + 1}th"
                b.questions.append(Question(
                    qid, f"{unknown} concealed kongs lie with all four tiles face down. The {ordinal} of them (in "
                         "reading order): which tile is it?", tuple(Choice(tile.code) for tile in free)))
            face_down_kongs = pending
    final_melds = known_melds if kong_question is None else None

    hand: Hand | None = None
    if final_melds is not None:
        if win_tile is None:
            options = []
            for tile in sorted(set(concealed_tiles), key=lambda t: t.index):
                hand_c = _attempt(lambda t=tile: Hand(tuple(concealed_tiles), tuple(final_melds), t, tuple(flower_tiles)))
                options.append(Choice(tile.code, hand_c))
            b.questions.append(Question(
                "winning-tile", "No tile lies apart at the right end of the standing row: which tile was the winning "
                                "tile?", tuple(options)))
        else:
            try:
                hand = make(final_melds, win_tile, [win_tile])
            except HandError as error:
                b.questions.append(Question("hand", f"The tiles read do not make a hand: {error.message} "
                                                    "Please correct the hand."))
    if hand is not None and ambiguous and direction_matters:
        flipped = _flipped(b, places, reads, sign)
        alt = _attempt(lambda: make(flipped, win_tile, [win_tile])) if flipped is not None else None
        if alt is not None and alt != hand:
            b.questions.append(Question(
                "direction", "Which way does the hand read? The layout does not say which side is the player's, "
                             "so the melds' claims (left or right) are uncertain.",
                (Choice("as read (" + _describe_direction(direction) + ")", hand),
                 Choice("the other way round", alt))))
    whole = bool(backs_apart) and hand is not None and is_winning_shape(hand)
    for g in backs_apart:
        if whole:  # the hand is a winning one without them: they cannot be part of it
            for k in g:
                b.ignore(places[k].index, BACKS_APART)
            continue
        _ask_not_a_meld(b, places, g)
    if b.questions and hand is not None and any(q.id in ("hand",) for q in b.questions):
        hand = None

    # evidence
    evidence_rows: list[TileEvidence] = []
    concealed_order = concealed if sign > 0 else concealed[::-1]
    for pos, k in enumerate(k for k in concealed_order if not places[k].is_back):
        evidence_rows.append(TileEvidence(places[k].index, places[k].det.code_str, "concealed", pos,
                                          places[k].det.confidence))
    if winning is not None:
        evidence_rows.append(TileEvidence(places[winning].index, places[winning].det.code_str, "winning", 0,
                                          places[winning].det.confidence))
    meld_evidence: list[MeldEvidence] = []
    meld_number = 0
    for meld, r, how in melds:
        order = r.group if sign > 0 else r.group[::-1]
        dets: list[int] = []
        confs: list[float] = []
        name = f"meld:{meld_number}" if meld is not None else "meld:?"
        pos = 0
        for k in order:
            p = places[k]
            code = meld.tiles[0].code if (meld is not None and meld.kind is not MeldKind.CHOW and p.is_back) \
                else p.det.code_str
            evidence_rows.append(TileEvidence(p.index, code, name, pos, p.det.confidence, p.sideways, p.is_back))
            dets.append(p.index)
            confs.append(p.det.confidence)
            pos += 1
            for e in p.extra:
                evidence_rows.append(TileEvidence(e, tiles[e].code_str, name, pos, tiles[e].confidence, True,
                                                  False, True))
                dets.append(e)
                confs.append(tiles[e].confidence)
                pos += 1
        if meld is not None:
            factor = 0.8 if (ambiguous and direction_matters) else 1.0
            if r.kind == "plain":
                factor = 0.6
            meld_evidence.append(MeldEvidence(meld, min(confs) * factor, tuple(dets), how))
            meld_number += 1
    for pos, i in enumerate(flowers):
        evidence_rows.append(TileEvidence(i, tiles[i].code_str, "flower", pos, tiles[i].confidence))
    width, height = b.dets.width, b.dets.height
    if any(tiles[t.detection].box[0] <= 1 or tiles[t.detection].box[1] <= 1 or tiles[t.detection].box[2] >= width - 1
           or tiles[t.detection].box[3] >= height - 1 for t in evidence_rows):
        b.notes.append("some tiles touch the photo's edge: check that the whole hand is in the photo")
    if ambiguous and not direction_matters:
        b.notes.append("The reading direction was not clear from the layout, but no meld's claim depends on it.")
    return Reading(hand, tuple(b.questions), tuple(evidence_rows), tuple(meld_evidence),
                   tuple(sorted(b.ignored, key=lambda x: x.detection)), direction, tuple(b.notes),
                   face_down_kongs=face_down_kongs)


def _ask_not_a_meld(b: _Builder, places: list[_Place], order: list[int]) -> None:
    """A group lying like a meld that forms none: its tiles are ignored, and question ``meld-N`` asks."""
    for k in order:
        b.ignore(places[k].index, NOT_A_MELD)
        for e in places[k].extra:
            b.ignore(e, NOT_A_MELD)
    b.questions.append(Question(
        f"meld-{len(b.questions) + 1}",
        "These tiles lie together like a meld but do not form one: "
        + " ".join(_label(places[k]) for k in order) + ". Please correct the hand."))


def _attempt(make) -> Hand | None:
    try:
        return make()
    except HandError:
        return None


def _find_row(places: list[_Place], plain: list[list[int]], first: int
              ) -> tuple[list[int], list[tuple[int, int]], dict[int, float], list[list[int]]]:
    """Starting from plain[first]: the row (with its split pieces), the lone tiles at its ends (place,
    side), their gaps, and the groups left over."""
    row = list(plain[first])
    rest = [g for i, g in enumerate(plain) if i != first]
    merged = True
    while merged:  # split pieces of the row (same line, size >= 2, close) join it
        merged = False
        for g in rest:
            if len(g) >= 2 and _end_offset(places, row, g) < 0.6 and _row_gap(places, row, g) < 1.2:
                row = sorted(row + g, key=lambda k: places[k].u)
                rest.remove(g)
                merged = True
                break
    candidates: list[tuple[int, int]] = []
    gaps: dict[int, float] = {}
    stray: list[list[int]] = []
    # the winning tile's gap must stand out from the row's own (an unevenly laid row has wide gaps too)
    inner = [(abs(_offsets(places[a], places[c])[0]) - (places[a].along + places[c].along) / 2)
             / ((places[a].pitch + places[c].pitch) / 2) for a, c in zip(row, row[1:])]
    inner = [x for x in inner if x < 0.6]  # not the holes a flower lying in the row leaves
    apart = max(WIN_GAP, WIN_RATIO * float(np.percentile(inner, 90))) if len(inner) >= 3 else WIN_GAP
    for g in rest:
        if len(g) == 1 and min(_line_offset(places, row, g[0]), _end_offset(places, row, g)) < 1.0:
            gap = _row_gap(places, row, g)
            if apart <= gap < 3.0:
                side = 1 if places[g[0]].u > places[row[-1]].u else -1
                candidates.append((g[0], side))
                gaps[g[0]] = gap
                continue
            if gap < apart:  # close, but no clearer apart than the row's own gaps: one of the row
                row = sorted(row + g, key=lambda k: places[k].u)
                continue
        stray.append(g)
    return row, candidates, gaps, stray


HAND_TILES = 14
"""A winning hand's tiles, each kong counted as three."""


def _counted(places: list[_Place], meldlike: list[list[int]],
             row: tuple[list[int], list[tuple[int, int]], dict[int, float], list[list[int]]]) -> int:
    """The hand's tiles (each kong as three) when ``row`` (``_find_row``'s answer) is the standing row: the melds
    shown, the groups apart from the row that make a meld by their tiles (read as melds without their sideways
    tile), the row and one tile lying apart at an end (more than one at an end is a question, not a count)."""
    concealed, candidates, _, stray = row
    apart_melds = sum(1 for g in stray if len(g) in (3, 4) and _meld_kind([places[k].det.code for k in g]))
    return 3 * (len(meldlike) + apart_melds) + len(concealed) + len(candidates[:1])


def _pair_as_row(places: list[_Place], plain: list[list[int]], meldlike: list[list[int]],
                 chosen: tuple[list[int], list[tuple[int, int]], dict[int, float], list[list[int]]]
                 ) -> tuple[list[int], list[tuple[int, int]], dict[int, float], list[list[int]]] | None:
    """The standing row of a hand whose standing tiles are only a pair (four melds shown), when a meld lost its
    sideways tile (a flag the detector missed, a meld claimed from across): that meld is then the largest plain
    group and was taken for the row, and the pair, lying apart, was left out. A pair of one face lying apart from
    a row that makes a meld by its tiles is the row instead, where the tile count says so (14 that way, not the
    other); the meld keeps a question (its claim, or whether it is a meld at all). None where it does not apply."""
    row = chosen[0]
    if not 3 <= len(row) <= 4 or _meld_kind([places[k].det.code for k in row]) is None \
            or _counted(places, meldlike, chosen) == HAND_TILES:
        return None
    fits = {}
    for i, g in enumerate(plain):
        if len(g) > 2 or g == row:
            continue
        tried = _find_row(places, plain, i)
        pair = tried[0] + [k for k, _ in tried[1]]
        if len(pair) == 2 and len(tried[1]) <= 1 and not places[pair[0]].is_back \
                and places[pair[0]].det.code == places[pair[1]].det.code \
                and _counted(places, meldlike, tried) == HAND_TILES:
            fits.setdefault(frozenset(pair), tried)  # the pair's two lone tiles find each other
    return next(iter(fits.values())) if len(fits) == 1 else None


def _beside_row(places: list[_Place], row: list[int], g: list[int]) -> bool:
    """Whether a group lies beside the row, parallel to it, within three tiles and overlapping it along."""
    us = [places[k].u for k in row]
    size = float(np.median([places[k].box_size for k in row]))
    for k in g:
        p = places[k]
        near = min(row, key=lambda i: abs(places[i].u - p.u))
        if not (min(us) - size <= p.u <= max(us) + size) or abs(p.v - places[near].v) > 3 * size:
            return False
    return True


def _end_offset(places: list[_Place], row: list[int], g: list[int]) -> float:
    """How far a group lies across the row's line where they meet (nearest ends, local direction), in box sizes."""
    best = (math.inf, 0.0)
    for i in (row[0], row[-1]):
        for k in (g[0], g[-1]):
            du, dv = _offsets(places[i], places[k])
            scale = (places[i].box_size + places[k].box_size) / 2
            best = min(best, (abs(du) / scale, abs(dv) / scale))
    return best[1]


def _row_gap(places: list[_Place], row: list[int], g: list[int]) -> float:
    """The gap between a row and a group along the row, in tile sizes (the nearest ends)."""
    best = math.inf
    for i in (row[0], row[-1]):
        for k in (g[0], g[-1]):
            a, c = places[i], places[k]
            gap = abs(_offsets(a, c)[0]) - (a.along + c.along) / 2
            best = min(best, gap / ((a.size + c.size) / 2))
    return best


def _label(p: _Place) -> str:
    return p.det.code_str + ("(sideways)" if p.sideways else "")


def _describe_direction(direction: tuple[float, float]) -> str:
    x, y = direction
    if abs(x) >= abs(y):
        return "left to right in the photo" if x > 0 else "right to left in the photo"
    return "top to bottom in the photo" if y > 0 else "bottom to top in the photo"


def _meld_kind(codes: Sequence[Any]) -> MeldKind | None:
    if any(c == BACK for c in codes):
        return None
    tiles = sorted(codes, key=lambda t: t.index)
    if len(tiles) == 4 and all(t == tiles[0] for t in tiles):
        return MeldKind.KONG
    if len(tiles) == 3 and all(t == tiles[0] for t in tiles):
        return MeldKind.PUNG
    if len(tiles) == 3 and tiles[0].is_numbered and all(
            t.suit is tiles[0].suit and t.rank == tiles[0].rank + i for i, t in enumerate(tiles)):
        return MeldKind.CHOW
    return None


def _build_meld(b: _Builder, places: list[_Place], order: list[int], r: _MeldRead
                ) -> tuple[Meld | None, str, bool] | None:
    """The meld of a group in reading order: (meld or None for an all-face-down kong, how, whether its
    direction depends on the reading direction); None when the group is not a meld."""
    ps = [places[k] for k in order]
    if r.kind == "concealed":
        if len(ps) != 4 or any(p.extra for p in ps):
            return None
        faces = [p.det.code for p in ps if not p.is_back]
        downs = tuple(i for i, p in enumerate(ps) if p.is_back)
        if not faces:
            return None, "concealed kong, all four face down", False
        if any(f != faces[0] for f in faces):
            return None
        custom = {(0, 3): "face-down ends", (1, 2): "face-down middles"}.get(downs, "face-down tiles")
        try:
            return Meld.kong(faces[0], concealed=True), f"concealed kong, {custom}", False
        except HandError:
            return None
    codes = [p.det.code for p in ps]
    for p in ps:
        codes.extend(b.dets.tiles[e].code for e in p.extra)
        if p.hidden_under:
            codes.append(p.det.code)  # the sideways tile under it, which the photo does not show
    kind = _meld_kind(codes)
    if kind is None:
        return None
    if r.kind == "plain":
        tile = sorted(codes, key=lambda t: t.index)[0]
        meld = Meld(kind, tuple(codes))
        shown = "does not show clearly which tile lies sideways" if any(p.basis == "conflict" for p in ps) \
            else "shows no sideways tile"
        if kind is MeldKind.CHOW:  # a chow is only ever claimed from the left: what is open is whether it was
            text = "is it a declared meld (claimed from the left, as every chow is)?"
            directions = (Direction.LEFT,)
        else:
            text = "is it a declared meld, and whose discard was claimed?"
            directions = (Direction.LEFT, Direction.ACROSS, Direction.RIGHT)
        qid = f"claim-{tile.code}"
        choices = tuple(Choice(d.value) for d in directions) + (
            Choice(CONCEALED_KONG if kind is MeldKind.KONG else NOT_DECLARED),)
        asked = next((i for i, q in enumerate(b.questions) if q.id == qid), None)
        if asked is not None and b.questions[asked].choices != choices:  # (the choices tell the kinds apart)
            # a meld of another kind asks about the same first tile (a chow 345s beside a pung of 3s): its own id
            qid, asked = f"{qid}-{kind.value}", None
        if asked is None:
            b.questions.append(Question(qid, f"The {kind.value} of {tile.code} {shown}: {text}", choices))
        else:  # two alike chows (a pure double chow; no two pungs or kongs share a tile): one question for both
            b.questions[asked] = Question(qid, f"Two chows of {tile.code} show no sideways tile: are they declared "
                                               "melds (claimed from the left, as every chow is)?", choices)
        return meld, "exposed meld without a sideways tile (claim unknown)", False
    side = [i for i, p in enumerate(ps) if p.sideways]
    if len(side) != 1:
        return None
    pos, n = side[0], len(ps)
    has_extra = bool(ps[pos].extra) or ps[pos].hidden_under
    if kind is MeldKind.KONG and not has_extra and n != 4:
        return None
    last = n - 1
    claimed = Direction.LEFT if pos == 0 else Direction.RIGHT if pos == last else Direction.ACROSS
    claimed_tile = ps[pos].det.code
    depends = claimed is not Direction.ACROSS
    how = {Direction.LEFT: "claimed from the left (sideways tile first)",
           Direction.ACROSS: "claimed from across (sideways tile in the middle)",
           Direction.RIGHT: "claimed from the right (sideways tile last)"}[claimed]
    if ps[pos].hidden_under:
        how += ", a fourth tile on the sideways one, hiding it"
    elif has_extra:
        how += ", a fourth tile on the sideways one"
    if kind is MeldKind.CHOW and claimed is not Direction.LEFT:
        qid = f"chow-{claimed_tile.code}"
        if not any(q.id == qid for q in b.questions):  # two alike chows ask once: ids are unique, one answer holds
            b.questions.append(Question(
                qid, f"The chow's sideways tile ({claimed_tile.code}) lies "
                     f"{'in the middle' if claimed is Direction.ACROSS else 'on the right'}, "
                     "but a chow can only be claimed from the left. Is it read right?",
                (Choice("yes, claimed from the left"),)))
        claimed = Direction.LEFT
    try:
        return Meld(kind, tuple(codes), claimed=claimed, claimed_tile=claimed_tile), how, depends
    except HandError:
        return None


def _flipped(b: _Builder, places: list[_Place], reads: list[_MeldRead], sign: int) -> list[Meld] | None:
    """The melds as they would read the other way round (for the direction question)."""
    quiet = _Builder(b.dets)
    out = []
    for r in sorted(reads, key=lambda r: -sign * float(np.mean([places[k].u for k in r.group]))):
        order = r.group[::-1] if sign > 0 else r.group
        built = _build_meld(quiet, places, order, r)
        if built is None or built[0] is None:
            return None
        out.append(built[0])
    return out


__all__ = ["Choice", "Ignored", "MeldEvidence", "Question", "Reading", "TileEvidence", "extents", "group",
           "row_angle"]
