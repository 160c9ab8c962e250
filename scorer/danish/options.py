"""The context keys the danish rules read: the spec's, this book's own, and the club options.

Every key is read through ``hand.context.get(key, default)``; the defaults are the readings chosen in
the package docstring (``scorer/danish/__init__.py``), where each choice is quoted from the book.

>>> from scorer.notation import parse_hand
>>> opts = Options.of(parse_hand("123m 456p 789s 11z 23s | danish_red_bamboo=579"))
>>> sorted(opts.red_bamboo), opts.east_double  # 5s 7s 9s
([22, 24, 26], True)
"""

from __future__ import annotations

from dataclasses import dataclass

from scorer.errors import HandError
from scorer.hand import Hand, parse_flag
from scorer.rules import ContextKey

# Keys of this rule set (beyond the spec's).
EAST_FIRST_DISCARD = "danish_east_first_discard"
CLAIMED_EAST_FIRST_DISCARD = "danish_claimed_east_first_discard"
REVEALED = "danish_revealed"
WRONG_COUNT = "danish_wrong_count"
# Club options.
EAST_DOUBLE = "danish_east_double"
LOSERS_SETTLE = "danish_losers_settle"
DRAW_SETTLES = "danish_draw_settles"
UNMIXED_ONE_SUIT = "danish_unmixed_one_suit"
CLEAN_HAND = "danish_clean_hand"
RED_BAMBOO = "danish_red_bamboo"

_WINDS = ("E", "S", "W", "N")

CONTEXT_KEYS: tuple[ContextKey, ...] = (
    # The spec's keys, as this book uses them.
    ContextKey("self_drawn", "flag", "The last tile was drawn from the wall, not claimed (two points: 'At gå "
               "mahjong med en sten fra væggen'; needed for 'Skjult mahjong' and 'Blandede pungen')."),
    ContextKey("seat_wind", "wind", "The player's own wind ('egen vind'); East ('Øst') pays and receives double.",
               "E", _WINDS),
    ContextKey("prevalent_wind", "wind", "The round's wind ('rundens vind').", "E", _WINDS),
    ContextKey("last_tile", "flag", "Won with the last tile of the wall ('sidste brik fra muren'; with self_drawn); "
               "with 1 dots drawn it is 'At hente månen fra bunden af havet'."),
    ContextKey("kong_replacement", "flag", "Won with the loose tile drawn after a kong ('en løs brik'); with 5 dots "
               "it is 'At plukke blommeblomsten fra taget'."),
    ContextKey("robbing_kong", "flag", "Won by robbing a kong ('At stjæle en kong')."),
    ContextKey("first_turn", "flag", "East went mahjong on the dealt tiles, before any discard ('Himlens ynde')."),
    # This book's own keys.
    ContextKey(EAST_FIRST_DISCARD, "flag", "Went mahjong on East's very first discard ('Jordens ynde')."),
    ContextKey(CLAIMED_EAST_FIRST_DISCARD, "flag", "This player punged or konged East's first discard (two points: "
               "'At punge eller konge første udspil fra øst')."),
    ContextKey(REVEALED, "flag", "After another player's false mahjong this player revealed their hand, and so is "
               "paid 500 by the false caller."),
    ContextKey(WRONG_COUNT, "choice", "The player was found with too many tiles (no points, no mahjong) or too few "
               "(no mahjong, no fishing; points as usual).", "none", ("none", "too_many", "too_few")),
    # Club options (the defaults are the book's reading; see the package docstring).
    ContextKey(EAST_DOUBLE, "flag", "East pays and receives double, so East's limit is 2000 (default). Off: "
               "East's hands are only capped at 2000 and nobody pays double.", True),
    ContextKey(LOSERS_SETTLE, "flag", "The players who did not go mahjong pay each other the difference of their "
               "hands (default). Off: only the winner is paid.", True),
    ContextKey(DRAW_SETTLES, "flag", "In a drawn deal the players still settle the differences of their hands "
               "(default). Off: a drawn deal pays nothing.", True),
    ContextKey(UNMIXED_ONE_SUIT, "flag", "The special hands under 'Ublandede hænder' may hold tiles of one suit "
               "only, honours aside (default). Off: each row only as its own words say.", True),
    ContextKey(CLEAN_HAND, "choice", "'Ren hånd': no_honours = no dragons or winds (default, the book's words); "
               "one_suit = one suit and no honours.", "no_honours", ("no_honours", "one_suit")),
    ContextKey(RED_BAMBOO, "choice", "Which bamboos are red ('røde bambus'): 1579 (default) or 579 (the bird on the "
               "1 not counted). Green ones are always 2, 3, 4, 6, 8.", "1579", ("1579", "579")),
)

_DEFAULTS = {key.key: key.default for key in CONTEXT_KEYS}
_CHOICES = {key.key: key.choices for key in CONTEXT_KEYS if key.kind == "choice"}

GREEN_BAMBOO = frozenset({19, 20, 21, 23, 25})  # 2s 3s 4s 6s 8s
_RED = {"1579": frozenset({18, 22, 24, 26}), "579": frozenset({22, 24, 26})}


def flag(hand: Hand, key: str) -> bool:
    """A flag key of this rule set, with its default; a bad value raises HandError ('bad_context')."""
    value = hand.context.get(key, _DEFAULTS[key])
    return parse_flag(key, value)


def choice(hand: Hand, key: str) -> str:
    value = str(hand.context.get(key, _DEFAULTS[key])).strip().lower()
    if value not in _CHOICES[key]:
        raise HandError("bad_context", f"Context '{key}' must be one of {', '.join(_CHOICES[key])}, not '{value}'.")
    return value


@dataclass(frozen=True, slots=True)
class Options:
    """The club options that change how a hand scores (the table-level ones are read in settlement)."""

    east_double: bool = True
    unmixed_one_suit: bool = True
    clean_one_suit: bool = False
    red_bamboo: frozenset[int] = _RED["1579"]

    @classmethod
    def of(cls, hand: Hand) -> "Options":
        return cls(east_double=flag(hand, EAST_DOUBLE),
                   unmixed_one_suit=flag(hand, UNMIXED_ONE_SUIT),
                   clean_one_suit=choice(hand, CLEAN_HAND) == "one_suit",
                   red_bamboo=_RED[choice(hand, RED_BAMBOO)])
