"""Who pays whom after an MCR hand (seed 000 section IV).

"A mahjongot mondó játékos minden más játékostól 8 pontot kap a nyerő kézért, ill. ezen felül ha valaki
bedobta az utolsó szükséges követ, akkor attól a játékostól; ha magának húzta be azt, akkor minden
játékostól megkapja a mahjong értékét." Each of the three others pays 8; the discarder also pays the
hand's value, or on a self-draw every other player does. A false mahjong (a hand under 8 points or no
winning shape) pays 10 to each of the others.

Amounts are from each seat's point of view: positive receives, negative pays; they sum to zero.

>>> settle(24, self_drawn=False)
(('winner', 48), ('discarder', -32), ('others', -8))
>>> settle(24, self_drawn=True)
(('winner', 96), ('discarder', None), ('others', -32))
"""

from __future__ import annotations

BASE = 8
FALSE_MAHJONG_PENALTY = 10


def settle(total: int, *, self_drawn: bool) -> tuple[tuple[str, int | None], ...]:
    if self_drawn:
        each = BASE + total
        return (("winner", 3 * each), ("discarder", None), ("others", -each))
    return (("winner", 3 * BASE + total), ("discarder", -(BASE + total)), ("others", -BASE))


def false_mahjong(*, self_drawn: bool) -> tuple[tuple[str, int | None], ...]:
    """The claimant pays 10 to each other player (seed 000 IV, last paragraph)."""
    return (("winner", -3 * FALSE_MAHJONG_PENALTY), ("discarder", None if self_drawn else FALSE_MAHJONG_PENALTY),
            ("others", FALSE_MAHJONG_PENALTY))
