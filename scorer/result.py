"""Scoring results: what a rule set says about a hand, as immutable values with the spec's JSON.

A result never raises: an invalid hand is a result with ``valid=False`` and an ``error`` that carries
a stable code and a message for the player.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scorer.errors import HandError
from scorer.tiles import Tile


@dataclass(frozen=True, slots=True)
class ErrorInfo:
    code: str
    message: str

    @classmethod
    def from_exception(cls, error: HandError) -> "ErrorInfo":
        return cls(error.code, error.message)

    def to_dict(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}


@dataclass(frozen=True, slots=True)
class ScoreItem:
    """One scoring element: ``points`` (or ``doubles`` in the doubling rule sets) per unit, times ``count``."""

    name: str
    points: int | None = None
    count: int = 1
    doubles: int | None = None

    @property
    def value(self) -> int:
        return (self.points or 0) * self.count

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"name": self.name}
        if self.points is not None:
            data["points"] = self.points
        if self.doubles is not None:
            data["doubles"] = self.doubles
        data["count"] = self.count
        return data


ArrangementPart = tuple[str, tuple[Tile, ...]]


@dataclass(frozen=True, slots=True)
class Score:
    rules: str
    valid: bool
    total: int = 0
    items: tuple[ScoreItem, ...] = ()
    arrangement: tuple[ArrangementPart, ...] = ()
    settlement: tuple[tuple[str, int | None], ...] = ()
    notes: tuple[str, ...] = ()
    error: ErrorInfo | None = None
    base: int | None = None
    doubles: int | None = None

    @classmethod
    def invalid(cls, rules: str, code: str, message: str, **fields: Any) -> "Score":
        return cls(rules=rules, valid=False, error=ErrorInfo(code, message), **fields)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"rules": self.rules, "valid": self.valid, "total": self.total}
        if self.base is not None:
            data["base"] = self.base
        if self.doubles is not None:
            data["doubles"] = self.doubles
        data["items"] = [item.to_dict() for item in self.items]
        data["arrangement"] = [[kind, [t.code for t in tiles]] for kind, tiles in self.arrangement]
        data["settlement"] = dict(self.settlement)
        data["notes"] = list(self.notes)
        if self.error is not None:
            data["error"] = self.error.to_dict()
        return data
