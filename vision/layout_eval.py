"""Measuring the grouping stage on rendered photos: detections from a renderer sidecar (the true boxes),
an exact comparison of a reading with the sidecar's hand, and the error types (`mjscan eval-grouping`).

A hand is read exactly when its standing tiles, every meld (kind, tiles, concealed flag, direction and
claimed tile), the flowers and the winning tile all match, and no question is left open.

Every photo gets one outcome (``outcome``):

- ``exact``: read exactly, no question;
- ``mandated``: exact but for a question the issue requires: its only open question is which tile a
  concealed kong laid all four face down is, and answering it with the true tile gives the true hand
  exactly (the layout guide says the page must ask; no reader can do better);
- ``asked``: missed, but with a question open (the page asks; the player fixes it);
- ``wrong``: a hand other than the true one, with no question open (a silent error: the one the issue forbids).

An ``asked`` photo is also ``answerable`` when some answers to its questions give the true hand (``answerable``):
the player taps the answers and is done. Otherwise the questions do not offer the truth, and the player must
correct the hand by hand (the page's manual entry).

Given rule sets (``evaluate_folder(..., scorers=...)``, ``mjscan eval-grouping --rules``), each photo also gets an
outcome by what its hand pays under each (``scored_outcome``), as a player scoring it sees it:

- ``right``: no open question can change the score (none is open, or ``vision.question_stakes`` settles every
  one), and the hand pays what the true hand pays (with the true hand's context; or, as the true hand, is no
  valid win under those rules);
- ``asked``: some open question can change the score, or no hand was read;
- ``wrong``: no open question can change the score, and the hand pays something else (a silent error in money).
"""

from __future__ import annotations

import itertools
import json
import math
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from scorer.codec import hand_from_dict, hand_to_dict
from scorer.hand import Hand
from scorer.result import Score
from vision.classes import parse_class
from vision.detections import Detection, Detections
from vision.question_stakes import payout, weigh_questions


def sidecar_detections(sidecar: Mapping[str, Any], *, labelled_only: bool = True) -> Detections:
    """The true boxes of a sidecar as Detections (confidence 1; face-down tiles as ``back``)."""
    image = sidecar["image"]
    tiles = []
    for tile in sidecar["tiles"]:
        if tile.get("box") is None or (labelled_only and not tile.get("labelled", True)):
            continue
        code = "back" if tile.get("face_down") else tile["class"]
        tiles.append(Detection(parse_class(code), tuple(tile["box"]), 1.0, bool(tile.get("sideways"))))
    return Detections(int(image["width"]), int(image["height"]), tuple(tiles))


def complete(sidecar: Mapping[str, Any]) -> bool:
    """Whether every tile of the hand is labelled (in the photo, at least 40 % of its face visible)."""
    return all(t.get("labelled", True) for t in sidecar["tiles"] if t["group"]["kind"] != "other")


def _norm(hand: Hand, chow_claims: bool = True) -> dict[str, Any]:
    data = hand_to_dict(hand)
    data.pop("context", None)
    if not chow_claims:
        for meld in data["melds"]:
            if meld["kind"] == "chow":
                meld.pop("claimed_tile", None)
    data["melds"] = sorted(data["melds"], key=lambda m: json.dumps(m, sort_keys=True))
    return data


def errors(reading: Any, truth: Hand) -> list[str]:
    """The error types of a reading against the true hand ([] when read exactly)."""
    found: list[str] = []
    hand = reading.hand
    for qid in sorted({q.id.split("-")[0] if q.id.startswith(("meld-", "claim-", "chow-", "flower-"))
                       else MANDATED[0] if q.id.startswith(MANDATED[0]) else q.id for q in reading.questions}):
        found.append(f"question asked ({qid})")
    if hand is None:
        if not reading.questions:
            found.append("no hand")
        return found
    want, got = _norm(truth), _norm(hand)
    if any(q.id.startswith("claim-") for q in reading.questions):
        # a meld read without its claim (asked): compare it as the true answer would fill it in
        key = lambda m: json.dumps({k: m.get(k) for k in ("kind", "tiles", "concealed")}, sort_keys=True)
        spare = list(want["melds"])
        filled = []
        for m in got["melds"]:
            match = next((w for w in spare if key(w) == key(m)), None) if m.get("claimed") is None else None
            if match is not None:
                spare.remove(match)
                m = match
            filled.append(m)
        got["melds"] = sorted(filled, key=lambda m: json.dumps(m, sort_keys=True))
    if want == got:
        return found
    if sorted(want["flowers"]) != sorted(got["flowers"]):
        found.append("wrong flowers")
    if want["winning_tile"] != got["winning_tile"]:
        found.append("wrong winning tile")
    if len(want["melds"]) != len(got["melds"]):
        kongs_w = sum(m["kind"] == "kong" for m in want["melds"])
        kongs_g = sum(m["kind"] == "kong" for m in got["melds"])
        found.append("missed kong" if kongs_g < kongs_w else "meld split or merged")
    else:
        strip = lambda ms, keys: sorted(json.dumps({k: m.get(k) for k in keys}, sort_keys=True) for m in ms)
        if strip(want["melds"], ("kind", "tiles", "concealed")) != strip(got["melds"], ("kind", "tiles", "concealed")):
            kongs_w = sum(m["kind"] == "kong" for m in want["melds"])
            kongs_g = sum(m["kind"] == "kong" for m in got["melds"])
            found.append("missed kong" if kongs_g < kongs_w else "wrong meld")
        elif strip(want["melds"], ("kind", "tiles", "concealed", "claimed")) != \
                strip(got["melds"], ("kind", "tiles", "concealed", "claimed")):
            found.append("wrong direction")
        elif want["melds"] != got["melds"]:
            found.append("wrong claimed tile")
    if sorted(want["concealed"]) != sorted(got["concealed"]) and not found:
        found.append("wrong standing tiles")
    return found or ["other difference"]


MANDATED = ("kong-face-down",)
"""Question ids the issue requires the reading to ask (all four tiles of a concealed kong face down; with two such
kongs, ``kong-face-down`` and ``kong-face-down-2``: the ids start so)."""
OUTCOMES = ("exact", "mandated", "asked", "wrong")


MOST_ANSWER_SETS = 4096
"""``answerable`` tries at most this many sets of answers (the product of the questions' choices); a reading with
more is counted as not answerable (none seen: the most a held-out reading asks is a few dozen)."""


def answerable(reading: Any, truth: Hand) -> bool:
    """Whether some answers to the reading's open questions give the true hand.

    A chow's claimed tile is not compared where a ``claim-`` question was asked: the answer says whose discard
    it was, not which of the three tiles (``vision.grouping._with_claim`` takes the middle one), as ``errors``
    compares an asked claim by the true one."""
    if not reading.questions:
        return False
    labels = [[choice.label for choice in q.choices] for q in reading.questions]
    if any(not choices for choices in labels) or math.prod(len(c) for c in labels) > MOST_ANSWER_SETS:
        return False
    claim_asked = any(q.id.startswith("claim-") for q in reading.questions)
    want = _norm(truth, chow_claims=not claim_asked)
    ids = [q.id for q in reading.questions]
    for answer_set in itertools.product(*labels):
        try:
            hand, still_open = reading.answer(dict(zip(ids, answer_set)))
        except ValueError:  # answers that make no hand together (five kongs, a fifth copy of a tile)
            continue
        if hand is not None and not still_open and _norm(hand, chow_claims=not claim_asked) == want:
            return True
    return False


def outcome(reading: Any, truth: Hand, found: list[str] | None = None) -> str:
    """``exact``, ``mandated``, ``asked`` or ``wrong`` (see the module's doc)."""
    found = errors(reading, truth) if found is None else found
    if not found:
        return "exact"
    if reading.questions and all(q.id.startswith(MANDATED) for q in reading.questions):
        # answered with the true concealed kongs' tiles, in every order (two kongs all face down ask twice)
        kongs = [meld.tiles[0].code for meld in truth.melds if meld.concealed and len(meld.tiles) == 4]
        for tiles in itertools.permutations(kongs, len(reading.questions)):
            try:
                hand, still_open = reading.answer({q.id: code for q, code in zip(reading.questions, tiles)})
            except ValueError:
                continue
            if not still_open and hand is not None and _norm(hand) == _norm(truth):
                return "mandated"
    return "asked" if reading.questions else "wrong"


SCORED_OUTCOMES = ("right", "asked", "wrong")


def scored_outcome(reading: Any, truth: Hand, score: Callable[[Hand], Score]) -> str:
    """``right``, ``asked`` or ``wrong`` by what the reading's hand pays under ``score`` (see the module's doc); the
    hands are scored with the true hand's context, which the player gives."""
    from dataclasses import replace

    def in_context(hand: Hand) -> Score:
        return score(replace(hand, context=truth.context))

    if reading.questions:
        stakes = weigh_questions(reading, {}, in_context)
        if not stakes.all_settled:
            return "asked"
        paid = stakes.score
    elif reading.hand is None:
        return "asked"
    else:
        paid = in_context(reading.hand)
    # a true hand that is no valid win under these rules is scored right when the reading is none either
    return "right" if payout(paid) == payout(in_context(truth)) else "wrong"


@dataclass
class GroupingReport:
    photos: int = 0
    exact: int = 0
    complete_photos: int = 0
    complete_exact: int = 0
    outcomes: Counter = field(default_factory=Counter)
    complete_outcomes: Counter = field(default_factory=Counter)
    answerable: int = 0  # asked photos whose questions offer the true hand (``answerable``)
    errors: Counter = field(default_factory=Counter)
    complete_errors: Counter = field(default_factory=Counter)
    failures: list[dict[str, Any]] = field(default_factory=list)
    scorers: Mapping[str, Callable[[Hand], Score]] = field(default_factory=dict)  # rule set name -> its score
    scored: dict[str, Counter] = field(default_factory=dict)  # rule set name -> ``scored_outcome`` counts

    def add(self, name: str, sidecar: Mapping[str, Any], reading: Any) -> None:
        truth = hand_from_dict(sidecar["hand"])
        found = errors(reading, truth)
        by_score = {rules: scored_outcome(reading, truth, score) for rules, score in self.scorers.items()}
        for rules, result_by_score in by_score.items():
            self.scored.setdefault(rules, Counter())[result_by_score] += 1
        whole = complete(sidecar)
        result = outcome(reading, truth, found)
        self.outcomes[result] += 1
        fixable = result == "asked" and answerable(reading, truth)
        self.answerable += fixable
        self.complete_outcomes[result] += whole
        self.photos += 1
        self.complete_photos += whole
        if not found:
            self.exact += 1
            self.complete_exact += whole
        for e in found:
            self.errors[e] += 1
            if whole:
                self.complete_errors[e] += 1
        if found:  # a hand read exactly, with no question, pays what the true hand pays: only misses are listed
            self.failures.append({"photo": name, "complete": whole, "outcome": result, "errors": found,
                                  **({"answerable": fixable} if result == "asked" else {}),
                                  **({"scored": by_score} if by_score else {}),
                                  "scene": {k: sidecar.get("scene", {}).get(k) for k in ("melds", "meld_styles")},
                                  "roll_deg": sidecar.get("scene", {}).get("camera", {}).get("roll_deg")})

    def to_dict(self) -> dict[str, Any]:
        return {"photos": self.photos, "exact": self.exact, "exact_share": _share(self.exact, self.photos),
                "complete_photos": self.complete_photos, "complete_exact": self.complete_exact,
                "complete_exact_share": _share(self.complete_exact, self.complete_photos),
                "outcomes": {k: self.outcomes[k] for k in OUTCOMES},
                "complete_outcomes": {k: self.complete_outcomes[k] for k in OUTCOMES},
                "exact_or_mandated_share": _share(self.exact + self.outcomes["mandated"], self.photos),
                "asked_answerable": self.answerable,
                "exact_mandated_or_answerable_share": _share(self.exact + self.outcomes["mandated"] + self.answerable,
                                                             self.photos),
                "errors": dict(self.errors.most_common()), "complete_errors": dict(self.complete_errors.most_common()),
                **({"scored": {rules: {**{k: counts[k] for k in SCORED_OUTCOMES},
                                       "right_share": _share(counts["right"], self.photos)}
                               for rules, counts in self.scored.items()}} if self.scored else {}),
                "failures": self.failures}

    def summary(self, title: str) -> str:
        lines = [f"{title}: {self.exact}/{self.photos} hands read exactly ({100 * _share(self.exact, self.photos):.1f} %)",
                 (f"  photos showing every tile of the hand: {self.complete_exact}/{self.complete_photos} "
                  f"({100 * _share(self.complete_exact, self.complete_photos):.1f} %)")]
        n, o = self.photos, self.outcomes
        lines.append(f"  exact: {o['exact']}; exact but for mandated questions (a concealed kong all face down, "
                     f"asked by design): {o['mandated']} (together {o['exact'] + o['mandated']}/{n}, "
                     f"{100 * _share(o['exact'] + o['mandated'], n):.1f} %)")
        lines.append(f"  missed: {o['asked'] + o['wrong']}: {o['asked']} with a question, "
                     f"{o['wrong']} wrong without a question")
        lines.append(f"  asked, and the questions offer the true hand: {self.answerable} of {o['asked']} (exact, "
                     f"mandated or one set of answers away: {o['exact'] + o['mandated'] + self.answerable}/{n}, "
                     f"{100 * _share(o['exact'] + o['mandated'] + self.answerable, n):.1f} %)")
        for name, count in self.errors.most_common():
            lines.append(f"  {name}: {count} (on complete photos: {self.complete_errors[name]})")
        for rules, counts in self.scored.items():
            lines.append(f"  scored under {rules}: {counts['right']}/{n} paid right with no question that changes the "
                         f"score ({100 * _share(counts['right'], n):.1f} %), {counts['asked']} asked, "
                         f"{counts['wrong']} paid wrong without a question")
        return "\n".join(lines)


def _share(a: int, b: int) -> float:
    return round(a / b, 4) if b else 0.0


def with_sideways_rule(detections: Detections) -> Detections:
    """The same boxes with the sideways flags the detector would give them (``vision.detector.mark_sideways``,
    a rule on the boxes' shapes), instead of the true ones."""
    from dataclasses import replace

    from vision.detector import mark_sideways

    plain = tuple(replace(t, sideways=False) for t in detections.tiles)
    return Detections(detections.width, detections.height, mark_sideways(plain))


def with_box_noise(detections: Detections, noise: float, rng: Any) -> Detections:
    """The boxes with every edge moved by a Gaussian of ``noise`` times the box's width or height (kept
    inside the photo), to mimic a detector's imprecision. ``rng``: a ``random.Random``."""
    from dataclasses import replace

    tiles = []
    for t in detections.tiles:
        x1, y1, x2, y2 = t.box
        w, h = t.width, t.height
        x1, x2 = x1 + rng.gauss(0, noise * w), x2 + rng.gauss(0, noise * w)
        y1, y2 = y1 + rng.gauss(0, noise * h), y2 + rng.gauss(0, noise * h)
        x1, y1 = max(0.0, min(x1, x2 - 1)), max(0.0, min(y1, y2 - 1))
        x2, y2 = min(float(detections.width), max(x2, x1 + 1)), min(float(detections.height), max(y2, y1 + 1))
        tiles.append(replace(t, box=(x1, y1, x2, y2)))
    return Detections(detections.width, detections.height, tuple(tiles))


def without_alternatives(detections: Detections) -> Detections:
    """The same detections with only their first readings (``Detection.alternatives`` dropped)."""
    from dataclasses import replace

    return replace(detections, tiles=tuple(replace(t, alternatives=()) if t.alternatives else t
                                           for t in detections.tiles))


def evaluate_folder(folder: str | Path, group: Callable[[Detections], Any],
                    detect: Callable[[Path], Detections] | None = None, limit: int | None = None,
                    progress: Callable[[int, int], None] | None = None, sideways_rule: bool = False,
                    box_noise: float = 0.0,
                    scorers: Mapping[str, Callable[[Hand], Score]] | None = None) -> GroupingReport:
    """Group every photo of a renderer folder (sidecars/*.json) from the true boxes, or from ``detect``.
    ``sideways_rule``: the true boxes with the detector's sideways rule instead of the true flags;
    ``box_noise``: the true boxes moved at random (seeded) by this share of their size, before the rule;
    ``scorers``: rule set names and their ``score``, to count what each photo's hand pays (``scored_outcome``)."""
    import random

    rng = random.Random(0)
    folder = Path(folder)
    sidecars = sorted((folder / "sidecars").glob("*.json"))
    if not sidecars:
        raise ValueError(f"'{folder}' has no sidecars/*.json (render it with 'mjscan synth').")
    if limit:
        sidecars = sidecars[:limit]
    report = GroupingReport(scorers=dict(scorers or {}))
    for n, path in enumerate(sidecars, 1):
        sidecar = json.loads(path.read_text())
        if detect is None:
            detections = sidecar_detections(sidecar)
            if box_noise:
                detections = with_box_noise(detections, box_noise, rng)
            if sideways_rule:
                detections = with_sideways_rule(detections)
        else:
            detections = detect(folder / "images" / sidecar["image"]["file"])
        report.add(path.stem, sidecar, group(detections))
        if progress:
            progress(n, len(sidecars))
    return report


def iter_sidecars(folder: str | Path) -> Iterable[tuple[str, dict[str, Any]]]:
    for path in sorted((Path(folder) / "sidecars").glob("*.json")):
        yield path.stem, json.loads(path.read_text())
