"""The photo reader the server calls: anything with ``scan(image) -> reading``.

A reading is a dict::

    {"detection": <the spec's detection JSON>,
     "hand": <the spec's hand JSON, or None when the tiles could not be grouped into a hand>,
     "questions": [{"id": "...", "text": "...", "choices": [...]}, ...]}

``create_app`` takes the reader as the config key ``SCANNER``. Without one it asks ``find_scanner()``,
which answers None until ``vision/`` has a detector and ``models/`` a model: the API then answers 503
``no_detector`` and the page offers manual entry. Tests, benchmarks and demos inject ``FixedScanner``.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import logging
import threading
from pathlib import Path
from typing import Any, Callable, Protocol

from PIL import Image

from scorer.codec import hand_from_dict, hand_to_dict
from scorer.errors import HandError
from scorer.hand import Hand
from scorer.notation import parse_hand

log = logging.getLogger(__name__)

MODELS_DIR = Path(__file__).resolve().parent.parent / "models"

NO_DETECTOR_MESSAGE = ("Photo reading is not available yet: this server has no tile detector installed. "
                       "Enter the hand by hand instead (the page's manual entry, or POST /api/score).")


class Scanner(Protocol):
    def scan(self, image: Image.Image) -> dict[str, Any]:
        """Read an upright RGB photo: ``{"detection": ..., "hand": ... or None, "questions": [...]}``. A scanner
        whose ``scan`` also takes ``score`` (a hand to its Score) answers, besides, which questions can change the
        score (``weigh``): ``/api/scan`` passes it where it is taken (``takes_score``)."""


def takes_score(scanner: Any) -> bool:
    """Whether the scanner's ``scan`` takes the keyword ``score``."""
    try:
        return "score" in inspect.signature(scanner.scan).parameters
    except (TypeError, ValueError):
        return False


def find_scanner(models_dir: Path | str | None = None) -> Scanner | None:
    """The shipped detector as a Scanner, or None when there is none yet.

    There is one when the module ``vision.detector`` exists and ``models/`` holds an ``.onnx`` file
    (``models/detector.onnx`` preferred, else the first by name; ``classifier*.onnx`` and ``bonus*.onnx``, the
    tile classifier and the bonus reader a two-stage detector loads itself, are never taken for the detector). Nothing heavy is imported here:
    the detector loads on the first photo."""
    try:
        if importlib.util.find_spec("vision.detector") is None:
            return None
    except (ImportError, ValueError):
        return None
    folder = Path(models_dir) if models_dir is not None else MODELS_DIR
    # the tile classifier and the bonus reader sit beside a one-class detector: neither is a detector
    models = sorted(m for m in folder.glob("*.onnx") if not m.stem.startswith(("classifier", "bonus"))) \
        if folder.is_dir() else []
    if not models:
        return None
    preferred = folder / "detector.onnx"
    return VisionScanner(preferred if preferred in models else models[0])


class VisionScanner:
    """The adapter from vision/ to the server's Scanner interface (the one place to change if vision/'s
    interface moves; docs/server.md gives the contract).

    Detection: ``vision.detector.Detector(model_path).detect(image)``, or else a module-level
    ``vision.detector.detect(image, model_path)``; the answer is the detection JSON or has ``to_dict()``.
    Grouping: ``vision.grouping.group(detections)`` (or ``vision.group.group``), answering a reading with
    ``hand`` (a scorer Hand, hand JSON or None) and ``questions``, as attributes, dict keys or
    ``to_dict()``. When the reading has ``tag_detection(detections)`` (vision.grouping's ``Reading``), the
    detection answered is that one: the spec's detection JSON with each used tile's ``group``
    (``concealed``, ``winning``, ``meld:N``, ``flowers``), which the page colours the photo's boxes by.
    Without a grouping module the hand is None and the page starts from the detected tiles. With
    ``vision.photo_reading.read_photo(detector, image)`` (and a ``Detector`` with ``unsure_boxes``), the photo is read by it instead: where the
    hand lacks a tile, a box under the detector's threshold may be added to the detections answered.
    """

    def __init__(self, model_path: Path):
        self.model_path = Path(model_path)
        self._detect = None
        self._group = None
        self._read = None  # vision.photo_reading.read_photo with the detector: (detections, reading)
        self._lock = threading.Lock()  # waitress threads: the first photos at once load the model once

    def _load(self) -> None:
        with self._lock:
            if self._detect is None:
                self._load_now()

    def _load_now(self) -> None:
        detector_module = importlib.import_module("vision.detector")
        detector = None
        if hasattr(detector_module, "Detector"):
            detector = detector_module.Detector(self.model_path)
            detect = detector.detect
        else:
            module_detect = detector_module.detect
            detect = lambda image: module_detect(image, self.model_path)  # noqa: E731
        for name in ("vision.grouping", "vision.group"):
            try:
                found = importlib.util.find_spec(name) is not None
            except (ImportError, ValueError):
                found = False
            if found:
                self._group = importlib.import_module(name).group
                break
        if hasattr(detector, "unsure_boxes") and self._group is not None:
            try:
                read_photo = importlib.import_module("vision.photo_reading").read_photo
            except ImportError:
                pass  # no such step in this vision/: detect, then group
            else:
                self._read = lambda image: read_photo(detector, image)  # noqa: E731
        self._detect = detect

    def scan(self, image: Image.Image, score: Callable[[Hand], Any] | None = None) -> dict[str, Any]:
        """``score``: a hand to its Score under the player's rule set and context; with it each question says
        whether its answer can change the score (``weigh``)."""
        if self._detect is None:
            self._load()
        if self._read is not None:
            detections, reading = self._read(image)
        else:
            detections = self._detect(image)
            reading = self._group(detections) if self._group is not None else None
        detection = _as_dict(detections)
        hand, questions, notes, corrections, advice = None, [], [], [], []
        if reading is not None:
            if hasattr(reading, "tag_detection"):  # each used tile's group, for the page's box colours
                detection = _as_dict(reading.tag_detection(detections))
            data = reading.to_dict() if hasattr(reading, "to_dict") else reading
            if isinstance(data, dict):
                hand, questions = data.get("hand"), data.get("questions") or []
                notes, corrections = list(data.get("notes") or []), list(data.get("corrections") or [])
                advice = [a for a in data.get("photo_advice") or [] if isinstance(a, dict)]
            else:
                hand, questions = getattr(data, "hand", None), getattr(data, "questions", None) or []
            questions = [_as_dict(q) for q in questions]
            if hasattr(reading, "answer"):
                questions = [_with_hands(reading, q) for q in questions]
        settled: dict[str, Any] = {}
        if score is not None and reading is not None and hasattr(reading, "answer"):
            questions, settled = weigh(reading, {}, score, questions)
        if isinstance(hand, Hand):
            hand = hand_to_dict(hand)
        return {"detection": detection, "hand": hand, "questions": [_as_dict(q) for q in questions],
                "reading_notes": [str(n) for n in notes], "corrections": [_as_dict(c) for c in corrections],
                "photo_advice": advice, **settled}


def weigh(reading: Any, answers: dict[str, str], score: Callable[[Hand], Any],
          questions: list[Any]) -> tuple[list[Any], dict[str, Any]]:
    """The open questions (as dicts) each with ``changes_score``: whether some answer to it can change what the
    hand pays under ``score`` (``vision.question_stakes``), each choice whose hand is whole and a valid win with
    ``total``, what that hand scores; and ``{"settled_questions": [ids]}`` for those whose every answer pays the
    same, with ``"settled_hand"`` (hand JSON) when no open question changes the score: the hand the score stands
    for, which the page may take without asking. Nothing is added where the reading cannot be weighed."""
    from vision.question_stakes import weigh_questions

    try:
        stakes = weigh_questions(reading, answers, score)
    except (ValueError, HandError):
        return questions, {}
    marked = [{**q, "changes_score": q.get("id") not in stakes.settled,
               "choices": [_with_total(choice, score) for choice in q.get("choices") or []]}
              if isinstance(q, dict) else q for q in questions]
    extra: dict[str, Any] = {"settled_questions": list(stakes.settled)}
    if stakes.all_settled:
        extra["settled_hand"] = hand_to_dict(stakes.hand)
    return marked, extra


def _with_total(choice: Any, score: Callable[[Hand], Any]) -> Any:
    """The choice with ``total``: what the hand it leads to scores, where that hand is a valid win."""
    if not isinstance(choice, dict) or not isinstance(choice.get("hand"), dict):
        return choice
    try:
        result = score(hand_from_dict(choice["hand"]))
    except HandError:
        return choice
    return {**choice, "total": result.total} if result.valid else choice


def _with_hands(reading: Any, question: Any, answers: dict[str, str] | None = None) -> Any:
    """The question with each choice that carries no hand given the hand it leads to (vision.grouping's
    ``Reading.answer``; e.g. whose discard a meld without a sideways tile claimed), so the page can take a
    choice as a whole hand like any other. The choice that keeps the reading's own hand gets it too: going back
    to it on the page puts that hand back. With the player's other ``answers``, every choice's hand is the one
    it leads to with them (a choice's own whole hand knows nothing of them)."""
    if not isinstance(question, dict) or not isinstance(question.get("choices"), list) or "id" not in question:
        return question
    choices = []
    for choice in question["choices"]:
        recompute = isinstance(choice, dict) and (choice.get("hand") is None or answers)
        if recompute and isinstance(choice.get("label"), str):
            try:
                answered, _ = reading.answer({**(answers or {}), question["id"]: choice["label"]})
            except (ValueError, KeyError, HandError):
                answered = None
            if answered is not None:
                choice = {**choice, "hand": hand_to_dict(answered) if isinstance(answered, Hand) else answered}
        choices.append(choice)
    return {**question, "choices": choices}


MAX_ANSWERED_TILES = 400
"""The most detected tiles ``answer_detection`` groups again (a photo of a hand has about 20, a heap of a
whole set 144): more is not a detection this server answered."""


class AnswerError(ValueError):
    """The player's answers cannot be applied: ``code`` is the API's error code, the message is for players."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


def answer_detection(detection: Any, answers: Any, score: Callable[[Hand], Any] | None = None) -> dict[str, Any]:
    """The hand after the player's answers to a photo's questions, all at once.

    ``detection`` is the detection JSON ``/api/scan`` answered (the tiles' ``group`` tags are ignored);
    grouping it again gives the same reading and the same questions, since the grouping is a function of the
    detections alone (checked on 1,000 rendered photos: the same hands and questions). ``answers`` maps
    question ids to a choice's label. Answers ``{"hand": the hand JSON or None, "questions": the questions
    still open, each choice with the hand it leads to given these answers}``; with ``score`` (a hand to its Score
    under the player's rule set and context), each question says whether it can change the score, as ``weigh``
    adds. Raises ``AnswerError`` for a detection or answers that cannot be used, and ``ImportError`` when vision/
    has no grouping."""
    from vision.detections import Detections
    from vision.grouping import group

    if not isinstance(detection, dict):
        raise AnswerError("bad_detection", "Send the photo's detection as /api/scan answered it: "
                                           "{\"image\": {...}, \"tiles\": [...]}.")
    tiles = detection.get("tiles")
    if isinstance(tiles, list) and len(tiles) > MAX_ANSWERED_TILES:
        raise AnswerError("bad_detection", f"The detection has {len(tiles)} tiles; a photo's reading has at most "
                                           f"{MAX_ANSWERED_TILES}.")
    try:
        detections = Detections.from_dict(detection)
    except ValueError as error:
        raise AnswerError("bad_detection", f"The detection is not one /api/scan answered: {error}.") from None
    if not isinstance(answers, dict) or not all(
            isinstance(k, str) and isinstance(v, (str, int)) and not isinstance(v, bool) for k, v in answers.items()):
        raise AnswerError("bad_answers", "'answers' must map each question's id to a choice's label, "
                                         "e.g. {\"winning-tile\": \"5m\"}.")
    answers = {k: str(v) for k, v in answers.items()}
    reading = group(detections)
    try:
        hand, still_open = reading.answer(answers)
    except (ValueError, HandError) as error:
        raise AnswerError("bad_answer", f"The answers do not fit this photo's questions: {error}.") from None
    questions = [_with_hands(reading, q.to_dict(), answers) for q in still_open]
    settled: dict[str, Any] = {}
    if score is not None:
        questions, settled = weigh(reading, answers, score, questions)
    return {"hand": hand_to_dict(hand) if hand is not None else None, "questions": questions, **settled}


def _as_dict(value: Any) -> Any:
    return value.to_dict() if hasattr(value, "to_dict") else value


class FixedScanner:
    """A stand-in reader for tests, benchmarks and demos: every photo "shows" the same hand.

    Its detection lays the hand's tiles out in one row across the photo, as the camera guide asks
    (standing tiles, the winning tile set apart, each meld with its claimed tile sideways, concealed
    kongs with face-down ends, flowers), each tile tagged with its ``group`` so the page can colour it."""

    def __init__(self, hand: dict | str | Hand = "123m 456m 789m 234p 5s +5s | self_drawn",
                 questions: list[dict] | None = None):
        if isinstance(hand, str):
            hand = parse_hand(hand)
        self.hand = hand_to_dict(hand) if isinstance(hand, Hand) else hand_to_dict(hand_from_dict(hand))
        self.questions = list(questions or [])

    def scan(self, image: Image.Image) -> dict[str, Any]:
        return {"detection": layout_detection(self.hand, image.width, image.height),
                "hand": {**self.hand, "context": dict(self.hand["context"])},
                "questions": [dict(q) for q in self.questions]}


def layout_detection(hand: dict, width: int, height: int) -> dict[str, Any]:
    """A detection JSON for ``hand`` laid out in one row across a ``width`` x ``height`` photo."""
    row: list[tuple[str, str, bool] | None] = []  # (code, group, sideways); None is a gap
    standing = list(hand["concealed"])
    winning = hand.get("winning_tile")
    if winning is not None:
        standing.remove(winning)
    row += [(code, "concealed", False) for code in standing]
    if winning is not None:
        row += [None, (winning, "winning", False)]
    for number, meld in enumerate(hand.get("melds") or []):
        tiles = list(meld["tiles"])
        group = f"meld:{number}"
        row.append(None)
        if meld.get("concealed"):
            row += [("back", group, False), (tiles[1], group, False), (tiles[2], group, False), ("back", group, False)]
            continue
        claimed = meld.get("claimed_tile") if meld.get("claimed") else None
        placed = [(code, group, False) for code in tiles]
        if claimed is not None:
            placed.remove((claimed, group, False))
            at = {"left": 0, "across": 1, "right": len(placed)}[meld["claimed"]]
            placed.insert(at, (claimed, group, True))
        row += placed
    if hand.get("flowers"):
        row.append(None)
        row += [(code, "flowers", False) for code in hand["flowers"]]
    units = sum(0.5 if item is None else 1.33 if item[2] else 1.0 for item in row) + 1.0
    tile_w = width / units
    tile_h = min(height * 0.9, tile_w * 1.33)
    top = (height - tile_h) / 2
    x = tile_w / 2
    tiles = []
    for item in row:
        if item is None:
            x += tile_w / 2
            continue
        code, group, sideways = item
        w, h = (tile_h, tile_w) if sideways else (tile_w, tile_h)
        y = top + (tile_h - h)
        tiles.append({"code": code, "box": [round(x, 1), round(y, 1), round(x + w, 1), round(y + h, 1)],
                      "confidence": 0.99, "sideways": sideways, "group": group})
        x += w
    return {"image": {"width": width, "height": height}, "tiles": tiles}
