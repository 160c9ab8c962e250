"""The detector's 43 classes: the 42 tile faces in ``scorer.tiles.ALL_TILES`` order, then ``back``.

``TileClass`` is what a detection says a box holds: a ``Tile`` or the string ``"back"`` (a face-down tile).

>>> CLASS_NAMES[0], CLASS_NAMES[33], CLASS_NAMES[41], CLASS_NAMES[42]
('1m', '7z', '8f', 'back')
>>> class_from_id(4)
Tile('5m')
>>> class_id(parse_class("back")), class_id(parse_class("9s"))
(42, 26)
"""

from __future__ import annotations

from typing import Literal, Union

from scorer.tiles import ALL_TILES, PLAYING_TILES, Tile

BACK: Literal["back"] = "back"
TileClass = Union[Tile, Literal["back"]]
"""A detection's class: a tile face, or ``"back"`` for a face-down tile."""

CLASSES: tuple[TileClass, ...] = (*ALL_TILES, BACK)
CLASS_NAMES: tuple[str, ...] = tuple(c if c == BACK else c.code for c in CLASSES)  # type: ignore[union-attr]
NUM_CLASSES = len(CLASSES)  # 43
BACK_ID = NUM_CLASSES - 1
RIICHI_IDS: tuple[int, ...] = tuple(tile.index for tile in PLAYING_TILES)
"""The 34 suit and honour kinds' class ids (no flowers, no back)."""
BONUS_CLASS_IDS: tuple[int, ...] = tuple(i for i, c in enumerate(CLASSES) if c != BACK and c.is_bonus)  # type: ignore[union-attr]
"""The eight bonus faces' class ids: 1f-4f the flowers, 5f-8f the seasons."""


def class_code(value: TileClass) -> str:
    """``"3m"`` for a tile, ``"back"`` for a face-down tile."""
    return BACK if value == BACK else value.code  # type: ignore[union-attr]


def class_id(value: TileClass) -> int:
    return BACK_ID if value == BACK else value.index  # type: ignore[union-attr]


def class_from_id(index: int) -> TileClass:
    if not 0 <= index < NUM_CLASSES:
        raise ValueError(f"class id {index} is outside 0..{NUM_CLASSES - 1}")
    return CLASSES[index]


def parse_class(code: str) -> TileClass:
    """A tile code or ``"back"``; raises ``ValueError`` for anything else."""
    if code == BACK:
        return BACK
    try:
        return Tile.parse(code)
    except Exception as error:  # scorer's HandError: say it as a ValueError at this edge
        raise ValueError(f"'{code}' is not a tile code or 'back'") from error
