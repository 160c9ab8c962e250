"""The context keys the jmja1967 rules read: the spec's own keys where they mean the same thing, the
rule set's extra keys, and its options (``jmja1967_*``, each with its default).

>>> read_options(Context.from_dict({"jmja1967_rounding": "up"})).rounding
'up'
>>> read_options(Context()).claimed_pong_concealed
False
"""

from __future__ import annotations

from dataclasses import dataclass

from scorer.errors import HandError
from scorer.hand import Context, parse_flag
from scorer.jmja1967.catalog import ROUNDINGS
from scorer.rules import ContextKey

WINDS = ("E", "S", "W", "N")

CLAIMED_PONG_CONCEALED = "jmja1967_claimed_pong_concealed"
ROUNDING = "jmja1967_rounding"
THREE_PLAYER_SELF_DRAW = "jmja1967_three_player_self_draw"
SACRED_DISCARD = "jmja1967_sacred_discard"
FALSE_CALLS = "jmja1967_false_calls"
WRONG_DRAWS = "jmja1967_wrong_draws"

THREE_PLAYER_CHOICES = ("east_2_other_1", "east_2_only")

CONTEXT_KEYS = (
    ContextKey("self_drawn", "flag", "The mahjong tile came from the wall, the dead wall included "
                                     "('viimeinen tiili muurista': 2 points)."),
    ContextKey("seat_wind", "wind", "The player's own wind ('oma tuuli').", "E", WINDS),
    ContextKey("prevalent_wind", "wind", "The round's wind ('erän tuuli').", "E", WINDS),
    ContextKey("dealer", "flag", "The player is East, the dealer ('jakaja = itä'); seat_wind E says the same."),
    ContextKey("last_tile", "flag", "The mahjong tile was the wall's last tile (self-drawn) or the last discard "
                                    "(claimed): 1 doubling either way."),
    ContextKey("kong_replacement", "flag", "Won on the replacement tile from the dead wall ('lisätiili rauniosta'), "
                                           "after declaring a kong; set self_drawn too: 1 doubling."),
    ContextKey("robbing_kong", "flag", "Won on the tile another player added to an exposed pong "
                                       "('kongin ryöstö'): 1 doubling."),
    ContextKey("first_turn", "flag", "Won in the first go-around: East on the dealt hand (heavenly blessing), "
                                     "another player on East's first discard or their own first draw (earthly "
                                     "blessing). Limit hands."),
    ContextKey(SACRED_DISCARD, "flag", "The claimed mahjong tile is one the winner discarded on their previous "
                                       "turn ('pyhä poispano'): the mahjong is not allowed."),
    ContextKey(FALSE_CALLS, "int", "Wrong calls this player made during the deal ('väärä huuto'): 100 each, "
                                   "paid to the winner (returned after a drawn deal).", 0),
    ContextKey(WRONG_DRAWS, "int", "Tiles this player took from the wrong place ('tiili on otettu väärästä "
                                   "paikasta'): 50 each, paid to the winner (returned after a drawn deal).", 0),
    ContextKey(CLAIMED_PONG_CONCEALED, "flag", "Option: a pong completed by the claimed mahjong tile still counts "
                                               "as concealed ('kädestä'). Default: it counts as exposed.", False),
    ContextKey(ROUNDING, "choice", "Option: round the final points to the nearest ten (the book's "
                                   "'lähimpään kymmeneen') or up to the next ten.", "nearest", ROUNDINGS),
    ContextKey(THREE_PLAYER_SELF_DRAW, "choice", "Option, three players: when a player other than East "
                                                 "draws the mahjong tile, East pays 2 times and the other player "
                                                 "1 (default), or only East pays 2 (the table's row read "
                                                 "literally, '-2-').", THREE_PLAYER_CHOICES[0],
               THREE_PLAYER_CHOICES),
)


@dataclass(frozen=True, slots=True)
class Options:
    claimed_pong_concealed: bool = False
    rounding: str = "nearest"
    three_player_self_draw: str = THREE_PLAYER_CHOICES[0]
    sacred_discard: bool = False
    false_calls: int = 0
    wrong_draws: int = 0


def read_options(context: Context) -> Options:
    """The rule set's own keys from a hand's context; HandError ``bad_context`` for a value it cannot use."""
    return Options(
        claimed_pong_concealed=_flag(context, CLAIMED_PONG_CONCEALED),
        rounding=_choice(context, ROUNDING, ROUNDINGS),
        three_player_self_draw=_choice(context, THREE_PLAYER_SELF_DRAW, THREE_PLAYER_CHOICES),
        sacred_discard=_flag(context, SACRED_DISCARD),
        false_calls=_count(context, FALSE_CALLS),
        wrong_draws=_count(context, WRONG_DRAWS),
    )


def _flag(context: Context, key: str) -> bool:
    return parse_flag(key, context.get(key, False))


def _choice(context: Context, key: str, choices: tuple[str, ...]) -> str:
    value = context.get(key, choices[0])
    if not isinstance(value, str) or value.strip().lower() not in choices:
        raise HandError("bad_context", f"Context '{key}' must be one of {', '.join(choices)}, not {value!r}.")
    return value.strip().lower()


def _count(context: Context, key: str) -> int:
    value = context.get(key, 0)
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise HandError("bad_context", f"Context '{key}' must be a whole number (0 or more), not {value!r}.")
    return value
