"""The registry of rule sets. A rule set is a plug-in: a subpackage of ``scorer`` whose ``__init__``
defines ``RULE_SET``, an object with ``name``, ``title``, ``context_keys``, ``score(hand)``,
``is_mahjong(hand)`` and ``settle(table, scores)`` (see ``RuleSet``).
Adding one touches no other code: the registry finds it by name.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Protocol

from scorer.hand import Hand
from scorer.result import Score

if TYPE_CHECKING:
    from scorer.table import Payment, Table
    from scorer.tiles import Wind


@dataclass(frozen=True, slots=True)
class ContextKey:
    """A context key a rule set reads, for the page, the API and the command line."""

    key: str
    kind: str  # "flag", "wind", "int" or "choice"
    description: str
    default: bool | int | str = False
    choices: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        data = {"key": self.key, "type": self.kind, "description": self.description, "default": self.default}
        if self.choices:
            data["choices"] = list(self.choices)
        return data


class RuleSet(Protocol):
    name: str
    title: str
    context_keys: tuple[ContextKey, ...]
    scores_every_hand: bool  # False where only the winner's hand is scored (MCR)

    def score(self, hand: Hand) -> Score:
        """Score one hand (the winner's, or under the point-and-doubling sets any player's)."""

    def is_mahjong(self, hand: Hand) -> bool:
        """Whether a 14-tile hand has a winning shape under this rule set (minimum points aside)."""

    def settle(self, table: "Table", scores: dict["Wind", Score]) -> tuple[list["Payment"], list[str]]:
        """The payments after a deal, from every seat's score; and notes for the players."""


@cache
def _discover() -> dict[str, RuleSet]:
    import scorer

    found: dict[str, RuleSet] = {}
    for info in pkgutil.iter_modules(scorer.__path__):
        if not info.ispkg:
            continue
        module = importlib.import_module(f"scorer.{info.name}")
        rule_set = getattr(module, "RULE_SET", None)
        if rule_set is not None:
            found[rule_set.name] = rule_set
    return dict(sorted(found.items()))


class _Registry:
    """A read-only mapping of rule-set names to rule sets, filled on first use."""

    def __getitem__(self, name: str) -> RuleSet:
        return _discover()[name]

    def __contains__(self, name: object) -> bool:
        return name in _discover()

    def __iter__(self):
        return iter(_discover())

    def __len__(self) -> int:
        return len(_discover())

    def keys(self):
        return _discover().keys()

    def items(self):
        return _discover().items()


RULE_SETS = _Registry()


def get_rule_set(name: str) -> RuleSet:
    """The rule set called ``name``; KeyError lists the known names."""
    try:
        return RULE_SETS[name]
    except KeyError:
        raise KeyError(f"Unknown rule set '{name}': choose one of {', '.join(RULE_SETS)}.") from None


def score(hand: Hand, rules: str = "mcr") -> Score:
    """Score a hand under a rule set. Never raises for a bad hand: the result says what is wrong."""
    return get_rule_set(rules).score(hand)
