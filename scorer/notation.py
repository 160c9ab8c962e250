"""A short text notation for hands, for players to type and read.

    123m 456p 9p [4'35s] (6666z) 27f +9p | self_drawn seat=S prevalent=E

- Standing tiles are digits followed by their suit letter: ``123m`` is 1m 2m 3m. Suits: m characters,
  p dots, s bamboo, z honours (1-4 East South West North, 5-7 White Green Red), f flowers (1-4) and
  seasons (5-8). Flowers and seasons may be written anywhere outside the brackets.
- ``+9p`` is the winning tile. It is added to the standing tiles (write the other 13 before it).
- ``[...]`` is an exposed meld, written as it lies on the table; ``'`` after a tile marks it as the
  claimed (sideways) tile, and its place says whose discard it was: first = from the left player,
  middle = from across, last = from the right player. ``[4'35s]`` is a chow 345s claiming 4s from
  the left; ``[77'7z]`` a pung of Red claimed from across; ``[1111'p]`` a kong claimed from the right.
  An unmarked ``[555p]`` is an exposed meld whose claim is not recorded.
- ``(6666z)`` is a concealed kong.
- After ``|``, the context: flags by their spec names (``self_drawn``, ``last_of_kind``, ``last_tile``,
  ``kong_replacement``, ``robbing_kong``, ``dealer``, ``first_turn``), ``seat=S`` and ``prevalent=E``
  (or ``seat_wind=`` / ``prevalent_wind=``), and any rule set's own keys as ``key`` or ``key=value``.

>>> hand = parse_hand("123m 456p 9p [4'35s] (6666z) 27f +9p | seat=S")
>>> [t.code for t in hand.concealed]
['1m', '2m', '3m', '4p', '5p', '6p', '9p', '9p']
>>> format_hand(hand)
"123m 4569p [4'35s] (6666z) 27f +9p | seat=S"
"""

from __future__ import annotations

import re

from scorer.errors import HandError
from scorer.hand import FLAG_KEYS, Context, ContextValue, Hand, parse_flag
from scorer.melds import Direction, Meld, MeldKind
from scorer.tiles import Tile, Wind

_TOKEN = re.compile(r"\s*(?:(?P<meld>\[[^\]]*\])|(?P<kong>\([^)]*\))|(?P<win>\+\s*\d[mpszf])|(?P<group>(?:\d+[mpszf])+)|(?P<bad>\S+))")
_MARKED = re.compile(r"^(\d'?)+[mpsz]$")
_WIND_KEYS = {"seat": "seat_wind", "seat_wind": "seat_wind", "prevalent": "prevalent_wind",
              "prevalent_wind": "prevalent_wind", "round": "prevalent_wind"}


def parse_hand(text: str) -> Hand:
    """Parse the notation into a validated Hand; raise HandError saying what could not be read."""
    if not isinstance(text, str) or not text.strip():
        raise HandError("bad_notation", "The hand is empty: write tiles such as '123m 456p ... +9p'.")
    tiles_part, _, context_part = text.partition("|")
    if "|" in context_part:
        raise HandError("bad_notation", "Write '|' once, between the tiles and the context.")
    standing: list[Tile] = []
    flowers: list[Tile] = []
    melds: list[Meld] = []
    winning: Tile | None = None
    for match in _TOKEN.finditer(tiles_part):
        if match.group("bad") is not None:
            raise HandError("bad_notation", f"Could not read '{match.group('bad')}': write tiles as digits then a suit "
                                            "letter (m, p, s, z, f), melds in [ ] and concealed kongs in ( ).")
        if match.group("group") is not None:
            for tile in group_tiles(match.group("group")):
                (flowers if tile.is_bonus else standing).append(tile)
        elif match.group("win") is not None:
            if winning is not None:
                raise HandError("bad_notation", "Only one winning tile can follow '+'.")
            winning = Tile.parse(match.group("win")[1:].strip())
            if winning.is_bonus:
                raise HandError("bad_notation", "A flower or season cannot be the winning tile.")
        elif match.group("meld") is not None:
            melds.append(_exposed_meld(match.group("meld")[1:-1].strip()))
        else:
            melds.append(_concealed_kong(match.group("kong")[1:-1].strip()))
    if winning is not None:
        standing.append(winning)
    return Hand(concealed=tuple(standing), melds=tuple(melds), winning_tile=winning,
                flowers=tuple(flowers), context=_parse_context(context_part))


def format_hand(hand: Hand) -> str:
    """The notation for a Hand; ``parse_hand(format_hand(h)) == h``."""
    standing = list(hand.concealed)
    if hand.winning_tile is not None:
        standing.remove(hand.winning_tile)
    parts = [_format_group(standing)] if standing else []
    parts += [_format_meld(m) for m in hand.melds]
    if hand.flowers:
        parts.append(_format_group(list(hand.flowers)))
    if hand.winning_tile is not None:
        parts.append(f"+{hand.winning_tile.code}")
    context = _format_context(hand.context)
    return " ".join(parts) + (f" | {context}" if context else "")


def group_tiles(group: str) -> list[Tile]:
    tiles = []
    for digits, suit in re.findall(r"(\d+)([mpszf])", group):
        tiles.extend(Tile.parse(d + suit) for d in digits)
    return tiles


def _exposed_meld(body: str) -> Meld:
    compact = body.replace(" ", "")
    if not _MARKED.match(compact):
        raise HandError("bad_notation", f"Could not read the meld [{body}]: write it like [4'35s] or [555p], "
                                        "one suit, with ' after the claimed tile.")
    suit = compact[-1]
    written = re.findall(r"\d'?", compact[:-1])
    tiles = tuple(Tile.parse(w[0] + suit) for w in written)
    marked = [i for i, w in enumerate(written) if w.endswith("'")]
    kind = _kind_of(tiles, body)
    if len(marked) > 1:
        raise HandError("bad_notation", f"The meld [{body}] marks {len(marked)} claimed tiles; mark one with '.")
    claimed = claimed_tile = None
    if marked:
        position = marked[0]
        claimed_tile = tiles[position]
        claimed = (Direction.LEFT if position == 0 else
                   Direction.RIGHT if position == len(tiles) - 1 else Direction.ACROSS)
        if kind is MeldKind.CHOW and claimed is not Direction.LEFT:
            raise HandError("impossible_chow", f"In [{body}] the claimed tile is not on the left, but a chow can only "
                                               "be claimed from the player on your left: write it first, as [4'35s].")
    return Meld(kind, tiles, claimed=claimed, claimed_tile=claimed_tile)


def _concealed_kong(body: str) -> Meld:
    tiles = group_tiles(body.replace(" ", "")) if re.fullmatch(r"(\d+[mpsz])+", body.replace(" ", "")) else None
    if not tiles or len(tiles) != 4:
        raise HandError("bad_notation", f"Could not read ({body}): a concealed kong is four alike, like (6666z).")
    return Meld(MeldKind.KONG, tuple(tiles), concealed=True)


def _kind_of(tiles: tuple[Tile, ...], body: str) -> MeldKind:
    if len(tiles) == 4:
        return MeldKind.KONG
    if len(tiles) == 3:
        return MeldKind.PUNG if len(set(tiles)) == 1 else MeldKind.CHOW
    raise HandError("bad_meld", f"The meld [{body}] has {len(tiles)} tiles; a meld has 3 (chow, pung) or 4 (kong).")


def _format_group(tiles: list[Tile]) -> str:
    out, run_suit, digits = [], None, ""
    for tile in sorted(tiles):
        if tile.suit is not run_suit and run_suit is not None:
            out.append(digits + run_suit.value)
            digits = ""
        run_suit = tile.suit
        digits += str(tile.rank)
    out.append(digits + run_suit.value)
    return " ".join(out)


def _format_meld(meld: Meld) -> str:
    if meld.concealed:
        return "(" + "".join(str(t.rank) for t in meld.tiles) + meld.tile.suit.value + ")"
    ranks = [str(t.rank) for t in meld.tiles]
    if meld.claimed is not None and meld.claimed_tile is not None:
        ranks.remove(str(meld.claimed_tile.rank))
        position = {Direction.LEFT: 0, Direction.ACROSS: 1, Direction.RIGHT: len(ranks)}[meld.claimed]
        ranks.insert(position, f"{meld.claimed_tile.rank}'")
    return "[" + "".join(ranks) + meld.tile.suit.value + "]"


def _parse_context(text: str) -> Context:
    values: dict[str, ContextValue] = {}
    for word in text.split():
        key, eq, value = word.partition("=")
        key = key.strip().lower().replace("-", "_")
        if not key:
            raise HandError("bad_context", f"Could not read the context word '{word}': write key or key=value.")
        if key in _WIND_KEYS:
            if not eq:
                raise HandError("bad_context", f"Write the wind as {key}=E, S, W or N.")
            values[_WIND_KEYS[key]] = Wind.parse(value).value
        elif key in FLAG_KEYS:
            values[key] = parse_flag(key, value) if eq else True
        elif not eq:
            values[key] = True
        else:
            values[key] = int(value) if value.lstrip("-").isdigit() else value
    return Context.from_dict(values)


def _format_context(context: Context) -> str:
    words = [name for name in FLAG_KEYS if getattr(context, name)]
    if context.seat_wind is not Wind.EAST:
        words.append(f"seat={context.seat_wind.value}")
    if context.prevalent_wind is not Wind.EAST:
        words.append(f"prevalent={context.prevalent_wind.value}")
    for key, value in context.extra:
        if value is True:
            words.append(key)
        else:
            words.append(f"{key}={str(value).lower() if isinstance(value, bool) else value}")
    return " ".join(words)
