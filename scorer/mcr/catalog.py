"""The registry that ``fans.py`` fills: one ``Fan`` per scoring combination, with its points beside it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from scorer.mcr.analysis import Analysis


@dataclass(frozen=True, slots=True)
class Fan:
    """A scoring combination. ``number`` is the official fan number (seed 003, 1 = Big Four Winds ..
    81 = Flower Tiles); ``book`` the item number in seed 000 section V. ``count`` says how many times the
    fan scores in an arrangement (0 = not at all). ``excludes`` lists the fans this one already implies
    (seed 000 IV, principle 1): a fan name, or (name, n) to discount n of a fan counted per set."""

    number: int
    name: str
    points: int
    book: int
    count: Callable[[Analysis], int | bool]
    excludes: tuple[str | tuple[str, int], ...] = ()
    group: str = ""  # "chows" / "pungs" for the fans between sets (combos.py), else ""
    arity: int = 0
    members: Callable[..., bool] | None = None


FANS: dict[str, Fan] = {}


def fan(number: int, name: str, points: int, *, book: int, excludes: tuple = ()):
    """Register a fan whose count is read from the whole arrangement."""

    def register(rule: Callable[[Analysis], int | bool]) -> Callable[[Analysis], int | bool]:
        FANS[name] = Fan(number, name, points, book, rule, excludes)
        return rule

    return register


def set_fan(number: int, name: str, points: int, *, book: int, group: str, arity: int, excludes: tuple = ()):
    """Register a fan formed between ``arity`` chows or pungs. ``members`` gets their lowest tile indices,
    sorted; which groups count together is decided once for all such fans (combos.py)."""

    def register(members: Callable[..., bool]) -> Callable[..., bool]:
        FANS[name] = Fan(number, name, points, book, lambda a: a.combos.get(name, 0), excludes,
                         group=group, arity=arity, members=members)
        return members

    return register
