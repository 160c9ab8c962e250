"""A hand one tile short: which tiles the photo may have missed.

A finger over a tile, glare, a tile cut by the photo's edge or one the detector did not find at all (no box even
under its threshold, ``vision.photo_reading``): the standing row is then one tile short, the tiles make no hand,
and the grouping's question ``hand`` has no choices, so the player had to correct the hand by hand. Yet a hand one
tile short of a winning one can only be completed by a few tiles: its waits. ``offer_missed_tiles`` gives the
question ``hand`` one choice for each, carrying the whole hand with that tile among the standing ones; the player
taps the one the photo hid, or corrects the hand as before when none is right.

Where no tile lies apart either, the missed tile is likeliest the winning tile itself (the guide lays it apart, and
the photo shows every other tile): the question ``winning-tile``, whose choices (the row's own tiles) then make no
hand, offers the waits as the winning tile instead.

It asks; it never takes a tile the photo does not show. Only the standing tiles are completed: the melds must be
whole (a meld a tile short lies as a pair, and the grouping asks about that).
Measured at stop 53 on the eight held-out seeds (stop 51's cached detector answers, ``docs/grouping.md``).

A concealed kong is the other thing a photo shows only in part: it lies with two or four tiles face down, and where
the detector misses some of its tiles (a face-up middle, a face-down end) what is left (one or two face-down tiles,
or a face-down tile beside a face-up one) forms no meld, so the grouping leaves it out and asks ``meld-N``, and the
hand is a set short (11 tiles, each kong as 3). ``offer_hidden_kong`` then offers, on question ``hand``, the
concealed kongs that make a winning hand: of the face-up tile shown, or, with only face-down tiles, of any tile
the hand holds no copy of (as the question about a kong laid all face down does); the ``meld-N`` questions about
those tiles go, since each choice says what they are. Stop 54.

>>> from scorer.notation import group_tiles
>>> from vision.grouping import Question, Reading, TileEvidence
>>> row = group_tiles("123m456p789s1z5z5z")                # the row less a hidden 1z; the winning 1z lies apart
>>> tiles = tuple(TileEvidence(n, t.code, "concealed", n, 0.9) for n, t in enumerate(row)) + (
...     TileEvidence(len(row), "1z", "winning", 0, 0.9),)
>>> reading = Reading(None, (Question("hand", "The tiles read do not make a hand."),), tiles)
>>> [c.label for c in offer_missed_tiles(reading).question("hand").choices]
['1z', '5z']
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable

from scorer.errors import HandError
from scorer.hand import Hand
from scorer.melds import Meld
from scorer.tiles import PLAYING_TILES, Tile
from vision.classes import BACK
from vision.repair import is_winning_shape

HAND_QUESTION = "hand"
"""The grouping's question when the tiles make no hand (``vision.grouping``)."""
WINNING_QUESTION = "winning-tile"
"""The grouping's question when no tile lies apart as the winning tile."""
ONE_SHORT = 13
"""The tiles of a hand one short of a winning one (each kong counted as three)."""
SET_SHORT = 10
"""The tiles of a hand a set short of a winning one (each kong counted as three), less its winning tile."""
KONG_TILES = 4
"""The most tiles a concealed kong shown in part leaves out."""


def _parts(reading: Any) -> tuple[list[Tile], list[Meld], Tile | None, list[Tile]] | None:
    """The standing tiles (the winning tile among them), the melds, the winning tile (None when none lies apart) and
    the flowers the reading's evidence holds; None where the evidence is not whole (a face-down kong's tile not
    known, a tile in no meld of the hand)."""
    standing: list[Tile] = []
    flowers: list[Tile] = []
    winning: Tile | None = None
    for tile in reading.tiles:
        if tile.group in ("concealed", "winning"):
            if tile.code == BACK:
                return None
            standing.append(Tile.parse(tile.code))
            if tile.group == "winning":
                winning = Tile.parse(tile.code)
        elif tile.group == "flower":
            flowers.append(Tile.parse(tile.code))
        elif not tile.group.startswith("meld:") or tile.group == "meld:?" or tile.code == BACK:
            return None  # a tile in no meld of the hand, or a face-down kong's unknown tile
    melds = {tile.group for tile in reading.tiles if tile.group.startswith("meld:")}
    if len(melds) != len(reading.melds):
        return None
    return standing, [m.meld for m in reading.melds], winning, flowers


def missed_tiles(reading: Any) -> tuple[tuple[Tile, Hand], ...]:
    """Each tile one more of which makes a winning hand, with that hand (tile order); () where the reading is not one
    tile short (see the module's doc). With a winning tile apart the missed tile joins the standing row; with none,
    it is taken for the winning tile (laid apart, and the one tile the photo does not show)."""
    if reading.hand is not None or reading.face_down_kongs is not None:
        return ()
    parts = _parts(reading)
    if parts is None:
        return ()
    standing, melds, winning, flowers = parts
    if len(standing) + 3 * len(melds) != ONE_SHORT:
        return ()
    return _winning(PLAYING_TILES, lambda tile: Hand(tuple(standing) + (tile,), tuple(melds), winning or tile,
                                                     tuple(flowers)))


def _winning(tiles: Any, make: Callable[[Tile], Hand]) -> tuple[tuple[Tile, Hand], ...]:
    """Each of ``tiles`` whose hand (``make(tile)``) is a winning one, with that hand; a tile that would be a fifth
    copy makes none."""
    found = []
    for tile in tiles:
        try:
            hand = make(tile)
        except HandError:
            continue
        if is_winning_shape(hand):
            found.append((tile, hand))
    return tuple(found)


def _named(tiles: list[str]) -> str:
    return tiles[0] if len(tiles) == 1 else ", ".join(tiles[:-1]) + " or " + tiles[-1]


def offer_missed_tiles(reading: Any) -> Any:
    """``reading`` with the tiles the photo may have missed (``missed_tiles``) offered where the tiles are one short:
    as the choices of question ``hand`` when it has none, or of question ``winning-tile`` when none of its choices
    (the row's own tiles) makes a hand. Else ``reading`` as it is."""
    from vision.grouping import Choice, Question

    asked = reading.question(HAND_QUESTION)
    if asked is not None and asked.choices:
        return reading
    if asked is None:
        asked = reading.question(WINNING_QUESTION)
        if asked is None or any(choice.hand is not None for choice in asked.choices):
            return reading
    missed = missed_tiles(reading)
    if not missed:
        return reading
    named = _named([tile.code for tile, _ in missed])
    if asked.id == HAND_QUESTION:
        text = (f"The tiles read are one short of a hand (13 found). One more {named} in the standing row makes a "
                "winning hand: was it hidden or out of the photo? If not, please correct the hand.")
    else:
        text = (f"No tile lies apart at the right end of the standing row, and the tiles read are one short of a hand "
                f"(13 found): the winning tile may be one the photo does not show. Was it {named}? If not, please "
                "correct the hand.")
    offered = Question(asked.id, text, tuple(Choice(tile.code, hand) for tile, hand in missed))
    return replace(reading, questions=tuple(offered if q is asked else q for q in reading.questions))


def _hidden_kong_parts(reading: Any) -> tuple[list[Tile], list[Meld], Tile, list[Tile], str | None] | None:
    """The standing tiles, melds, winning tile and flowers of a reading a set short whose tiles left out as forming
    no meld could be what the photo shows of one concealed kong (face-down tiles, and at most one face beside
    them), and that face (None where only face-down tiles show); None where that is not so."""
    from vision.grouping import NOT_A_MELD

    if reading.hand is not None or reading.face_down_kongs is not None or reading.question(HAND_QUESTION) is None:
        return None
    if any(q.id != HAND_QUESTION and not q.id.startswith(("meld-", "flower-", "direction")) for q in reading.questions):
        return None  # another doubt (the winning tile, a claim, a misreading) that a kong would not settle
    loose = [ignored.code for ignored in reading.ignored if ignored.reason == NOT_A_MELD]
    faces = set(loose) - {BACK}
    if not loose or len(loose) > KONG_TILES or BACK not in loose or len(faces) > 1:
        return None
    parts = _parts(reading)
    if parts is None:
        return None
    standing, melds, winning, flowers = parts
    if winning is None or len(standing) - 1 + 3 * len(melds) != SET_SHORT:
        return None
    return standing, melds, winning, flowers, next(iter(faces), None)


def hidden_kongs(reading: Any) -> tuple[tuple[Tile, Hand], ...]:
    """Each concealed kong that, added to the reading, makes a winning hand, with that hand; () where the reading
    is not a set short with a concealed kong's face-down tiles left out (see the module's doc)."""
    parts = _hidden_kong_parts(reading)
    if parts is None:
        return ()
    standing, melds, winning, flowers, face = parts
    return _winning((Tile.parse(face),) if face is not None else PLAYING_TILES,
                    lambda tile: Hand(tuple(standing), tuple(melds) + (Meld.kong(tile, concealed=True),), winning,
                                      tuple(flowers)))


def offer_hidden_kong(reading: Any) -> Any:
    """``reading`` with the concealed kongs its left-out face-down tiles may be (``hidden_kongs``) offered as the
    choices of question ``hand``, in place of the ``meld-N`` questions about those tiles. Else ``reading``."""
    from vision.grouping import Choice, Question

    kongs = hidden_kongs(reading)
    if not kongs:
        return reading
    asked = reading.question(HAND_QUESTION)
    if len(kongs) == 1:
        wanted = (f"Was it a concealed kong of {kongs[0][0].code}, some of its tiles not found in the photo?")
    else:
        wanted = "Which tile was the concealed kong? Its face-up tiles were not found in the photo."
    text = ("Face-down tiles lie apart from the melds, fewer than a concealed kong shows, and the tiles read are a "
            f"set short of a hand (11 found, each kong as 3). {wanted} If not, please correct the hand.")
    offered = Question(asked.id, text, tuple(Choice(tile.code, hand) for tile, hand in kongs))
    return replace(reading, questions=tuple(offered if q is asked else q for q in reading.questions
                                             if not q.id.startswith("meld-")))
