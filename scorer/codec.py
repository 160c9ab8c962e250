"""The spec's hand JSON to and from the types: the one place where plain dicts become a Hand."""

from __future__ import annotations

from typing import Any, Mapping

from scorer.errors import HandError
from scorer.hand import Context, Hand
from scorer.melds import Direction, Meld, MeldKind
from scorer.tiles import Tile

_HAND_KEYS = {"concealed", "melds", "winning_tile", "flowers", "context"}
_MELD_KEYS = {"kind", "tiles", "concealed", "claimed", "claimed_tile"}


def hand_from_dict(data: Any) -> Hand:
    """Build a Hand from the spec's JSON object; raise HandError with a player's message."""
    if not isinstance(data, Mapping):
        raise HandError("malformed_hand", "A hand must be a JSON object with 'concealed', 'melds', 'winning_tile'...")
    unknown = set(data) - _HAND_KEYS
    if unknown:
        raise HandError("malformed_hand", f"Unknown hand field(s): {', '.join(sorted(map(str, unknown)))}.")
    if "concealed" not in data:
        raise HandError("malformed_hand", "The hand has no 'concealed' tiles.")
    concealed = _tiles(data["concealed"], "concealed")
    melds_data = data.get("melds", [])
    if melds_data is None:
        melds_data = []
    if not isinstance(melds_data, list):
        raise HandError("malformed_hand", "'melds' must be a list.")
    melds = tuple(_meld(m, i + 1) for i, m in enumerate(melds_data))
    winning = data.get("winning_tile")
    winning_tile = Tile.parse(winning) if winning is not None else None
    flowers = _tiles(data.get("flowers") if data.get("flowers") is not None else [], "flowers")
    context = Context.from_dict(data.get("context") if data.get("context") is not None else {})
    return Hand(concealed=concealed, melds=melds, winning_tile=winning_tile, flowers=flowers, context=context)


def hand_to_dict(hand: Hand) -> dict[str, Any]:
    return {
        "concealed": [t.code for t in hand.concealed],
        "melds": [meld_to_dict(m) for m in hand.melds],
        "winning_tile": hand.winning_tile.code if hand.winning_tile else None,
        "flowers": [t.code for t in hand.flowers],
        "context": hand.context.to_dict(),
    }


def meld_to_dict(meld: Meld) -> dict[str, Any]:
    data: dict[str, Any] = {"kind": meld.kind.value, "tiles": [t.code for t in meld.tiles], "concealed": meld.concealed}
    if meld.claimed is not None:
        data["claimed"] = meld.claimed.value
    if meld.claimed_tile is not None:
        data["claimed_tile"] = meld.claimed_tile.code
    return data


def _tiles(value: Any, where: str) -> tuple[Tile, ...]:
    if not isinstance(value, list):
        raise HandError("malformed_hand", f"'{where}' must be a list of tile codes such as [\"1m\", \"2m\"].")
    return tuple(Tile.parse(code) for code in value)


def _meld(data: Any, number: int) -> Meld:
    if not isinstance(data, Mapping):
        raise HandError("malformed_hand", f"Meld {number} must be an object with 'kind' and 'tiles'.")
    unknown = set(data) - _MELD_KEYS
    if unknown:
        raise HandError("malformed_hand", f"Meld {number} has unknown field(s): {', '.join(sorted(map(str, unknown)))}.")
    try:
        kind = MeldKind(str(data.get("kind", "")).lower())
    except ValueError:
        raise HandError("bad_meld", f"Meld {number}: kind must be chow, pung or kong, not {data.get('kind')!r}.") from None
    concealed = data.get("concealed", False)
    if not isinstance(concealed, bool):
        raise HandError("malformed_hand", f"Meld {number}: 'concealed' must be true or false.")
    claimed = Direction.parse(data["claimed"]) if data.get("claimed") is not None else None
    claimed_tile = Tile.parse(data["claimed_tile"]) if data.get("claimed_tile") is not None else None
    return Meld(kind, _tiles(data.get("tiles"), f"meld {number} tiles"), concealed=concealed,
                claimed=claimed, claimed_tile=claimed_tile)
