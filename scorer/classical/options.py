"""The context keys the classical rules read, and the club options (``classical_*``) with their defaults.

An option travels in a hand's context like any other key (``| classical_banker`` in the notation,
``"classical_banker": true`` in JSON). A table is settled under the options its hands carry; hands that
disagree about an option are refused.

>>> from scorer.notation import parse_hand
>>> read_options(parse_hand("123m 456m 789m 234p 5s +5s | classical_extras=limit")).extras
'limit'
>>> read_options(parse_hand("123m 456m 789m 234p 5s +5s")).losers_settle
True
"""

from __future__ import annotations

from dataclasses import dataclass

from scorer.errors import HandError
from scorer.hand import Hand, parse_flag
from scorer.rules import ContextKey
from scorer.tiles import Wind

WINDS = ("E", "S", "W", "N")

SPEC_KEYS = (
    ContextKey("self_drawn", "flag",
               "The winning tile was drawn from the wall, not robbed: a claimed discard is 'rablás' (robbing). "
               "Only a mahjong won without robbing gets the +2, and a pung the robbed tile completes is exposed."),
    ContextKey("robbing_kong", "flag",
               "The winning tile was robbed from a kong another player was declaring: robbed like a discard."),
    ContextKey("seat_wind", "wind",
               "The player's wind: own-wind pairs and pungs, own flowers and seasons (1 East .. 4 North), and, "
               "without classical_banker, East's privileges.", "E", WINDS),
    ContextKey("dealer", "flag", "This player is the banker (read only with classical_banker)."),
    ContextKey("first_turn", "flag",
               "Won on the tiles dealt: for the favoured player (East or the banker) mahjong 'from heaven', x2."),
)

OPTION_KEYS = (
    ContextKey("classical_banker", "flag",
               "Play with a banker drawn by dice (the player marked 'dealer') who takes East's privileges: "
               "East then plays as an ordinary player.", False),
    ContextKey("classical_favoured_win_doubles", "flag",
               "A win by the favoured player (East or the banker) doubles the hand (section IV) on top of "
               "the double payment (section II.3); false counts the privilege once, in the payment only.", True),
    ContextKey("classical_one_suit_honours", "choice",
               "The one-suit doubling (x1): 'pair' = four sets of one suit closed by a dragon or wind pair; "
               "'any' = one suit with any dragons or winds.", "pair", ("pair", "any")),
    ContextKey("classical_extras", "choice",
               "The extra hands' 1000-4000 points: 'added' to the doubled score, or the hand's fixed value "
               "('limit').", "added", ("added", "limit")),
    ContextKey("classical_losers_settle", "flag",
               "The players who did not win pay each other the differences of their hands' scores.", True),
)

CONTEXT_KEYS = SPEC_KEYS + OPTION_KEYS
_DEFAULTS = {key.key: key.default for key in OPTION_KEYS}


@dataclass(frozen=True, slots=True)
class Options:
    banker: bool = False
    favoured_win_doubles: bool = True
    one_suit_honours: str = "pair"
    extras: str = "added"
    losers_settle: bool = True

    def values(self) -> dict[str, bool | str]:
        return {"classical_banker": self.banker, "classical_favoured_win_doubles": self.favoured_win_doubles,
                "classical_one_suit_honours": self.one_suit_honours, "classical_extras": self.extras,
                "classical_losers_settle": self.losers_settle}


def read_options(hand: Hand) -> Options:
    """The club options a hand's context sets; HandError ``bad_context`` for a value that is not allowed."""
    values: dict[str, bool | str] = {}
    for key in OPTION_KEYS:
        raw = hand.context.get(key.key, key.default)
        if key.kind == "flag":
            values[key.key] = parse_flag(key.key, raw)
        else:
            text = str(raw).strip().lower()
            if text not in key.choices:
                raise HandError("bad_context", f"Context '{key.key}' must be one of {', '.join(key.choices)}, "
                                               f"not '{raw}'.")
            values[key.key] = text
    return Options(values["classical_banker"], values["classical_favoured_win_doubles"],
                   values["classical_one_suit_honours"], values["classical_extras"],
                   values["classical_losers_settle"])


def is_favoured(hand: Hand, options: Options) -> bool:
    """The book's 'kedvezményezett': East, or with ``classical_banker`` the banker (the ``dealer`` flag)."""
    return hand.context.dealer if options.banker else hand.context.seat_wind is Wind.EAST
