"""The text notation: parsing into Hands, writing them back, and the messages for what cannot be read."""

from __future__ import annotations

import pytest

from scorer import Direction, HandError, MeldKind, Tile, Wind, format_hand, parse_hand
from scorer.codec import hand_from_dict, hand_to_dict
from tests.conftest import FULL_HAND, STRAIGHT_HAND, STRAIGHT_NOTATION, assert_readable

T = Tile.parse
NINE = "123456789m 5s"  # nine standing tiles and a single 5s: four sets need one more meld

# Each of these is written the way format_hand writes it, so it must come back unchanged.
CANONICAL = [
    "123456789m 234p 5s +5s",
    "123456789m 234p 5s +5s | self_drawn",
    "19m 19p 19s 1234567z +1m",
    "147m 258p 369s 1234z +5z",
    "1122m 3344p 5566s 7z +7z",
    f"{NINE} [5'55p] +5s",  # pung claimed from the left
    f"{NINE} [55'5p] +5s",  # pung claimed from across
    f"{NINE} [555'p] +5s",  # pung claimed from the right
    f"{NINE} [555p] +5s",  # pung, claim not recorded
    f"{NINE} [1'111p] +5s",  # kong claimed from the left
    f"{NINE} [11'11p] +5s",  # kong claimed from across
    f"{NINE} [1111'p] +5s",  # kong claimed from the right
    f"{NINE} [1111p] +5s",  # kong, claim not recorded
    f"{NINE} (1111p) +5s",  # concealed kong
    f"{NINE} [7'89s] +5s",  # chow claimed from the left
    f"{NINE} [789s] +5s",  # chow, claimed tile not recorded
    f"{NINE} [77'7z] +5s",  # honours pung
    "123m 5s [4'56m] [7'89m] (7777z) 15f +5s | self_drawn kong_replacement seat=N prevalent=W",
    "5m [1'23m] [2'34m] [3'45m] [4'56m] +5m",
    "123m 4p (1111s) (2222s) (3333s) +4p | seat=S",
    "123456789m 234p 5s 12345678f +5s",
    "123456789m 234p 5s +5s | last_of_kind last_tile robbing_kong dealer first_turn",
    "123456789m 234p 5s +5s | prevalent=S",
    "123456789m 234p 5s +5s | self_drawn house_rule limit=500 style=club",
    "123456789m 234p 5s",  # a hand still in play: 13 tiles, no winning tile
    "123456789m 5s [5'55z]",
]


@pytest.mark.parametrize("text", CANONICAL)
def test_canonical_round_trip(text):
    hand = parse_hand(text)
    assert format_hand(hand) == text
    assert parse_hand(format_hand(hand)) == hand


# Other ways to write the same hands: they parse, and format_hand writes the canonical form.
@pytest.mark.parametrize("text, canonical", [
    ("123m 456m 789m 234p 5s +5s", "123456789m 234p 5s +5s"),
    ("123m456m789m234p5s+5s", "123456789m 234p 5s +5s"),
    ("5s 234p 987m 321m 654m + 5s", "123456789m 234p 5s +5s"),
    (f"{NINE} [111'1p] +5s", f"{NINE} [11'11p] +5s"),  # a kong's two middle places both mean across
    (f"{NINE} [ 5' 5 5p ] +5s", f"{NINE} [5'55p] +5s"),
    ("1f 123m 456m 789m 8f 234p 5s +5s", "123456789m 234p 5s 18f +5s"),  # flowers anywhere
    ("123m 456m 789m 234p 5s +5s | seat_wind=n prevalent_wind=south",
     "123456789m 234p 5s +5s | seat=N prevalent=S"),
    ("123m 456m 789m 234p 5s +5s | round=W seat=E", "123456789m 234p 5s +5s | prevalent=W"),
    ("123m 456m 789m 234p 5s +5s | Self-Drawn last_tile=yes dealer=false", "123456789m 234p 5s +5s | self_drawn last_tile"),
    ("123m 456m 789m 234p 5s +5s | seat=S seat=W", "123456789m 234p 5s +5s | seat=W"),
])
def test_other_spellings(text, canonical):
    assert format_hand(parse_hand(text)) == canonical


def test_claim_directions():
    def meld(text):
        return parse_hand(f"{NINE} {text} +5s").melds[0]

    assert (meld("[5'55p]").claimed, meld("[55'5p]").claimed, meld("[555'p]").claimed) == \
        (Direction.LEFT, Direction.ACROSS, Direction.RIGHT)
    assert (meld("[1'111p]").claimed, meld("[11'11p]").claimed, meld("[111'1p]").claimed,
            meld("[1111'p]").claimed) == (Direction.LEFT, Direction.ACROSS, Direction.ACROSS, Direction.RIGHT)
    assert meld("[5'55p]").claimed_tile == T("5p") and meld("[555p]").claimed is None
    chow = meld("[8'79s]")
    assert chow.kind is MeldKind.CHOW and chow.claimed is Direction.LEFT and chow.claimed_tile == T("8s")
    assert chow.tiles == (T("7s"), T("8s"), T("9s"))
    kong = meld("(1111p)")
    assert kong.kind is MeldKind.KONG and kong.concealed and kong.claimed is None


def test_the_parts_of_a_hand():
    hand = parse_hand("123m 456p 9p [4'35s] (6666z) 27f +9p | seat=S self_drawn bonus=2 flag")
    assert [t.code for t in hand.concealed] == ["1m", "2m", "3m", "4p", "5p", "6p", "9p", "9p"]
    assert hand.winning_tile == T("9p") and [t.code for t in hand.flowers] == ["2f", "7f"]
    assert [m.kind for m in hand.melds] == [MeldKind.CHOW, MeldKind.KONG]
    c = hand.context
    assert c.seat_wind is Wind.SOUTH and c.prevalent_wind is Wind.EAST and c.self_drawn
    assert c.get("bonus") == 2 and c.get("flag") is True and dict(c.extra) == {"bonus": 2, "flag": True}


def test_notation_and_json_agree():
    assert parse_hand(STRAIGHT_NOTATION) == hand_from_dict(STRAIGHT_HAND)
    full = hand_from_dict(FULL_HAND)
    assert parse_hand(format_hand(full)) == full
    assert hand_to_dict(parse_hand("123m 456p 9p [4'35s] (6666z) 27f +9p | seat=S")) == \
        hand_to_dict(full)


@pytest.mark.parametrize("text, code, mentions", [
    ("", "bad_notation", "empty"),
    ("   ", "bad_notation", "empty"),
    ("123x", "bad_notation", "'123x'"),
    ("12345678 9m", "bad_notation", "'12345678'"),
    (f"{NINE} [4'35'6s] +5s", "bad_notation", "marks 2 claimed tiles"),
    (f"{NINE} [45'3s] +5s", "impossible_chow", "left"),
    (f"{NINE} [345'm] +5s", "impossible_chow", "left"),
    (f"{NINE} [124m] +5s", "impossible_chow", "not a chow"),
    (f"{NINE} +5s +5s", "bad_notation", "Only one winning tile"),
    (f"{NINE} 234p +1f", "bad_notation", "flower or season cannot be the winning tile"),
    (f"{NINE} (666z) +5s", "bad_notation", "four alike"),
    (f"{NINE} (1112p) +5s", "bad_meld", "must all be alike"),
    (f"{NINE} [55p] +5s", "bad_meld", "2 tiles"),
    (f"{NINE} [55555p] +5s", "bad_meld", "5 tiles"),
    (f"{NINE} [4'56m 5p] +5s", "bad_notation", "one suit"),
    (f"{NINE} [5'55f] +5s", "bad_notation", "[5'55f]"),
    ("123m 456m 789m 234p 5s +0s", "unknown_tile", "'0s'"),
    ("123m 456m 789m 234p 5s +5s | seat", "bad_context", "seat=E"),
    ("123m 456m 789m 234p 5s +5s | seat=X", "unknown_wind", "'X'"),
    ("123m 456m 789m 234p 5s +5s | self_drawn=maybe", "bad_context", "'maybe'"),
    ("123m 456m 789m 234p 5s +5s | dealer=2", "bad_context", "dealer"),
    ("123m 456m 789m 234p 5s 5s", "wrong_tile_count", "13"),
    ("123m 456m 789m 234p 5s 5s +5s", "wrong_tile_count", "Remove 1"),
    ("1111m 23m 456m 789m 5s +1m", "too_many_copies", "5 copies of 1m"),
    ("123m 4'56m 789m 234p 5s +5s", "bad_notation", "'4'56m'"),  # a claim mark outside a meld
])
def test_notation_errors(text, code, mentions):
    with pytest.raises(HandError) as info:
        parse_hand(text)
    assert info.value.code == code, info.value
    assert mentions in info.value.message
    assert_readable(info.value)


@pytest.mark.parametrize("text", ["123m 456m 789m 234p 5s +5s | self_drawn | dealer",
                                  "123m 456m 789m 234p 5s +5s | =3"])
def test_stray_context_words_are_errors(text):
    with pytest.raises(HandError):
        parse_hand(text)
