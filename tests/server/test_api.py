"""The JSON API without photos: health, rules, score, waits, settle, and its error answers."""

from __future__ import annotations

import json

import pytest

from scorer import parse_hand, score
from scorer.codec import hand_to_dict
from scorer.rules import RULE_SETS
from tests.conftest import STRAIGHT_HAND, assert_readable
from tests.server.helpers import STRAIGHT, Message


def error_of(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.is_json
    error = response.get_json()["error"]
    assert error["code"] == code
    assert_readable(Message(error["message"]))
    return error


def post_json(client, path: str, body) -> object:
    return client.post(path, data=json.dumps(body), content_type="application/json")


# --------------------------------------------------------------------------------------------------
# health and rules


def test_health_says_ok_lists_rules_and_whether_a_detector_is_there(client, bare_client):
    data = client.get("/api/health").get_json()
    assert data["status"] == "ok"
    assert data["rules"] == list(RULE_SETS) and "mcr" in data["rules"]
    assert data["detector"] is True
    assert isinstance(data["version"], str) and data["version"]
    assert bare_client.get("/api/health").get_json()["detector"] is False


def test_rules_come_from_the_registry_with_their_context_keys(client):
    data = client.get("/api/rules").get_json()
    assert data["default"] == "mcr"
    by_name = {r["name"]: r for r in data["rules"]}
    assert set(by_name) == set(RULE_SETS)
    for name, rule_set in RULE_SETS.items():
        assert by_name[name]["title"] == rule_set.title
        assert by_name[name]["context_keys"] == [key.to_dict() for key in rule_set.context_keys]
    kinds = {key["type"] for r in data["rules"] for key in r["context_keys"]}
    assert {"flag", "wind", "int", "choice"} <= kinds


# --------------------------------------------------------------------------------------------------
# score


def test_score_a_hand_json_gives_the_scorers_result(client):
    response = post_json(client, "/api/score", {"rules": "mcr", "hand": STRAIGHT_HAND})
    assert response.status_code == 200
    data = response.get_json()
    expected = score(parse_hand(STRAIGHT), "mcr").to_dict()
    for key, value in expected.items():
        assert data[key] == value
    assert data["total"] == 23 and data["valid"] is True
    assert data["notation"] == "123456789m 234p 5s +5s | self_drawn"
    assert data["hand"]["winning_tile"] == "5s"


def test_rules_default_to_mcr(client):
    assert post_json(client, "/api/score", {"hand": STRAIGHT_HAND}).get_json()["rules"] == "mcr"


def test_score_takes_the_notation_instead_of_a_hand_and_answers_the_hand(client):
    data = post_json(client, "/api/score", {"rules": "mcr", "notation": "123m 5s [4'56m] [7'89m] (7777z) 15f +5s | seat=N"}).get_json()
    assert data["valid"] and data["total"] == 24
    assert data["hand"] == hand_to_dict(parse_hand("123m 5s [4'56m] [7'89m] (7777z) 15f +5s | seat=N"))


@pytest.mark.parametrize("rules", sorted(RULE_SETS))
def test_every_rule_set_scores_through_the_api(client, rules):
    data = post_json(client, "/api/score", {"rules": rules, "notation": STRAIGHT}).get_json()
    assert data["rules"] == rules
    assert data == {**score(parse_hand(STRAIGHT), rules).to_dict(), "hand": data["hand"], "notation": data["notation"]}


def test_an_invalid_hand_is_a_result_not_an_http_error(client):
    response = post_json(client, "/api/score", {"notation": "123m 456p 789m 5s [5'55m] +5s"})
    assert response.status_code == 200
    data = response.get_json()
    assert data["valid"] is False and data["error"]["code"] == "below_minimum"
    assert data["total"] == 3 and data["settlement"]["winner"] == -30


def test_a_13_tile_hand_is_scored_by_the_doubling_rule_sets(client):
    mcr = post_json(client, "/api/score", {"rules": "mcr", "notation": "123m 456m 789m 23p 55s"}).get_json()
    assert mcr["error"]["code"] == "no_winning_tile"
    classical = post_json(client, "/api/score", {"rules": "classical", "notation": "123m 456m 789m 23p 55s"}).get_json()
    assert classical["rules"] == "classical" and "total" in classical


@pytest.mark.parametrize("hand, code", [
    ({"concealed": ["1m", "2m"]}, "wrong_tile_count"),
    ({"concealed": ["1x"] * 14}, "unknown_tile"),
    ({"concealed": "1m2m3m"}, "malformed_hand"),
    ({"concealed": ["1m"] * 14, "winning_tile": "1m"}, "too_many_copies"),
    ({"concealed": ["1m"], "melds": [{"kind": "chow", "tiles": ["1z", "2z", "3z"]}]}, "impossible_chow"),
    ({"concealed": [], "colour": "red"}, "malformed_hand"),
    ([1, 2, 3], "malformed_hand"),
    ({**STRAIGHT_HAND, "context": {"self_drawn": "maybe"}}, "bad_context"),
    ({**STRAIGHT_HAND, "context": {"seat_wind": "Q"}}, "unknown_wind"),
])
def test_a_malformed_hand_is_400_with_the_players_message_and_a_result(client, hand, code):
    response = post_json(client, "/api/score", {"rules": "mcr", "hand": hand})
    error_of(response, 400, code)
    data = response.get_json()
    assert data["valid"] is False and data["rules"] == "mcr"  # also a result, for the page


@pytest.mark.parametrize("notation, code", [("123m 456x", "bad_notation"), ("", "bad_notation"),
                                            ("123m [12z]", "bad_meld")])
def test_bad_notation_is_400(client, notation, code):
    error_of(post_json(client, "/api/score", {"notation": notation}), 400, code)


def test_notation_must_be_text(client):
    error_of(post_json(client, "/api/score", {"notation": ["1m"]}), 400, "bad_notation")


def test_hand_and_notation_together_or_neither_is_400(client):
    error_of(post_json(client, "/api/score", {"hand": STRAIGHT_HAND, "notation": STRAIGHT}), 400, "malformed_hand")
    error_of(post_json(client, "/api/score", {"rules": "mcr"}), 400, "malformed_hand")


@pytest.mark.parametrize("body", ["{not json", "[1, 2", "", "   ", '"a string"', "[1, 2]", "null", "[" * 100000])
def test_bad_json_is_400(client, body):
    error_of(client.post("/api/score", data=body, content_type="application/json"), 400, "bad_json")


def test_json_is_read_whatever_the_content_type(client):
    response = client.post("/api/score", data=json.dumps({"notation": STRAIGHT}), content_type="text/plain")
    assert response.status_code == 200 and response.get_json()["total"] == 23


@pytest.mark.parametrize("rules", ["nope", "", 7, None, ["mcr"]])
def test_unknown_rules_are_400(client, rules):
    error = error_of(post_json(client, "/api/score", {"rules": rules, "notation": STRAIGHT}), 400, "unknown_rules")
    assert "mcr" in error["message"]


# --------------------------------------------------------------------------------------------------
# waits and settle (extensions)


def test_waits_of_a_13_tile_hand(client):
    data = post_json(client, "/api/waits", {"rules": "mcr", "notation": "123m 456m 789m 23p 55s"}).get_json()
    assert data == {"rules": "mcr", "waits": ["1p", "4p"]}
    hand = hand_to_dict(parse_hand("123m 456m 789m 23p 55s"))
    assert post_json(client, "/api/waits", {"hand": hand}).get_json()["waits"] == ["1p", "4p"]
    assert post_json(client, "/api/waits", {"notation": "1357m 2468p 1357s 1z"}).get_json()["waits"] == []


def test_waits_errors(client):
    error_of(post_json(client, "/api/waits", {"notation": STRAIGHT}), 400, "not_waiting")
    error_of(post_json(client, "/api/waits", {"notation": "123m"}), 400, "wrong_tile_count")
    error_of(post_json(client, "/api/waits", {"rules": "x", "notation": "123m 456m 789m 23p 55s"}), 400, "unknown_rules")
    error_of(client.post("/api/waits", data="nope"), 400, "bad_json")


def _table() -> dict:
    hands = {"E": "123m 456m 789m 234p 5s +5s", "S": "19m 19p 19s 1234567z", "W": "123456789m 1234p",
             "N": "111222333p 4567s"}
    return {"players": [{"seat": seat, "hand": hand_to_dict(parse_hand(text))} for seat, text in hands.items()],
            "winner": "E", "discarder": "N"}


def test_settle_a_table(client):
    data = post_json(client, "/api/settle", {"rules": "mcr", **_table()}).get_json()
    assert data["rules"] == "mcr"
    assert data["net"] == {"E": 45, "S": -8, "W": -8, "N": -29}
    assert sum(data["net"].values()) == 0
    assert {"from": "N", "to": "E", "amount": 29} in data["payments"]


def test_settle_under_a_rule_set_that_scores_every_hand(client):
    data = post_json(client, "/api/settle", {"rules": "classical", **_table()}).get_json()
    assert set(data["scores"]) == {"E", "S", "W", "N"}
    assert sum(data["net"].values()) == 0


def test_settle_errors(client):
    error_of(post_json(client, "/api/settle", {"players": []}), 400, "bad_table")
    table = _table()
    table["winner"] = "S"
    error_of(post_json(client, "/api/settle", table), 400, "bad_table")
    table = _table()
    table["players"][1]["hand"] = {"concealed": ["1m"]}
    error = error_of(post_json(client, "/api/settle", table), 400, "wrong_tile_count")
    assert error["message"].startswith("Player S:")
    error_of(post_json(client, "/api/settle", {**_table(), "rules": "nope"}), 400, "unknown_rules")


# --------------------------------------------------------------------------------------------------
# HTTP errors are JSON under /api


def test_unknown_api_address_is_a_json_404(client):
    error_of(client.get("/api/nothing-here"), 404, "not_found")
    error_of(client.post("/api/scan/extra"), 404, "not_found")


@pytest.mark.parametrize("method, path", [("get", "/api/score"), ("get", "/api/scan"), ("post", "/api/health"),
                                          ("delete", "/api/rules"), ("put", "/api/waits"), ("get", "/api/settle")])
def test_wrong_method_is_a_json_405(client, method, path):
    error_of(getattr(client, method)(path), 405, "method_not_allowed")


def test_a_page_404_stays_html(client):
    response = client.get("/no-such-page")
    assert response.status_code == 404 and not response.is_json


def test_api_answers_are_not_cached(client):
    assert client.get("/api/health").headers["Cache-Control"] == "no-store"


def test_an_unexpected_failure_is_a_json_500_and_the_app_goes_on(app, client, monkeypatch):
    from scorer.mcr import RULE_SET

    def broken(hand):
        raise RuntimeError("scorer bug")

    monkeypatch.setattr(RULE_SET, "score", broken)
    error_of(post_json(client, "/api/score", {"notation": STRAIGHT}), 500, "internal_error")
    monkeypatch.undo()
    assert post_json(client, "/api/score", {"notation": STRAIGHT}).get_json()["total"] == 23
