"""The command line: every path of ``mjscan score`` and ``mjscan rules``, in-process and as a process."""

from __future__ import annotations

import doctest
import json
import subprocess
import sys
from pathlib import Path

import pytest

import mjscan.cli
from scorer import score
from scorer.codec import hand_from_dict
from scorer.result import Score
from tests.conftest import BELOW_MINIMUM_NOTATION, STRAIGHT_CLAIMED_NOTATION, STRAIGHT_NOTATION

REPO = Path(__file__).resolve().parents[2]
RESULT_KEYS = {"rules", "valid", "total", "items", "arrangement", "settlement", "notes"}
# Pure Straight 16, Dragon Pung 2, Concealed Kong 2, One Voided Suit 1, Single Wait 1, Flower Tiles 1 x 2.
MELDED_NOTATION = "123m 5s [4'56m] [7'89m] (7777z) 15f +5s | seat=N"


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def assert_no_traceback(run) -> None:
    assert "Traceback" not in run.err and "Traceback" not in run.out


def assert_result_shape(data: dict) -> None:
    """The spec's result JSON: its keys, items as name/points/count, the three settlement seats."""
    assert RESULT_KEYS <= set(data)
    assert set(data) - RESULT_KEYS <= {"error", "base", "doubles"}
    assert isinstance(data["valid"], bool) and isinstance(data["total"], int)
    for item in data["items"]:
        assert set(item) == {"name", "points", "count"}
    for part in data["arrangement"]:
        kind, tiles = part
        assert isinstance(kind, str) and all(isinstance(t, str) for t in tiles)
    assert isinstance(data["notes"], list)
    if data["valid"]:
        assert "error" not in data
        assert set(data["settlement"]) == {"winner", "discarder", "others"}
        assert sum(data["items"][i]["points"] * data["items"][i]["count"] for i in range(len(data["items"]))) \
            == data["total"]
    else:
        assert set(data["error"]) == {"code", "message"} and data["error"]["message"]


# --- the readable table ---------------------------------------------------------------------------


def test_table_lists_items_total_settlement(cli):
    run = cli("score", "--notation", STRAIGHT_NOTATION)
    assert run.status == 0 and run.err == ""
    lines = run.out.splitlines()
    assert lines[0] == "Mahjong Competition Rules (Chinese Official)"
    assert lines[1].split() == ["Fan", "Points", "Count", "Subtotal"]
    assert lines[2].split() == ["Pure", "Straight", "16", "1", "16"]
    assert lines[3].split() == ["Fully", "Concealed", "Hand", "4", "1", "4"]
    assert lines[4].split() == ["All", "Chows", "2", "1", "2"]
    assert lines[5].split() == ["Single", "Wait", "1", "1", "1"]
    assert lines[6].split() == ["Total", "23"]
    settlement = run.out[run.out.index("Settlement"):]
    assert "winner     +93" in settlement
    assert "discarder  none (self-drawn)" in settlement  # null on a self-draw
    assert "others     -31 each" in settlement


def test_table_counts_and_subtotals_and_discarder(cli):
    run = cli("score", "--notation", MELDED_NOTATION)
    assert run.status == 0
    flower_line = next(line for line in run.out.splitlines() if line.startswith("Flower Tiles"))
    assert flower_line.split()[-3:] == ["1", "2", "2"]  # points, count, subtotal
    assert next(line for line in run.out.splitlines() if line.startswith("Total")).split() == ["Total", "24"]
    assert "discarder  -32" in run.out and "winner     +48" in run.out and "others     -8 each" in run.out


def test_table_shows_notes(cli):
    run = cli("score", "--notation", "12m 55m [1'23m] [2'34m] [3'45m] +3m")
    assert run.status == 0
    assert "Note: Last Tile: the other three 3m are in your own melds." in run.out


def test_format_table_doctest():
    assert doctest.testmod(mjscan.cli).failed == 0


# --- --json --------------------------------------------------------------------------------------


def test_json_is_the_spec_result(cli, tmp_path, straight_hand):
    path = write(tmp_path, "hand.json", json.dumps(straight_hand))
    run = cli("score", "--rules", "mcr", "--json", path)
    assert run.status == 0 and run.err == ""
    data = json.loads(run.out)
    assert_result_shape(data)
    assert data == score(hand_from_dict(straight_hand), "mcr").to_dict()
    assert data["rules"] == "mcr" and data["valid"] is True and data["total"] == 23
    assert data["items"][0] == {"name": "Pure Straight", "points": 16, "count": 1}
    assert data["settlement"] == {"winner": 93, "discarder": None, "others": -31}
    assert data["arrangement"][-1] == ["pair", ["5s", "5s"]]
    assert run.out.count("\n") == 1  # one line


def test_json_flowers_and_claimed_win(cli):
    data = json.loads(cli("score", "--json", "--notation", MELDED_NOTATION).out)
    assert_result_shape(data)
    assert {"name": "Flower Tiles", "points": 1, "count": 2} in data["items"]
    assert data["settlement"] == {"winner": 48, "discarder": -32, "others": -8}


def test_rules_defaults_to_mcr(cli, tmp_path, straight_hand):
    path = write(tmp_path, "hand.json", json.dumps(straight_hand))
    assert json.loads(cli("score", "--json", path).out)["rules"] == "mcr"


# --- standard input and the notation --------------------------------------------------------------


def test_stdin_dash(cli, straight_hand):
    run = cli("score", "--json", "-", stdin=json.dumps(straight_hand))
    assert run.status == 0
    assert json.loads(run.out)["total"] == 23


def test_stdin_table(cli, straight_hand):
    run = cli("score", "-", stdin=json.dumps(straight_hand, indent=2))
    assert run.status == 0 and "Pure Straight" in run.out


def test_notation_equals_json(cli, straight_hand):
    from_notation = json.loads(cli("score", "--json", "--notation", STRAIGHT_NOTATION).out)
    from_json = json.loads(cli("score", "--json", "-", stdin=json.dumps(straight_hand)).out)
    assert from_notation == from_json


def test_notation_claimed_win(cli):
    data = json.loads(cli("score", "--json", "--notation", STRAIGHT_CLAIMED_NOTATION).out)
    assert data["total"] == 21 and data["settlement"]["discarder"] == -29


def test_unread_context_key_is_noted(cli):
    run = cli("score", "--notation", STRAIGHT_CLAIMED_NOTATION + " | selfdrawn dealer")
    assert run.status == 0 and "Pure Straight" in run.out
    assert "do not read the context key 'selfdrawn'" in run.err and "dealer" not in run.err  # dealer: a spec key


def test_bad_notation(cli):
    run = cli("score", "--notation", "123m 456x +5s")
    assert run.status == 2 and run.out == ""
    assert "Could not read '456x'" in run.err
    assert_no_traceback(run)
    data = json.loads(cli("score", "--json", "--notation", "123m 456x +5s").out)
    assert data["valid"] is False and data["error"]["code"] == "bad_notation"


def test_bad_tile_in_notation(cli):
    run = cli("score", "--notation", "123m 456m 789m 234p 5s +0s")
    assert run.status == 2 and "'0s'" in run.err


# --- --batch ---------------------------------------------------------------------------------------


def test_batch_with_a_bad_line(cli, tmp_path, straight_hand):
    good = json.dumps(straight_hand)
    short = json.dumps({"concealed": ["1m"], "winning_tile": "1m"})
    path = write(tmp_path, "in.jsonl", "\n".join([good, "{not json", short, "", good, "[1, 2]"]) + "\n")
    run = cli("score", "--rules", "mcr", "--batch", path)
    assert run.status == 2
    results = [json.loads(line) for line in run.out.splitlines()]
    assert len(results) == 5  # the blank line is skipped; every other line answers, in order
    for data in results:
        assert_result_shape(data)
    assert [r["valid"] for r in results] == [True, False, False, True, False]
    assert results[0] == results[3] == score(hand_from_dict(straight_hand)).to_dict()
    assert results[1]["error"]["code"] == "bad_json"
    assert results[2]["error"]["code"] == "wrong_tile_count"
    assert results[4]["error"]["code"] == "malformed_hand"
    assert "line 2:" in run.err and "line 3:" in run.err and "line 6:" in run.err
    assert_no_traceback(run)


def test_batch_all_valid_exits_0(cli, tmp_path, straight_hand):
    melded = hand_from_dict(json.loads(json.dumps(straight_hand)))
    path = write(tmp_path, "in.jsonl", json.dumps(straight_hand) + "\n" + json.dumps(straight_hand) + "\n")
    run = cli("score", "--json", "--batch", path)  # --json is accepted (batch output is JSON anyway)
    assert run.status == 0 and run.err == ""
    assert [json.loads(line) for line in run.out.splitlines()] == [score(melded).to_dict()] * 2


def test_batch_below_minimum_is_invalid(cli, tmp_path, full_hand):
    path = write(tmp_path, "in.jsonl", json.dumps(full_hand) + "\n")
    run = cli("score", "--batch", path)
    assert run.status == 2
    data = json.loads(run.out)
    assert data["error"]["code"] == "below_minimum" and data["items"]


def test_batch_from_stdin(cli, straight_hand):
    run = cli("score", "--batch", "-", stdin=json.dumps(straight_hand) + "\n" + "oops\n")
    assert run.status == 2
    assert [json.loads(line)["valid"] for line in run.out.splitlines()] == [True, False]


def test_batch_missing_file(cli, tmp_path):
    run = cli("score", "--batch", str(tmp_path / "nope.jsonl"))
    assert run.status == 2 and run.out == "" and "No such file" in run.err


# --- bad input: messages, exit status 2, never a traceback ---------------------------------------


def test_unknown_rules(cli, straight_hand):
    run = cli("score", "--rules", "nosuch", "-", stdin=json.dumps(straight_hand))
    assert run.status == 2 and run.out == ""
    assert "Unknown rule set 'nosuch'" in run.err and "mcr" in run.err


def test_missing_file(cli, tmp_path):
    run = cli("score", str(tmp_path / "missing.json"))
    assert run.status == 2 and run.out == ""
    assert "No such file" in run.err and "missing.json" in run.err
    assert_no_traceback(run)


def test_folder_instead_of_file(cli, tmp_path):
    run = cli("score", str(tmp_path))
    assert run.status == 2 and "folder" in run.err


def test_malformed_json(cli, tmp_path):
    path = write(tmp_path, "bad.json", '{"concealed": ["1m",')
    run = cli("score", path)
    assert run.status == 2 and run.out == ""
    assert "not valid JSON" in run.err and "line 1" in run.err
    assert_no_traceback(run)
    data = json.loads(cli("score", "--json", path).out)
    assert data["valid"] is False and data["error"]["code"] == "bad_json"


def test_notation_on_stdin_gets_a_hint(cli):
    run = cli("score", "-", stdin=STRAIGHT_NOTATION)
    assert run.status == 2 and "--notation" in run.err


def test_file_with_byte_order_mark(cli, tmp_path, straight_hand):
    path = tmp_path / "bom.json"
    path.write_text("\ufeff" + json.dumps(straight_hand), encoding="utf-8")
    assert cli("score", str(path)).status == 0
    assert cli("score", "--batch", str(path)).status == 0


def test_empty_input(cli):
    run = cli("score", "-", stdin="  \n")
    assert run.status == 2 and "empty" in run.err


def test_not_utf8(cli, tmp_path):
    path = tmp_path / "bin.json"
    path.write_bytes(b"\xff\xfe\x00")
    run = cli("score", str(path))
    assert run.status == 2 and "UTF-8" in run.err


@pytest.mark.parametrize("hand, code", [
    ({"concealed": ["1m", "2m", "3m"], "winning_tile": "3m"}, "wrong_tile_count"),
    ({"concealed": ["1m"] * 5 + ["2m"] * 9, "winning_tile": "2m"}, "too_many_copies"),
    ({"concealed": ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "2p", "3p", "4p", "5s", "5s"],
      "winning_tile": "6s"}, "winning_tile_not_in_hand"),
    ({"concealed": ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "2p", "3p", "4p", "5s", "1f"],
      "winning_tile": "5s"}, "flower_in_hand"),
    ({"concealed": ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "2p", "3p", "4p", "5s", "xx"],
      "winning_tile": "5s"}, "unknown_tile"),
    ({"concealed": ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "2p", "3p", "5p", "5s", "7s"],
      "winning_tile": "7s"}, "not_mahjong"),
    ({"tiles": []}, "malformed_hand"),
    ([1, 2, 3], "malformed_hand"),
])
def test_invalid_hand_exits_2(cli, hand, code):
    run = cli("score", "-", stdin=json.dumps(hand))
    assert run.status == 2
    assert run.err.startswith("mjscan: ") and len(run.err.strip()) > 20
    assert_no_traceback(run)
    data = json.loads(cli("score", "--json", "-", stdin=json.dumps(hand)).out)
    assert_result_shape(data)
    assert data["valid"] is False and data["error"]["code"] == code
    assert data["error"]["message"] in run.err


def test_invalid_hand_still_prints_items(cli):
    run = cli("score", "--notation", BELOW_MINIMUM_NOTATION)
    assert run.status == 2
    assert "Two Terminal Chows" in run.out and "Total" in run.out
    assert "at least 8" in run.err


def test_usage_errors_exit_2(cli):
    assert cli().status == 2
    assert cli("score").status == 2  # no hand
    assert cli("score", "--notation", STRAIGHT_NOTATION, "--batch", "x.jsonl").status == 2
    assert cli("frobnicate").status == 2


def test_scorer_bug_is_reported_without_traceback(cli, monkeypatch, straight_hand, tmp_path):
    class Broken:
        name = "broken"
        title = "Broken"
        context_keys = ()

        def score(self, hand) -> Score:
            raise ZeroDivisionError("oops")

    monkeypatch.setattr(mjscan.cli, "get_rule_set", lambda name: Broken())
    run = cli("score", "-", stdin=json.dumps(straight_hand))
    assert run.status == 1 and "bug" in run.err and "ZeroDivisionError" in run.err
    assert_no_traceback(run)
    path = write(tmp_path, "in.jsonl", json.dumps(straight_hand) + "\n")
    run = cli("score", "--batch", path)
    assert run.status == 1 and json.loads(run.out)["error"]["code"] == "internal_error"


# --- mjscan rules ----------------------------------------------------------------------------------


def test_rules_lists_rule_sets_and_context_keys(cli):
    run = cli("rules")
    assert run.status == 0
    assert "\nmcr: Mahjong Competition Rules (Chinese Official)" in "\n" + run.out
    for key in ("self_drawn", "seat_wind", "prevalent_wind", "last_of_kind", "last_tile",
                "kong_replacement", "robbing_kong"):
        assert f"  {key} " in run.out


def test_rules_json_matches_registry(cli):
    from scorer.rules import RULE_SETS

    data = json.loads(cli("rules", "--json").out)
    assert [r["name"] for r in data["rules"]] == list(RULE_SETS)
    mcr = next(r for r in data["rules"] if r["name"] == "mcr")
    assert [k["key"] for k in mcr["context_keys"]] == [k.key for k in RULE_SETS["mcr"].context_keys]
    assert mcr["context_keys"][1] == {"key": "seat_wind", "type": "wind", "description": "The winner's seat wind.",
                                      "default": "E", "choices": ["E", "S", "W", "N"]}


# --- as a process ----------------------------------------------------------------------------------


def run_module(*argv: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mjscan", *argv], input=stdin, capture_output=True, text=True,
                          cwd=REPO, timeout=60)


def test_python_m_mjscan_scores():
    done = run_module("score", "--notation", STRAIGHT_NOTATION)
    assert done.returncode == 0, done.stderr
    assert "Pure Straight" in done.stdout and "Total" in done.stdout


def test_python_m_mjscan_cli_runs_every_command():
    """``python -m mjscan.cli`` ran main before the vision commands were defined (a NameError, stop 55)."""
    done = subprocess.run([sys.executable, "-m", "mjscan.cli", "score", "--notation", STRAIGHT_NOTATION],
                          capture_output=True, text=True, cwd=REPO, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "Pure Straight" in done.stdout and "Traceback" not in done.stderr


def test_python_m_mjscan_bad_input_exit_2_without_traceback(straight_hand):
    done = run_module("score", "-", stdin='{"concealed": ')
    assert done.returncode == 2 and "Traceback" not in done.stderr and "not valid JSON" in done.stderr
    done = run_module("score", "--json", "-", stdin=json.dumps(straight_hand))
    assert done.returncode == 0 and json.loads(done.stdout)["total"] == 23


def test_cli_import_is_light():
    code = ("import sys, mjscan.cli; heavy = {'numpy', 'PIL', 'flask', 'torch', 'onnxruntime', 'ultralytics', "
            "'cv2', 'vision', 'server', 'datasets'} & set(sys.modules); print(sorted(heavy))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


# --------------------------------------------------------------------------------------------------
# mjscan settle and mjscan waits

LOSER = {"concealed": ["1m", "9m", "1p", "9p", "1s", "9s", "1z", "2z", "3z", "4z", "5z", "6z", "7z"]}


def _table(straight_hand, discarder="N"):
    straight_hand.pop("context")
    return {"players": [{"seat": "E", "hand": straight_hand}] + [{"seat": s, "hand": LOSER} for s in "SWN"],
            "winner": "E", "discarder": discarder}


def test_settle_table_and_json(cli, tmp_path, straight_hand):
    path = tmp_path / "table.json"
    path.write_text(json.dumps(_table(straight_hand)))
    run = cli("settle", str(path))
    assert run.status == 0
    assert "N pays E 29" in run.out and "S pays E 8" in run.out and "Net: E +45" in run.out
    data = json.loads(cli("settle", "--json", str(path)).out)
    assert data["net"] == {"E": 45, "S": -8, "W": -8, "N": -29}
    assert data["payments"][0] == {"from": "S", "to": "E", "amount": 8}


def test_settle_self_draw_from_stdin(cli, straight_hand):
    run = cli("settle", "--json", "-", stdin=json.dumps(_table(straight_hand, discarder=None)))
    assert json.loads(run.out)["net"] == {"E": 93, "S": -31, "W": -31, "N": -31}


@pytest.mark.parametrize("table, message", [
    ({"players": [], "winner": "E"}, "players"),
    ({"players": [{"seat": "E", "hand": LOSER}] * 2, "winner": None}, "seat E"),
    ({"players": [{"seat": "Q", "hand": LOSER}], "winner": None}, "not a wind"),
])
def test_settle_bad_tables_exit_2(cli, table, message):
    run = cli("settle", "-", stdin=json.dumps(table))
    assert run.status == 2 and message in run.err and "Traceback" not in run.err


def test_settle_unknown_rules(cli, straight_hand):
    run = cli("settle", "--rules", "nope", "-", stdin=json.dumps(_table(straight_hand)))
    assert run.status == 2 and "Unknown rule set" in run.err


def test_waits(cli):
    run = cli("waits", "--notation", "123m 456m 789m 23p 55s")
    assert run.status == 0 and "1p (1 Dots)" in run.out and "4p (4 Dots)" in run.out
    assert json.loads(cli("waits", "--json", "--notation", "123m 456m 789m 23p 55s").out) == ["1p", "4p"]
    assert "Not ready" in cli("waits", "--notation", "123m 456m 789m 29p 55s").out


def test_waits_refuses_a_won_hand(cli):
    run = cli("waits", "--notation", "123m 456m 789m 234p 5s +5s")
    assert run.status == 2 and "already won" in run.err


def test_prepare_art_offers_every_painter_generation():
    """The CLI writes the generations out (it imports no painter at start-up); they must be the painter's own."""
    from datasets.art.painter import RANDOM_GENERATIONS

    parser = mjscan.cli.build_parser()
    synth = next(a for a in parser._subparsers._group_actions[0].choices["synth"]._actions
                 if isinstance(a, type(parser._subparsers._group_actions[0])))
    prepare = synth.choices["prepare-art"]
    option = next(a for a in prepare._actions if "--random-generation" in a.option_strings)
    assert tuple(option.choices) == RANDOM_GENERATIONS


def test_prepare_art_passes_the_styles_it_is_given(monkeypatch):
    """``mjscan synth prepare-art --style NAME`` (stop 41: the opt-in xmahjongg styles are built only when named)."""
    import datasets.art.prepare

    seen = []
    monkeypatch.setattr(datasets.art.prepare, "main", lambda argv: seen.append(argv) or 0)
    assert mjscan.cli.main(["synth", "prepare-art", "--out", "art-xm", "--quiet", "--style", "xm-real",
                            "--style", "xm-dorothys"]) == 0
    assert seen == [["--out", "art-xm", "--quiet", "--style", "xm-real", "--style", "xm-dorothys"]]
