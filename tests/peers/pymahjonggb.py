"""PyMahjongGB (``pip install PyMahjongGB``, module ``MahjongGB``) as a peer of our MCR scorer.

PyMahjongGB wraps the ChineseOfficialMahjong fan calculator (Chinese Official / Guobiao rules). Its
call is ``MahjongFanCalculator(pack, hand, winTile, flowerCount, isSelfDrawn, is4thTile, isAboutKong,
isWallLast, seatWind, prevalentWind, verbose=True)`` and it answers a tuple of
``(fan_points, count, chinese_name, english_name)``:

- ``pack``: the declared sets, ``("CHI" | "PENG" | "GANG", tile, offer)``. A chow is named by its middle
  tile and ``offer`` 1..3 says which of its tiles (lowest first) was claimed; for a pung or kong ``offer``
  1, 2, 3 says whose discard it was (left / previous player, across, right) and a kong with ``offer`` 0
  is a concealed kong.
- ``hand``: the standing tiles WITHOUT the winning tile; ``winTile`` the winning tile.
- tiles: ``W1-W9`` characters, ``B1-B9`` dots, ``T1-T9`` bamboo, ``F1-F4`` East South West North,
  ``J1-J3`` Red Green White (our 7z 6z 5z).
- ``isAboutKong``: with ``isSelfDrawn`` Out with Replacement Tile, without it Robbing the Kong;
  ``isWallLast``: Last Tile Draw / Last Tile Claim; ``is4thTile``: Last Tile.
- winds 0..3 = East South West North.

It raises ``TypeError("ERROR_NOT_WIN")`` (and other ``ERROR_*`` messages) for a hand that is not a win;
:func:`score` answers None for those.

Its English names are the official ones, with a few spelling differences that :data:`NAMES` maps to
ours. Its point values are the Chinese 1998 book's; where our books give another value for the same fan
(:data:`OUR_POINTS`), :func:`score` reports OUR value so that totals compare like with like and the
difference is visible only where the fans themselves differ.
"""

from __future__ import annotations

from dataclasses import dataclass

from scorer.hand import Hand
from scorer.melds import Direction, Meld, MeldKind
from scorer.tiles import PLAYING_TILES, Suit, Tile, Wind

_SUIT_LETTER = {Suit.CHARACTERS: "W", Suit.DOTS: "B", Suit.BAMBOO: "T"}
# Our honours 1z..7z are East South West North White Green Red; theirs F1-F4 winds, J1 Red J2 Green J3 White.
_HONOR_CODE = {1: "F1", 2: "F2", 3: "F3", 4: "F4", 5: "J3", 6: "J2", 7: "J1"}
_OFFER = {Direction.LEFT: 1, Direction.ACROSS: 2, Direction.RIGHT: 3}
_WIND = {Wind.EAST: 0, Wind.SOUTH: 1, Wind.WEST: 2, Wind.NORTH: 3}

# Their English name -> ours (seed 003's official names), where the spelling differs.
NAMES = {
    "All Five": "All Fives",
    "Robbing The Kong": "Robbing the Kong",
    "Two Dragons Pungs": "Two Dragon Pungs",
}
# Point values that differ between their table (Chinese 1998 book) and ours (seed 000 section V / seed 003).
# "Two Concealed Kongs": they give 6; seed 000 item 44 "Két kézben kong" is under "8 pontos játékok", and
# seed 003 lists fan 48 Two Concealed Kongs under 8.
OUR_POINTS = {"Two Concealed Kongs": 8}


def tile_code(tile: Tile) -> str:
    """PyMahjongGB's code for one of our playing tiles."""
    if tile.is_honor:
        return _HONOR_CODE[tile.rank]
    if tile.is_bonus:
        raise ValueError(f"{tile.code} is a flower: PyMahjongGB only counts flowers")
    return f"{_SUIT_LETTER[tile.suit]}{tile.rank}"


def pack_of(meld: Meld) -> tuple[str, str, int]:
    """One declared meld as a PyMahjongGB pack."""
    if meld.kind is MeldKind.CHOW:
        middle = meld.tiles[1]
        offer = 1 if meld.claimed_tile is None else meld.claimed_tile.rank - meld.tile.rank + 1
        return ("CHI", tile_code(middle), offer)
    kind = "PENG" if meld.kind is MeldKind.PUNG else "GANG"
    if meld.concealed:
        return (kind, tile_code(meld.tile), 0)
    # An exposed pung or kong whose claim is not recorded: any claimed direction scores alike.
    return (kind, tile_code(meld.tile), _OFFER.get(meld.claimed, 1))


def arguments(hand: Hand) -> tuple:
    """The positional arguments of ``MahjongFanCalculator`` for one of our winning hands."""
    if hand.winning_tile is None:
        raise ValueError("PyMahjongGB scores winning hands only")
    standing = list(hand.concealed)
    standing.remove(hand.winning_tile)
    c = hand.context
    about_kong = (c.kong_replacement and c.self_drawn) or (c.robbing_kong and not c.self_drawn)
    return (
        tuple(pack_of(m) for m in hand.melds),
        tuple(tile_code(t) for t in standing),
        tile_code(hand.winning_tile),
        len(hand.flowers),
        bool(c.self_drawn),
        bool(c.last_of_kind),
        bool(about_kong),
        bool(c.last_tile),
        _WIND[c.seat_wind],
        _WIND[c.prevalent_wind],
    )


_FROM_CODE = {tile_code(tile): tile for tile in PLAYING_TILES}


def waits(hand: Hand) -> set[Tile]:
    """The tiles that complete the hand's 13 tiles before the win, by PyMahjongGB's own shanten functions
    (an independent check of our shapes): every winning shape, including tiles of which the hand already
    holds all four copies (PyMahjongGB does not look at copies)."""
    import MahjongGB

    standing = list(hand.concealed)
    standing.remove(hand.winning_tile)
    codes = tuple(tile_code(t) for t in standing)
    found: set[str] = set()
    forms = [MahjongGB.RegularShanten]
    if len(codes) in (10, 13):
        forms.append(MahjongGB.KnittedStraightShanten)
    if len(codes) == 13:
        forms += [MahjongGB.SevenPairsShanten, MahjongGB.ThirteenOrphansShanten,
                  MahjongGB.HonorsAndKnittedTilesShanten]
    for form in forms:
        shanten, useful = form(codes)
        if shanten == 0:
            found.update(useful)
    return {_FROM_CODE[code] for code in found}


@dataclass(frozen=True)
class PeerResult:
    items: list[tuple[str, int, int]]  # sorted (name, points, count), our names and our point values
    total: int  # sum of points x count, flowers included
    raw: tuple  # their answer as given


def score(hand: Hand) -> PeerResult | None:
    """PyMahjongGB's fans for our hand, or None when it says the hand is not a win (or is malformed)."""
    from MahjongGB import MahjongFanCalculator

    try:
        raw = MahjongFanCalculator(*arguments(hand), verbose=True)
    except TypeError as error:
        if str(error).startswith(("ERROR", "ERROE")):
            return None
        raise
    items = []
    for points, count, _chinese, english in raw:
        name = NAMES.get(english, english)
        items.append((name, OUR_POINTS.get(name, points), count))
    items.sort()
    return PeerResult(items, sum(p * n for _, p, n in items), raw)
