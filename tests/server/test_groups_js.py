"""server/static/groups.js under node: the photo's boxes take the grouping's own groups (detection
``group`` tags, docs/server.md); only a detection without any is matched to the hand by code."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from scorer import parse_hand
from scorer.codec import hand_to_dict
from server.scanning import layout_detection

GROUPS_JS = Path(__file__).resolve().parents[2] / "server" / "static" / "groups.js"
NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed")

_RUN = """
const vm = require("vm"), fs = require("fs");
const context = { window: {} };
vm.createContext(context);
vm.runInContext(fs.readFileSync(process.argv[1], "utf8"), context);
const input = JSON.parse(fs.readFileSync(0, "utf8"));
const G = context.window.MjGroups;
process.stdout.write(JSON.stringify({ groups: G.tileGroups(input.tiles, input.hand), tagged: G.tagged(input.tiles) }));
"""


def tile_groups(tiles: list[dict], hand: dict | None) -> tuple[list[str], bool]:
    result = subprocess.run([NODE, "-e", _RUN, str(GROUPS_JS)], input=json.dumps({"tiles": tiles, "hand": hand}),
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    return answer["groups"], answer["tagged"]


def test_the_groupings_tags_are_the_colours_even_where_codes_would_say_otherwise():
    hand = hand_to_dict(parse_hand("123m 5s [4'56m] [77'7z] (6666z) 15f +5s"))
    detection = layout_detection(hand, 1600, 400)
    tiles = detection["tiles"]
    # the grouping put the first 1m in meld:1 and left the last box out (not in the hand): the tags win
    tiles[0]["group"] = "meld:1"
    del tiles[-1]["group"]
    groups, tagged = tile_groups(tiles, hand)
    assert tagged is True
    assert groups[0] == "meld:1" and groups[-1] == "unmatched"
    assert groups[1:-1] == [t["group"] for t in tiles[1:-1]]


def test_tags_hold_after_the_hand_is_edited():
    """The boxes show what the photo was read as: an edited hand does not re-colour them."""
    hand = hand_to_dict(parse_hand("123m 5s [4'56m] [77'7z] (6666z) 15f +5s"))
    tiles = layout_detection(hand, 1600, 400)["tiles"]
    edited = hand_to_dict(parse_hand("123456789m 234p 5s +5s"))
    groups, _ = tile_groups(tiles, edited)
    assert groups == [t["group"] for t in tiles]


def test_an_unknown_tag_is_not_in_the_hand():
    tiles = [{"code": "1m", "box": [0, 0, 1, 1], "confidence": 0.9, "sideways": False, "group": "meld:?"},
             {"code": "2m", "box": [1, 0, 2, 1], "confidence": 0.9, "sideways": False, "group": "concealed"}]
    assert tile_groups(tiles, None)[0] == ["unmatched", "concealed"]


def test_without_tags_the_boxes_are_matched_by_code():
    hand = hand_to_dict(parse_hand("123m 5s [4'56m] [77'7z] (6666z) 15f +5s"))
    detection = layout_detection(hand, 1600, 400)
    expected = [t.pop("group") for t in detection["tiles"]]
    groups, tagged = tile_groups(detection["tiles"], hand)
    assert tagged is False
    assert groups == expected  # a clean layout: matching by code finds the same groups (kong backs included)
    extra = {"code": "9p", "box": [1590, 0, 1599, 10], "confidence": 0.5, "sideways": False}
    groups, _ = tile_groups(detection["tiles"] + [extra], hand)
    assert groups[-1] == "unmatched"
    assert tile_groups([], None) == ([], False)
