"""The vocabulary: tiles, melds, hands and context, their validation, and the hand JSON codec."""

from __future__ import annotations

import json

import pytest

from scorer import Context, Direction, Hand, HandError, Meld, MeldKind, Suit, Tile, Wind
from scorer.codec import hand_from_dict, hand_to_dict
from scorer.tiles import ALL_TILES, BONUS_TILES, PLAYING_TILES
from tests.conftest import FULL_HAND, STRAIGHT_HAND, assert_readable

T = Tile.parse


def tiles(text: str) -> tuple[Tile, ...]:
    return tuple(T(code) for code in text.split())


def raises(code: str, fn, *args, **kwargs) -> HandError:
    with pytest.raises(HandError) as info:
        fn(*args, **kwargs)
    assert info.value.code == code, info.value
    assert_readable(info.value)
    return info.value


# --- tiles -----------------------------------------------------------------------------------------


def test_all_42_codes_parse_in_class_order():
    codes = [f"{r}{s}" for s in "mps" for r in range(1, 10)] + [f"{r}z" for r in range(1, 8)] \
        + [f"{r}f" for r in range(1, 9)]
    assert [T(c) for c in codes] == list(ALL_TILES)
    assert [t.code for t in ALL_TILES] == codes
    assert len(PLAYING_TILES) == 34 and len(BONUS_TILES) == 8
    assert [t.index for t in PLAYING_TILES] == list(range(34))


def test_bonus_tile_index_is_the_detector_class_id():
    assert [t.index for t in BONUS_TILES] == list(range(34, 42))


def test_tile_properties():
    assert T("7z").name == "Red Dragon" and T("7z").is_dragon and T("7z").is_honor
    assert T("1z").wind is Wind.EAST and T("4z").wind is Wind.NORTH and T("5z").wind is None
    assert T("3p") == Tile(Suit.DOTS, 3) and T("3p").name == "3 Dots"
    assert T("1s").is_terminal and not T("2s").is_terminal and T("2s").is_simple
    assert [T(f"{n}f").seat for n in range(1, 9)] == [1, 2, 3, 4, 1, 2, 3, 4]
    assert T("4f").is_flower and T("5f").is_season and T("5f").name == "Spring"
    assert T("9m").next() is None and T("8m").next() == T("9m")
    assert sorted(tiles("1z 9s 1m 5f 5p")) == list(tiles("1m 5p 9s 1z 5f"))


def test_tile_parse_is_forgiving_about_spaces_and_case():
    assert T(" 3m ") == T("3M") == T("3m")


@pytest.mark.parametrize("code, mentions", [
    ("0m", "'0m'"), ("8z", "1 to 7"), ("9f", "1 to 8"), ("3x", "m, p, s, z or f"), ("10m", "'10m'"),
    ("", "e.g. '3m'"), ("back", "'back'"), ("m3", "'m3'"), (3, "'3m'"),
    (None, "not a tile code"),
])
def test_unknown_tile_codes(code, mentions):
    error = raises("unknown_tile", T, code)
    assert mentions in error.message


def test_tile_constructor_validates():
    raises("unknown_tile", Tile, Suit.HONORS, 8)
    raises("unknown_tile", Tile, "m", 3)


def test_wind_parse():
    assert Wind.parse("s") is Wind.SOUTH and Wind.parse("north") is Wind.NORTH
    raises("unknown_wind", Wind.parse, "Q")


# --- melds -----------------------------------------------------------------------------------------


def test_meld_constructors():
    chow = Meld.chow(T("3s"), claimed_tile=T("4s"))
    assert chow.kind is MeldKind.CHOW and chow.tiles == tiles("3s 4s 5s") and chow.claimed is Direction.LEFT
    pung = Meld.pung(T("7z"), claimed=Direction.ACROSS)
    assert pung.claimed_tile == T("7z") and pung.is_pung_or_kong and not pung.concealed
    kong = Meld.kong(T("6z"), concealed=True)
    assert kong.concealed and kong.claimed is None and len(kong.tiles) == 4
    assert Meld(MeldKind.CHOW, tiles("5m 3m 4m")).tiles == tiles("3m 4m 5m")  # sorted


@pytest.mark.parametrize("meld_tiles", ["1m 2m 4m", "8m 9m 1m", "1m 2p 3m", "1z 2z 3z"])
def test_impossible_chow(meld_tiles):
    raises("impossible_chow", Meld, MeldKind.CHOW, tiles(meld_tiles))


def test_chow_past_nine():
    assert "8m" in raises("impossible_chow", Meld.chow, T("8m")).message


@pytest.mark.parametrize("direction", [Direction.ACROSS, Direction.RIGHT])
def test_chow_claimed_from_across_or_right(direction):
    error = raises("impossible_chow", Meld.chow, T("3m"), claimed=direction, claimed_tile=T("4m"))
    assert "left" in error.message and direction.value in error.message


def test_concealed_pung_is_not_a_meld():
    error = raises("bad_meld", Meld, MeldKind.PUNG, tiles("1m 1m 1m"), concealed=True)
    assert "Only a kong can be declared concealed" in error.message


@pytest.mark.parametrize("kind, meld_tiles, kwargs", [
    (MeldKind.PUNG, "1m 1m 2m", {}),
    (MeldKind.KONG, "1m 1m 1m", {}),
    (MeldKind.PUNG, "1m 1m 1m 1m", {}),
    (MeldKind.PUNG, "1f 1f 1f", {}),
    (MeldKind.PUNG, "1m 1m 1m", {"claimed": Direction.LEFT, "claimed_tile": Tile.parse("2m")}),
    (MeldKind.KONG, "1m 1m 1m 1m", {"concealed": True, "claimed": Direction.LEFT}),
    ("pung", "1m 1m 1m", {}),
])
def test_bad_melds(kind, meld_tiles, kwargs):
    raises("bad_meld", Meld, kind, tiles(meld_tiles), **kwargs)


def test_direction_parse():
    assert Direction.parse(" Across ") is Direction.ACROSS
    raises("bad_direction", Direction.parse, "up")


# --- hands -----------------------------------------------------------------------------------------

STANDING = "1m 2m 3m 4m 5m 6m 7m 8m 9m 2p 3p 4p 5s"


def test_a_valid_hand_is_sorted_and_counted():
    hand = Hand(tiles("5s " + STANDING), winning_tile=T("5s"), flowers=tiles("7f 2f"))
    assert hand.concealed[0] == T("1m") and hand.flowers == tiles("2f 7f")
    assert hand.is_winning and len(hand.all_tiles()) == 14 and hand.tile_counts()[T("5s")] == 2


def test_a_kong_counts_as_three():
    hand = Hand(tiles("1m 2m 3m 4p 5p 6p 9p 9p"), melds=(Meld.chow(T("3s")), Meld.kong(T("6z"), concealed=True)),
                winning_tile=T("9p"))
    assert len(hand.all_tiles()) == 15


def test_a_hand_without_winning_tile_has_13():
    assert not Hand(tiles(STANDING)).is_winning
    raises("wrong_tile_count", Hand, tiles(STANDING + " 5s"))


@pytest.mark.parametrize("standing, win, direction", [(STANDING, "5s", "Add 1"), (STANDING + " 5s 5s", "5s", "Remove 1")])
def test_wrong_tile_count(standing, win, direction):
    error = raises("wrong_tile_count", Hand, tiles(standing), winning_tile=T(win))
    assert "14" in error.message and direction in error.message


def test_too_many_melds():
    raises("wrong_tile_count", Hand, tiles("1m 1m"), melds=(Meld.pung(T("2m")),) * 5, winning_tile=T("1m"))


def test_fifth_copy():
    error = raises("too_many_copies", Hand, tiles("1m 1m 1m 1m 1m 2m 2m 2m 3m 3m 3m 4m 4m 4m"), winning_tile=T("4m"))
    assert "5 copies of 1m" in error.message


def test_fifth_copy_across_melds():
    raises("too_many_copies", Hand, tiles("1m 1m 9m 9m 9m"),
           melds=(Meld.kong(T("1m")), Meld.pung(T("2m")), Meld.pung(T("3m"))), winning_tile=T("9m"))


def test_winning_tile_not_in_hand():
    error = raises("winning_tile_not_in_hand", Hand, tiles(STANDING + " 5s"), winning_tile=T("6s"))
    assert "6s" in error.message


def test_flower_among_standing_tiles():
    error = raises("flower_in_hand", Hand, tiles(STANDING + " 1f"), winning_tile=T("5s"))
    assert "1f (Plum)" in error.message and "flowers" in error.message


def test_flowers_must_be_flowers_and_single():
    raises("not_a_flower", Hand, tiles(STANDING + " 5s"), winning_tile=T("5s"), flowers=tiles("1m"))
    raises("too_many_copies", Hand, tiles(STANDING + " 5s"), winning_tile=T("5s"), flowers=tiles("1f 1f"))


# --- context ---------------------------------------------------------------------------------------


def test_context_defaults_and_extras():
    context = Context.from_dict({"self_drawn": "yes", "seat_wind": "south", "dealer": 1, "bonus": 3, "style": "hk"})
    assert context.self_drawn and context.seat_wind is Wind.SOUTH and context.prevalent_wind is Wind.EAST
    assert context.dealer is True and context.get("bonus") == 3 and context.get("style") == "hk"
    assert context.get("missing", 7) == 7 and context.get("seat_wind") is Wind.SOUTH
    assert context.to_dict()["seat_wind"] == "S" and context.to_dict()["bonus"] == 3
    assert Context() == Context.from_dict({})


@pytest.mark.parametrize("data, code", [
    ({"self_drawn": "maybe"}, "bad_context"), ({"self_drawn": 2}, "bad_context"),
    ({"seat_wind": "Q"}, "unknown_wind"), ({"foo": [1]}, "bad_context"), ([1], "bad_context"),
])
def test_bad_context(data, code):
    raises(code, Context.from_dict, data)


def test_context_constructor_checks_types():
    raises("bad_context", Context, self_drawn="yes")
    raises("bad_context", Context, seat_wind="S")


# --- the JSON codec ----------------------------------------------------------------------------------


def normalised(data: dict) -> dict:
    """The spec JSON as hand_to_dict writes it: sorted tiles, every context key, explicit empties."""
    hand = hand_from_dict(data)
    return {
        "concealed": sorted(data["concealed"], key=lambda c: T(c).index),
        "melds": [dict(m, tiles=sorted(m["tiles"], key=lambda c: T(c).index)) for m in data.get("melds", [])],
        "winning_tile": data.get("winning_tile"),
        "flowers": sorted(data.get("flowers", []), key=lambda c: T(c).index),
        "context": hand.context.to_dict(),
    }


@pytest.mark.parametrize("data", [STRAIGHT_HAND, FULL_HAND, {
    "concealed": ["5s", "5s", "1m", "2m", "3m"],
    "melds": [{"kind": "pung", "tiles": ["7z", "7z", "7z"], "concealed": False, "claimed": "across",
               "claimed_tile": "7z"},
              {"kind": "kong", "tiles": ["1p", "1p", "1p", "1p"], "concealed": False, "claimed": "right",
               "claimed_tile": "1p"},
              {"kind": "chow", "tiles": ["9s", "7s", "8s"], "concealed": False}],
    "winning_tile": "3m",
    "flowers": ["8f", "1f"],
    "context": {"self_drawn": True, "seat_wind": "W", "prevalent_wind": "N", "kong_replacement": True,
                "dealer": False, "first_turn": False, "last_of_kind": False, "last_tile": False,
                "robbing_kong": False, "house_bonus": 2, "style": "club"},
}])
def test_json_round_trip(data):
    hand = hand_from_dict(data)
    assert hand_to_dict(hand) == normalised(data)
    assert hand_from_dict(json.loads(json.dumps(hand_to_dict(hand)))) == hand


def test_json_defaults():
    hand = hand_from_dict({"concealed": STRAIGHT_HAND["concealed"], "winning_tile": "5s"})
    assert hand.melds == () and hand.flowers == () and hand.context == Context()
    assert hand_to_dict(hand)["context"]["seat_wind"] == "E"


@pytest.mark.parametrize("data, code", [
    ([1, 2], "malformed_hand"),
    ({}, "malformed_hand"),
    ({"concealed": [], "tiles": []}, "malformed_hand"),
    ({"concealed": "1m 2m"}, "malformed_hand"),
    ({"concealed": [], "melds": [1]}, "malformed_hand"),
    ({"concealed": [], "melds": [{"kind": "set", "tiles": []}]}, "bad_meld"),
    ({"concealed": [], "melds": [{"kind": "pung", "tiles": ["1m"] * 3, "concealed": "yes"}]}, "malformed_hand"),
    ({"concealed": [], "melds": [{"kind": "pung", "tiles": ["1m"] * 3, "owner": 1}]}, "malformed_hand"),
    ({"concealed": [], "melds": [{"kind": "pung", "tiles": ["1m"] * 3, "concealed": True}]}, "bad_meld"),
    ({"concealed": [], "melds": [{"kind": "pung", "tiles": ["1m"] * 3, "claimed": "up"}]}, "bad_direction"),
    ({"concealed": [], "melds": [{"kind": "chow", "tiles": ["1m", "2m", "3m"], "claimed": "across"}]},
     "impossible_chow"),
    ({"concealed": ["1m", "1m"], "winning_tile": 5}, "unknown_tile"),
    ({"concealed": [], "flowers": "1f"}, "malformed_hand"),
    ({"concealed": [], "context": {"seat_wind": "Q"}}, "unknown_wind"),
])
def test_json_errors(data, code):
    raises(code, hand_from_dict, data)
