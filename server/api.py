"""The JSON API under ``/api``: health, rules, scan, score, and the extensions answer, waits and settle.

Every answer is JSON. Errors are ``{"error": {"code": ..., "message": ...}}`` with a 4xx status (5xx only
for ``no_detector`` and for a failure of mjscan itself); the messages are for players. See docs/server.md.
"""

from __future__ import annotations

import json
from dataclasses import replace
from importlib import metadata
from typing import Any, Mapping

from flask import Blueprint, current_app, jsonify, request

from scorer.codec import hand_from_dict, hand_to_dict
from scorer.errors import HandError
from scorer.hand import FLAG_KEYS, Context, Hand, parse_flag
from scorer.notation import format_hand, parse_hand
from scorer.result import Score
from scorer.rules import RULE_SETS, get_rule_set
from scorer.tiles import Wind
from server.scanning import NO_DETECTOR_MESSAGE, AnswerError, answer_detection, takes_score
from server.uploads import UploadError, read_photo

bp = Blueprint("api", __name__, url_prefix="/api")

WIND_KEYS = ("seat_wind", "prevalent_wind")
DEFAULT_RULES = "mcr"


class ApiError(Exception):
    def __init__(self, code: str, message: str, status: int = 400, body: dict | None = None):
        super().__init__(message)
        self.code, self.message, self.status, self.body = code, message, status, body


def error_response(code: str, message: str, status: int, body: dict | None = None):
    data = dict(body or {})
    data["error"] = {"code": code, "message": message}
    response = jsonify(data)
    response.status_code = status
    return response


@bp.errorhandler(ApiError)
def _api_error(error: ApiError):
    return error_response(error.code, error.message, error.status, error.body)


@bp.errorhandler(UploadError)
def _upload_error(error: UploadError):
    return error_response(error.code, error.message, error.status)


@bp.after_request
def _no_store(response):
    response.headers["Cache-Control"] = "no-store"
    return response


# --------------------------------------------------------------------------------------------------


@bp.get("/health")
def health():
    return jsonify({"status": "ok", "rules": list(RULE_SETS), "detector": current_app.config["SCANNER"] is not None,
                    "version": version()})


@bp.get("/rules")
def rules():
    return jsonify({"default": DEFAULT_RULES, "rules": rules_list()})


@bp.post("/score")
def score():
    body = _json_body()
    rule_set = _rule_set(body.get("rules", DEFAULT_RULES))
    hand = _hand(body, rule_set.name)
    result = rule_set.score(hand).to_dict()
    result["hand"] = hand_to_dict(hand)
    result["notation"] = format_hand(hand)
    return jsonify(result)


@bp.post("/waits")
def waits():
    from scorer.waits import waiting_tiles

    body = _json_body()
    rule_set = _rule_set(body.get("rules", DEFAULT_RULES))
    hand = _hand(body, None)
    try:
        tiles = waiting_tiles(hand, rule_set.name)
    except HandError as error:
        raise ApiError(error.code, error.message) from None
    return jsonify({"rules": rule_set.name, "waits": [t.code for t in tiles]})


@bp.post("/settle")
def settle():
    from scorer.table import settle as settle_table, table_from_dict

    body = _json_body()
    rule_set = _rule_set(body.get("rules", DEFAULT_RULES))
    table_data = {key: value for key, value in body.items() if key != "rules"}
    try:
        result = settle_table(table_from_dict(table_data), rule_set.name)
    except HandError as error:
        raise ApiError(error.code, error.message) from None
    return jsonify(result.to_dict())


@bp.post("/scan")
def scan():
    scanner = current_app.config["SCANNER"]
    if scanner is None:
        raise ApiError("no_detector", NO_DETECTOR_MESSAGE, 503)
    form = request.form  # parses the upload: 413 here when it is over MAX_CONTENT_LENGTH
    rule_set = _rule_set(form.get("rules") or DEFAULT_RULES)
    context = form_context(form, rule_set)
    upload = request.files.get("photo")
    if upload is None:
        raise ApiError("no_photo", "No photo was sent: attach the photo as the form field 'photo'.")
    data = upload.read()
    upload.close()
    image = read_photo(data, current_app.config["MAX_IMAGE_PIXELS"])
    del data
    try:
        reading = scanner.scan(image, score=_scorer(rule_set, context)) if takes_score(scanner) else scanner.scan(image)
    finally:
        image.close()
    detection, hand_data, questions = _check_reading(reading)
    if isinstance(reading.get("settled_hand"), dict):
        # the questions left open pay the same whatever their answers: the hand read where it pays that too, else
        # the likeliest answers' (server.scanning.weigh)
        hand_data = reading["settled_hand"]
    hand_out, result = hand_data, None
    if hand_data is not None:
        merged = dict(hand_data)
        merged["context"] = {**(hand_data.get("context") or {}), **context}
        hand_out = merged
        try:
            hand = hand_from_dict(merged)
        except HandError as error:  # the photo's reading is not a hand yet: the player fixes it on the page
            result = Score.invalid(rule_set.name, error.code, error.message).to_dict()
        else:
            hand_out, result = _scored(hand, rule_set)
    # reading_notes and corrections: what the grouping says of its reading (tiles read again, a hand cut by the
    # photo's edge), for the page to show beside the hand; photo_advice: how a second photo would read more surely
    return jsonify({"rules": rule_set.name, "detection": detection, "hand": hand_out, "score": result,
                    "questions": questions, "reading_notes": reading.get("reading_notes") or [],
                    "corrections": reading.get("corrections") or [],
                    "photo_advice": reading.get("photo_advice") or [],
                    **({"settled_questions": reading["settled_questions"]} if "settled_questions" in reading else {})})


@bp.post("/answer")
def answer():
    """The hand after the player's answers to a photo's questions, all at once: grouping the detection
    /api/scan answered again gives its questions again (docs/server.md). Scored like /api/scan's hand."""
    body = _json_body()
    rule_set = _rule_set(body.get("rules", DEFAULT_RULES))
    context = body.get("context") or {}
    if not isinstance(context, dict):
        raise ApiError("malformed_hand", "'context' must be a JSON object of the hand's context fields, "
                                         "e.g. {\"self_drawn\": true}.")
    try:
        answered = answer_detection(body.get("detection"), body.get("answers", {}), _scorer(rule_set, context))
    except AnswerError as error:
        raise ApiError(error.code, str(error)) from None
    except ImportError:
        raise ApiError("no_grouping", "This server cannot group a photo's tiles into a hand (no vision/ "
                                      "grouping installed): enter the hand by hand instead.", 503) from None
    hand_out, result = answered["hand"], None
    if answered.get("settled_hand") is not None:
        hand_out = answered["settled_hand"]  # the questions left open pay the same whatever their answers
    if hand_out is not None:
        merged = {**hand_out, "context": {**(hand_out.get("context") or {}), **context}}
        try:  # the answered hand is whole: only the player's context can fail here
            hand = hand_from_dict(merged)
        except HandError as error:
            raise ApiError(error.code, error.message) from None
        hand_out, result = _scored(hand, rule_set)
    return jsonify({"rules": rule_set.name, "hand": hand_out, "score": result, "questions": answered["questions"],
                    **({"settled_questions": answered["settled_questions"]} if "settled_questions" in answered else {})})


def _scorer(rule_set, context: Mapping[str, Any]):
    """A photo's hand to its Score under the player's rule set and context, the player's fields over the hand's
    own as /api/scan merges them (which questions can change the score: server.scanning.weigh). A context that
    makes no hand raises HandError, which the weighing takes as "cannot say"."""
    merged: dict[Context, Context] = {}  # the readings' hands share one context: merged once, not per answer

    def score(hand: Hand) -> Score:
        if hand.context not in merged:
            merged[hand.context] = Context.from_dict({**hand.context.to_dict(), **context})
        return rule_set.score(replace(hand, context=merged[hand.context]))
    return score


def _scored(hand: Hand, rule_set) -> tuple[dict[str, Any], dict[str, Any]]:
    """A photo's hand as hand JSON, and its scoring result with its notation (/api/scan and /api/answer)."""
    result = rule_set.score(hand).to_dict()
    result["notation"] = format_hand(hand)
    return hand_to_dict(hand), result


# --------------------------------------------------------------------------------------------------


def version() -> str:
    try:
        return metadata.version("mjscan")
    except metadata.PackageNotFoundError:  # pragma: no cover - running from a checkout without installing
        return "unknown"


def rules_list() -> list[dict[str, Any]]:
    return [{"name": name, "title": getattr(rule_set, "title", name),
             "context_keys": [key.to_dict() for key in rule_set.context_keys]}
            for name, rule_set in RULE_SETS.items()]


def _json_body() -> dict[str, Any]:
    raw = request.get_data(cache=False)
    if not raw.strip():
        raise ApiError("bad_json", "The request is empty: send a JSON object such as {\"rules\": \"mcr\", "
                                   "\"hand\": {...}}.")
    try:
        body = json.loads(raw)
    except (ValueError, RecursionError) as error:
        where = f": {error.msg} at line {error.lineno}, column {error.colno}" if isinstance(error, json.JSONDecodeError) else ""
        raise ApiError("bad_json", f"The request is not valid JSON{where}.") from None
    if not isinstance(body, dict):
        raise ApiError("bad_json", "The request must be a JSON object such as {\"rules\": \"mcr\", \"hand\": {...}}.")
    return body


def _rule_set(name: Any):
    if not isinstance(name, str):
        raise ApiError("unknown_rules", f"'rules' must name a rule set: one of {', '.join(RULE_SETS)}.")
    try:
        return get_rule_set(name.strip())
    except KeyError as error:
        raise ApiError("unknown_rules", error.args[0]) from None


def _hand(body: Mapping[str, Any], rules: str | None) -> Hand:
    """The hand from ``hand`` (spec JSON) or ``notation`` (text). A hand that cannot be built is a 400 whose
    body is also a ``valid: false`` result (when ``rules`` is given), so a page can show it like any result."""
    has_hand, has_notation = body.get("hand") is not None, body.get("notation") is not None
    try:
        if has_hand and has_notation:
            raise HandError("malformed_hand", "Send the hand once: as 'hand' (JSON) or as 'notation' (text), not both.")
        if has_notation:
            if not isinstance(body["notation"], str):
                raise HandError("bad_notation", "'notation' must be text such as \"123m 456m 789m 234p 5s +5s\".")
            return parse_hand(body["notation"])
        if not has_hand:
            raise HandError("malformed_hand", "No hand was sent: send it as 'hand' (the hand JSON) or as 'notation' "
                                              "(text such as \"123m 456m 789m 234p 5s +5s\").")
        return hand_from_dict(body["hand"])
    except HandError as error:
        result = Score.invalid(rules, error.code, error.message).to_dict() if rules else None
        raise ApiError(error.code, error.message, 400, result) from None


def form_context(form: Mapping[str, str], rule_set) -> dict[str, Any]:
    """The hand's context fields from a form: the spec's keys and the rule set's own, typed by their kind."""
    keys = {key.key: key for key in rule_set.context_keys}
    context: dict[str, Any] = {}
    for name in form:
        if name in ("rules", "photo"):
            continue
        value = form.get(name, "")
        try:
            kind = keys[name].kind if name in keys else ("flag" if name in FLAG_KEYS else
                                                         "wind" if name in WIND_KEYS else None)
            if kind is None:
                readable = ", ".join(sorted(set(keys) | set(FLAG_KEYS) | set(WIND_KEYS)))
                raise HandError("bad_context", f"The {rule_set.name} rules do not read the context field '{name}'; "
                                               f"they read: {readable}.")
            if kind == "flag":
                context[name] = parse_flag(name, value)
            elif kind == "wind":
                context[name] = Wind.parse(value).value
            elif kind == "int":
                try:
                    context[name] = int(value)
                except ValueError:
                    raise HandError("bad_context", f"Context '{name}' must be a whole number, not '{value}'.") from None
            else:
                choices = keys[name].choices
                if choices and value not in choices:
                    raise HandError("bad_context", f"Context '{name}' must be one of {', '.join(choices)}, "
                                                   f"not '{value}'.")
                context[name] = value
        except HandError as error:
            raise ApiError(error.code, error.message) from None
    return context


def _check_reading(reading: Any) -> tuple[dict, dict | None, list]:
    """The scanner's answer, checked for shape: a bad one is mjscan's own failure (500), not the player's."""
    if not isinstance(reading, dict) or not isinstance(reading.get("detection"), dict):
        raise TypeError(f"the scanner answered {type(reading).__name__}, not a reading with a detection")
    hand = reading.get("hand")
    if hand is not None and not isinstance(hand, dict):
        raise TypeError("the scanner's hand is not a hand JSON object")
    questions = reading.get("questions") or []
    if not isinstance(questions, list):
        raise TypeError("the scanner's questions are not a list")
    return reading["detection"], hand, questions
