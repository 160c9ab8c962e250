"""POST /api/answer: the hand after the player's answers to a photo's questions, all at once (the real
vision.grouping, no model: the detections are built by hand as in tests/vision/test_repair.py)."""

from __future__ import annotations

import random

import pytest

from scorer.codec import hand_to_dict
from scorer.notation import parse_hand
from server import create_app
from server.scanning import MAX_ANSWERED_TILES, layout_detection
from tests.vision.test_grouping import MELD_Y, norm, scene
from tests.vision.test_repair import hand_text_of, index_of, with_reading
from vision.classes import CLASS_NAMES
from vision.grouping import group


@pytest.fixture
def answer_client():
    return create_app({"TESTING": True, "SCANNER": None}).test_client()  # /api/answer needs no detector


def _two_questions():
    """A photo whose reading asks two things: which reading of a misread 9s (choices carrying whole hands)
    and which flower an unsure 7f is (label-only choices)."""
    truth = scene([(0, "1m 2m 3m 4p 5p 6p 7s 8s 9s 2z | 2z"), (MELD_Y, "5s' 5s 5s"), (MELD_Y + 3 * 40, "2f . 7f")])
    misread = with_reading(truth, index_of(truth, "9s"), "1z", [("9s", 0.3), ("6s", 0.25)])
    detections = with_reading(misread, index_of(misread, "7f"), "7f", [("4f", 0.6), ("1m", 0.3)])
    return detections, f"flower-reading-{index_of(detections, '7f')}"


def _post(client, detection, answers, **extra):
    return client.post("/api/answer", json={"detection": detection, "answers": answers, **extra})


def _text(hand_json) -> str:
    from scorer.codec import hand_from_dict

    return hand_text_of(hand_from_dict(hand_json))


def test_answers_to_two_questions_add_up(answer_client):
    detections, flower = _two_questions()
    detection = group(detections).tag_detection(detections)  # as /api/scan answers it, with group tags
    reply = _post(answer_client, detection, {"tile-reading": "1z read as 6s", flower: "4f"},
                  context={"self_drawn": True})
    assert reply.status_code == 200, reply.get_data(as_text=True)
    data = reply.get_json()
    assert _text(data["hand"]) == norm("123m 456p 678s 2z [5'55s] 24f +2z")
    assert data["hand"]["context"]["self_drawn"] is True and data["questions"] == []
    assert data["rules"] == data["score"]["rules"] == "mcr"
    assert data["score"]["notation"].startswith(norm("123m 456p 678s 2z [5'55s] 24f +2z"))


def test_an_open_questions_choices_carry_the_hands_given_the_other_answers(answer_client):
    detections, flower = _two_questions()
    data = _post(answer_client, detections.to_dict(), {flower: "4f"}).get_json()
    (tile_question,) = data["questions"]
    assert tile_question["id"] == "tile-reading"
    for choice in tile_question["choices"]:  # each re-reading of the 9s, with the 4f answered
        assert [c for c in choice["hand"]["flowers"]] == ["2f", "4f"]
    assert sorted(_text(c["hand"]).split(" [")[0] for c in tile_question["choices"]) == \
        sorted(norm(f"123m 456p {run} 2z [5'55s] 24f +2z").split(" [")[0] for run in ("789s", "678s"))


def test_the_choice_that_keeps_the_reading_gives_its_hand_back(answer_client):
    """Every choice carries the hand it leads to, the reading's own among them, so that going back to it on
    the page puts the reading's hand back (before, that choice carried no hand and the page kept the last)."""
    detections, flower = _two_questions()
    reading = group(detections)
    data = _post(answer_client, detections.to_dict(), {}).get_json()
    assert data["hand"] == hand_to_dict(reading.hand)
    question = next(q for q in data["questions"] if q["id"] == flower)
    assert [c["label"] for c in question["choices"]][:2] == ["7f", "4f"]
    assert all(c["hand"] is not None for c in question["choices"])
    assert question["choices"][0]["hand"] == hand_to_dict(reading.hand)  # 7f: as read
    assert question["choices"][1]["hand"]["flowers"] == ["2f", "4f"]
    assert question["choices"][-1]["hand"]["flowers"] == ["2f", "8f"]  # the last flower the hand lacks
    back = _post(answer_client, detections.to_dict(), {flower: "7f", "tile-reading": "1"}).get_json()
    assert back["hand"]["flowers"] == ["2f", "7f"]


def test_answers_by_number_and_by_a_labels_start(answer_client):
    detections, flower = _two_questions()
    by_label = _post(answer_client, detections.to_dict(), {"tile-reading": "1z read as 6s", flower: "8f"}).get_json()
    by_number = _post(answer_client, detections.to_dict(), {"tile-reading": 2, flower: 7}).get_json()
    # "8" names no choice by number (there are 7), so it is the start of the label 8f
    by_start = _post(answer_client, detections.to_dict(), {"tile-reading": "1z read as 6", flower: "8"}).get_json()
    assert by_label["hand"] == by_number["hand"] == by_start["hand"] and by_label["hand"]["flowers"] == ["2f", "8f"]


def test_a_whole_hand_from_the_laid_out_detection_needs_no_answer(answer_client):
    hand = hand_to_dict(parse_hand("123m 5s [4'56m] [77'7z] (6666z) 15f +5s"))
    data = _post(answer_client, layout_detection(hand, 1600, 400), {}, rules="classical").get_json()
    assert data["hand"] == hand and data["questions"] == [] and data["rules"] == "classical"
    assert data["score"]["rules"] == "classical"


@pytest.mark.parametrize("body, code", [
    ({"answers": {}}, "bad_detection"),
    ({"detection": [1, 2], "answers": {}}, "bad_detection"),
    ({"detection": {"image": {"width": 10, "height": 10}, "tiles": [{"code": "9x", "box": [0, 0, 1, 1],
                                                                      "confidence": 0.5}]}}, "bad_detection"),
    ({"detection": {"image": {"width": 10}, "tiles": []}}, "bad_detection"),
    ({"detection": {"image": {"width": 10, "height": 10}, "tiles": []}, "answers": ["5m"]}, "bad_answers"),
    ({"detection": {"image": {"width": 10, "height": 10}, "tiles": []}, "answers": {"winning-tile": True}},
     "bad_answers"),
    ({"detection": {"image": {"width": 10, "height": 10}, "tiles": []}, "answers": {"winning-tile": "5m"}},
     "bad_answer"),
    ({"detection": {"image": {"width": 10, "height": 10}, "tiles": []}, "rules": "riichi"}, "unknown_rules"),
    ({"detection": {"image": {"width": 10, "height": 10}, "tiles": []}, "context": "self_drawn"}, "malformed_hand"),
])
def test_what_cannot_be_answered_is_a_400_in_words(answer_client, body, code):
    reply = answer_client.post("/api/answer", json=body)
    assert reply.status_code == 400 and reply.get_json()["error"]["code"] == code
    assert len(reply.get_json()["error"]["message"]) > 20


def test_an_unknown_choice_or_question_is_named(answer_client):
    detections, flower = _two_questions()
    reply = _post(answer_client, detections.to_dict(), {flower: "9m"})
    assert reply.status_code == 400 and "'9m' is not a choice" in reply.get_json()["error"]["message"]
    reply = _post(answer_client, detections.to_dict(), {"winning-tile": "5m"})
    assert reply.status_code == 400 and "tile-reading" in reply.get_json()["error"]["message"]


def test_a_context_that_is_not_the_hands_is_a_400(answer_client):
    detections, flower = _two_questions()
    reply = _post(answer_client, detections.to_dict(), {flower: "7f", "tile-reading": "1"},
                  context={"seat_wind": "Q"})
    assert reply.status_code == 400 and reply.get_json()["error"]["code"] != "internal"


def test_too_many_tiles_are_refused_before_grouping(answer_client):
    tiles = [{"code": "1m", "box": [i, 0, i + 1, 1], "confidence": 0.5} for i in range(MAX_ANSWERED_TILES + 1)]
    reply = _post(answer_client, {"image": {"width": 1000, "height": 10}, "tiles": tiles}, {})
    assert reply.status_code == 400 and str(MAX_ANSWERED_TILES) in reply.get_json()["error"]["message"]


def test_random_detections_never_take_the_server_down(answer_client):
    """Whatever boxes a client sends, the answer is a hand, no hand, or a 400: never a 500."""
    rng = random.Random(7)
    for _ in range(60):
        tiles = []
        for _ in range(rng.randint(0, 30)):
            x, y = rng.uniform(-50, 900), rng.uniform(-50, 900)
            w, h = rng.choice([0, 1e-3, rng.uniform(5, 80)]), rng.choice([0, rng.uniform(5, 80)])
            tiles.append({"code": rng.choice(CLASS_NAMES), "box": [x, y, x + w, y + h],
                          "confidence": rng.choice([0.0, rng.random(), 1.0]), "sideways": rng.random() < 0.2})
        reply = _post(answer_client, {"image": {"width": 800, "height": 800}, "tiles": tiles}, {})
        assert reply.status_code in (200, 400), reply.get_data(as_text=True)
        if reply.status_code == 200:
            questions = reply.get_json()["questions"]
            if questions and questions[0]["choices"]:  # answering the first question also works
                label = questions[0]["choices"][0]["label"]
                again = _post(answer_client, {"image": {"width": 800, "height": 800}, "tiles": tiles},
                              {questions[0]["id"]: label})
                assert again.status_code in (200, 400), again.get_data(as_text=True)


def test_without_vision_grouping_it_is_a_503_in_words(answer_client, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "vision.grouping", None)  # the import fails, as without vision/
    reply = _post(answer_client, {"image": {"width": 10, "height": 10}, "tiles": []}, {})
    assert reply.status_code == 503 and reply.get_json()["error"]["code"] == "no_grouping"
    assert "enter the hand by hand" in reply.get_json()["error"]["message"]


def test_two_kongs_all_face_down_are_answered_one_by_one(answer_client):
    """Each face-down kong has its own question; the page sends both answers and gets the whole hand, and after one
    answer the other question's choices carry the hands they lead to."""
    detections = scene([(0, "1m 2m 3m 4p 5p 6p 9p | 9p"), (MELD_Y, "#6z #6z #6z #6z || #7z #7z #7z #7z")])
    detection = detections.to_dict()
    first = _post(answer_client, detection, {"kong-face-down": "6z"}).get_json()
    assert first["hand"] is None
    (second,) = first["questions"]
    assert second["id"] == "kong-face-down-2"
    seven = next(c for c in second["choices"] if c["label"] == "7z")
    assert _text(seven["hand"]) == norm("123m 456p 9p (6666z) (7777z) +9p")
    both = _post(answer_client, detection, {"kong-face-down": "6z", "kong-face-down-2": "7z"}).get_json()
    assert _text(both["hand"]) == norm("123m 456p 9p (6666z) (7777z) +9p") and both["questions"] == []
    same = _post(answer_client, detection, {"kong-face-down": "6z", "kong-face-down-2": "6z"})
    assert same.status_code == 400 and same.get_json()["error"]["code"] == "bad_answer"


def test_a_tile_the_photo_missed_is_answered_from_the_hands_choices(answer_client):
    """A row one tile short: the question "hand" offers the tiles that complete it (vision.missed_tile), and the
    page's answer gives the hand; a label it does not offer is a 400 that names the choices."""
    detections = scene([(0, "1m 2m 4p 5p 6p 7s 8s 9s 9p | 9p"), (MELD_Y, "4s' 3s 5s")])
    detection = detections.to_dict()
    reply = _post(answer_client, detection, {"hand": "3m"})
    assert reply.status_code == 200, reply.get_data(as_text=True)
    assert _text(reply.get_json()["hand"]) == norm("123m 456p 789s 9p [4'35s] +9p")
    wrong = _post(answer_client, detection, {"hand": "5z"})
    assert wrong.status_code == 400 and wrong.get_json()["error"]["code"] == "bad_answer"
    assert "3m" in wrong.get_json()["error"]["message"]


def test_a_flower_the_detector_could_not_tell_is_asked_again_from_the_pages_detection(answer_client):
    """``"unsure_face": true`` travels with the detection JSON (stop 54): the page's answers regroup it, and the
    question about that flower is asked again until answered."""
    from dataclasses import replace

    from vision.detections import Detections

    truth = scene([(0, "1m 2m 3m 4p 5p 6p 7s 8s 9s 9p | 9p"), (MELD_Y, "5s' 5s 5s"), (MELD_Y + 3 * 40, "2f . 7f")])
    index = index_of(truth, "7f")
    tiles = list(truth.tiles)
    tiles[index] = replace(tiles[index], confidence=0.25, unsure_face=True)
    detections = Detections(truth.width, truth.height, tuple(tiles))
    detection = group(detections).tag_detection(detections)
    assert detection["tiles"][index]["unsure_face"] is True
    asked = _post(answer_client, detection, {}).get_json()
    assert [q["id"] for q in asked["questions"]] == [f"flower-reading-{index}"]
    answered = _post(answer_client, detection, {f"flower-reading-{index}": "4f"}).get_json()
    assert answered["questions"] == [] and _text(answered["hand"]) == norm("123m 456p 789s 9p [5'55s] 24f +9p")


def test_each_question_says_whether_it_can_change_the_score(answer_client):
    """Under the player's rules each open question says whether some answer to it changes the score
    (vision.question_stakes): under the classical rules the 9s's two readings pay alike, the flower does not; once
    the flower is answered, the hand and its score stand, the 9s's question still listed but not needed."""
    detections, flower = _two_questions()
    detection = group(detections).tag_detection(detections)
    data = _post(answer_client, detection, {}, rules="classical").get_json()
    assert {q["id"]: q["changes_score"] for q in data["questions"]} == {"tile-reading": False, flower: True}
    assert data["settled_questions"] == ["tile-reading"]
    # each choice whose hand is whole and a valid win says what it scores: the 9s's readings alike; the flower's
    # choices keep the misread 9s (its question open), so no hand of theirs is a win
    tile, flower_question = data["questions"]
    totals = [c["total"] for c in tile["choices"]]
    assert len(set(totals)) == 1 and totals[0] > 0 and all("total" not in c for c in flower_question["choices"])
    data = _post(answer_client, detection, {flower: "4f"}, rules="classical", context={"seat_wind": "N"}).get_json()
    assert [(q["id"], q["changes_score"]) for q in data["questions"]] == [("tile-reading", False)]
    assert data["score"]["valid"] and data["hand"]["flowers"] == ["2f", "4f"]
    assert data["hand"]["context"]["seat_wind"] == "N"  # North's own flower: weighed in the player's context
    mcr = _post(answer_client, detection, {}, rules="mcr").get_json()
    assert all(q["changes_score"] for q in mcr["questions"]) and mcr["settled_questions"] == []
