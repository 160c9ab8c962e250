"""A hand: standing tiles, declared melds, the winning tile, flowers, and how the hand was won.

Validated when built, with messages in a player's words: wrong tile count, a fifth copy of a tile,
a winning tile that is not in the hand, a flower among the standing tiles.

A winning hand has 14 tiles counting each kong as 3 (``len(concealed) + 3 * len(melds) == 14``),
and its ``winning_tile`` is one of ``concealed``. A hand still in play (13 tiles, no winning tile) is
also a valid Hand, so that the point-and-doubling rule sets can score every player's hand.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, fields
from operator import attrgetter
from typing import Any, Mapping

from scorer.errors import HandError
from scorer.melds import Meld
from scorer.tiles import Tile, Wind

ContextValue = bool | int | str
_BY_INDEX = attrgetter("index")


@dataclass(frozen=True, slots=True)
class Context:
    """How and where the hand was won. The spec's keys are fields; keys that other rule sets read
    travel in ``extra`` (sorted key/value pairs) and are documented by the rule set that reads them."""

    self_drawn: bool = False
    seat_wind: Wind = Wind.EAST
    prevalent_wind: Wind = Wind.EAST
    last_of_kind: bool = False
    last_tile: bool = False
    kong_replacement: bool = False
    robbing_kong: bool = False
    dealer: bool = False
    first_turn: bool = False
    extra: tuple[tuple[str, ContextValue], ...] = ()

    def __post_init__(self):
        for name in FLAG_KEYS:
            if not isinstance(getattr(self, name), bool):
                raise HandError("bad_context", f"Context '{name}' must be true or false.")
        for name in ("seat_wind", "prevalent_wind"):
            if not isinstance(getattr(self, name), Wind):
                raise HandError("bad_context", f"Context '{name}' must be a wind: E, S, W or N.")
        object.__setattr__(self, "extra", tuple(sorted(dict(self.extra).items())))

    def get(self, key: str, default: ContextValue | None = None) -> ContextValue | None:
        """Any context value by its spec key, standard or extra."""
        if key in FLAG_KEYS or key in ("seat_wind", "prevalent_wind"):
            return getattr(self, key)
        return dict(self.extra).get(key, default)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Context":
        if not isinstance(data, Mapping):
            raise HandError("bad_context", "The hand's 'context' must be an object of key/value pairs.")
        known: dict[str, Any] = {}
        extra: dict[str, ContextValue] = {}
        for key, value in data.items():
            if key in FLAG_KEYS:
                known[key] = parse_flag(key, value)
            elif key in ("seat_wind", "prevalent_wind"):
                known[key] = Wind.parse(value)
            elif isinstance(value, (bool, int, str)):
                extra[str(key)] = value
            else:
                raise HandError("bad_context", f"Context '{key}' must be true/false, a number or a word.")
        return cls(**known, extra=tuple(extra.items()))

    def to_dict(self) -> dict[str, ContextValue]:
        data: dict[str, ContextValue] = {}
        for f in fields(self):
            if f.name == "extra":
                continue
            value = getattr(self, f.name)
            data[f.name] = value.value if isinstance(value, Wind) else value
        data.update(self.extra)
        return data


FLAG_KEYS = ("self_drawn", "last_of_kind", "last_tile", "kong_replacement", "robbing_kong", "dealer", "first_turn")

_TRUE_WORDS = {"true", "yes", "1", "on"}
_FALSE_WORDS = {"false", "no", "0", "off", ""}


def parse_flag(key: str, value: Any) -> bool:
    """A context flag from JSON, a form field or the command line."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in _TRUE_WORDS | _FALSE_WORDS:
        return value.strip().lower() in _TRUE_WORDS
    raise HandError("bad_context", f"Context '{key}' must be true or false, not {value!r}.")


@dataclass(frozen=True, slots=True)
class Hand:
    concealed: tuple[Tile, ...]
    melds: tuple[Meld, ...] = ()
    winning_tile: Tile | None = None
    flowers: tuple[Tile, ...] = ()
    context: Context = field(default_factory=Context)

    def __post_init__(self):
        object.__setattr__(self, "concealed", tuple(sorted(self.concealed, key=_BY_INDEX)))
        object.__setattr__(self, "melds", tuple(self.melds))
        object.__setattr__(self, "flowers", tuple(sorted(self.flowers, key=_BY_INDEX)))
        for tile in self.concealed:
            if tile.is_bonus:
                raise HandError("flower_in_hand", f"{tile.code} ({tile.name}) is a flower or season: it is laid apart "
                                                  "and listed under flowers, not among the standing tiles.")
        for tile in self.flowers:
            if not tile.is_bonus:
                raise HandError("not_a_flower", f"{tile.code} ({tile.name}) is not a flower or season.")
        doubled = [t.code for t, n in Counter(self.flowers).items() if n > 1]
        if doubled:
            raise HandError("too_many_copies", f"There is only one {doubled[0]} in a set, but the hand lists it twice.")
        if len(self.melds) > 4:
            raise HandError("wrong_tile_count", f"A hand has at most 4 declared melds, not {len(self.melds)}.")
        size = len(self.concealed) + 3 * len(self.melds)
        if self.winning_tile is None:
            if size != 13:
                raise HandError("wrong_tile_count", _count_message(size, 13, "a hand without a winning tile"))
        else:
            if size != 14:
                raise HandError("wrong_tile_count", _count_message(size, 14, "a winning hand"))
            if self.winning_tile not in self.concealed:
                raise HandError("winning_tile_not_in_hand",
                                f"The winning tile {self.winning_tile.code} is not among the standing tiles; "
                                "list it with them (a claimed discard included).")
        for tile, count in self.tile_counts().items():
            if count > 4:
                raise HandError("too_many_copies",
                                f"The hand has {count} copies of {tile.code} ({tile.name}); a set has only 4.")

    def all_tiles(self) -> list[Tile]:
        """Every playing tile, melds included (a kong gives 4), flowers excluded."""
        tiles = list(self.concealed)
        for meld in self.melds:
            tiles.extend(meld.tiles)
        return tiles

    def tile_counts(self) -> Counter[Tile]:
        return Counter(self.all_tiles())

    @property
    def is_winning(self) -> bool:
        return self.winning_tile is not None


def _count_message(size: int, wanted: int, what: str) -> str:
    return (f"Wrong tile count: {what} has {wanted} tiles (each kong counts as 3), but this one has {size}. "
            f"{'Add' if size < wanted else 'Remove'} {abs(wanted - size)}.")
