"""Drawing a reading on its photo (``mjscan read --draw out.jpg``): each tile's box coloured by its group
(standing row, winning tile, each meld, flowers; ignored detections grey), sideways tiles marked with a bar along
their long side, the tile's code and place in its group; a tile the reading took from under the detector's
threshold (``vision.photo_reading``) says so, with its confidence."""

from __future__ import annotations

import os

from PIL import Image, ImageDraw

from vision.detections import Detections
from vision.draw import label_font

_MELD_COLOURS = [(220, 40, 40), (40, 90, 220), (150, 60, 170), (0, 150, 150), (200, 120, 0)]
_GROUP_COLOURS = {"concealed": (20, 150, 60), "winning": (240, 200, 0), "flower": (230, 120, 200)}


def _colour(group: str) -> tuple[int, int, int]:
    if group.startswith("meld:"):
        tail = group[5:]
        return _MELD_COLOURS[int(tail) % len(_MELD_COLOURS)] if tail.isdigit() else (0, 0, 0)
    return _GROUP_COLOURS.get(group, (120, 120, 120))


def tile_label(tile, confidence: float, threshold: float | None = None) -> str:
    """The label drawn under a tile of the reading (``tile``: its ``TileEvidence``; ``confidence``: its detection's).

    >>> from types import SimpleNamespace
    >>> tile = SimpleNamespace(group="winning", code="1z", sideways=False, face_down=False)
    >>> tile_label(tile, 0.12, 0.25)
    'winning 1z (under the threshold: 0.12)'
    >>> tile_label(tile, 0.9, 0.25)
    'winning 1z'
    """
    label = f"{tile.group} {tile.code}{' sideways' if tile.sideways else ''}{' down' if tile.face_down else ''}"
    if threshold is not None and confidence < threshold:
        label += f" (under the threshold: {confidence:.2f})"
    return label


def draw_reading(image: Image.Image, detections: Detections, reading, threshold: float | None = None
                 ) -> Image.Image:
    """``threshold``: the detector's; a tile of the reading under it is labelled so (see ``tile_label``)."""
    out = image.convert("RGB").copy()
    draw = ImageDraw.Draw(out)
    scale = max(out.size) / 1000
    width = max(2, int(round(3 * scale)))
    font = label_font(out)
    for ignored in reading.ignored:
        box = detections.tiles[ignored.detection].box
        draw.rectangle(box, outline=(128, 128, 128), width=max(1, width // 2))
        draw.text((box[0], box[3] + 2), f"{ignored.code} ignored", fill=(128, 128, 128), font=font)
    for tile in reading.tiles:
        x1, y1, x2, y2 = detections.tiles[tile.detection].box
        colour = _colour(tile.group)
        draw.rectangle((x1, y1, x2, y2), outline=colour, width=width)
        if tile.sideways:  # a bar along the long side
            if x2 - x1 >= y2 - y1:
                draw.rectangle((x1, y1, x2, y1 + width * 2), fill=colour)
            else:
                draw.rectangle((x1, y1, x1 + width * 2, y2), fill=colour)
        label = tile_label(tile, detections.tiles[tile.detection].confidence, threshold)
        left, top, right, bottom = draw.textbbox((x1, y2 + 2), label, font=font)
        draw.rectangle((left - 1, top - 1, right + 1, bottom + 1), fill=colour)
        draw.text((x1, y2 + 2), label, fill="white", font=font)
    return out


def save_reading(image: Image.Image, detections: Detections, reading, path: str | os.PathLike[str],
                 threshold: float | None = None) -> None:
    drawn = draw_reading(image, detections, reading, threshold)
    drawn.save(path, quality=90) if str(path).lower().endswith((".jpg", ".jpeg")) else drawn.save(path)
