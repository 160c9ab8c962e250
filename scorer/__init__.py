"""mjscan's scorer: the project's vocabulary (tiles, melds, hands, results) and its rule sets.

Nothing else in the project is imported from here, and nothing heavy is imported at all: the
vision and server packages build on these types.

>>> from scorer import parse_hand, score
>>> hand = parse_hand("123m 456p 789m 5s [5'55m] +5s")
>>> result = score(hand, "mcr")
>>> result.valid, result.error.code, result.total
(False, 'below_minimum', 3)
"""

from scorer.errors import HandError
from scorer.tiles import Suit, Tile, Wind
from scorer.melds import Direction, Meld, MeldKind
from scorer.hand import Context, Hand
from scorer.notation import format_hand, parse_hand
from scorer.result import ErrorInfo, Score, ScoreItem
from scorer.rules import RULE_SETS, get_rule_set, score

__all__ = [
    "Context", "Direction", "ErrorInfo", "Hand", "HandError", "Meld", "MeldKind", "RULE_SETS",
    "Score", "ScoreItem", "Suit", "Tile", "Wind", "format_hand", "get_rule_set", "parse_hand", "score",
]
