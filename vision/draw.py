"""Drawing detections on a photo (``mjscan detect --draw out.jpg``): a box and its code per tile."""

from __future__ import annotations

import os

from PIL import Image, ImageDraw, ImageFont

from vision.detections import Detections

_COLOURS = {"m": (220, 40, 40), "p": (40, 90, 220), "s": (20, 150, 60), "z": (150, 60, 170), "f": (230, 140, 0),
            "k": (90, 90, 90)}


def label_font(image: Image.Image) -> ImageFont.ImageFont:
    """The default font at a size readable on ``image`` (about 14 px per 1000 px of its long side)."""
    try:
        return ImageFont.load_default(size=max(10, int(14 * max(image.size) / 1000)))
    except TypeError:  # Pillow before 10.1: one fixed size
        return ImageFont.load_default()


def draw_detections(image: Image.Image, detections: Detections) -> Image.Image:
    """A copy of ``image`` (upright RGB) with each detection's box, code and confidence; sideways tiles
    are marked with a trailing ``>``."""
    out = image.convert("RGB").copy()
    draw = ImageDraw.Draw(out)
    scale = max(out.size) / 1000
    width = max(1, int(round(2 * scale)))
    font = label_font(out)
    for tile in detections:
        code = tile.code_str
        colour = _COLOURS.get("k" if code == "back" else code[-1], (0, 0, 0))
        draw.rectangle(tile.box, outline=colour, width=width)
        text = f"{code}{'>' if tile.sideways else ''} {tile.confidence:.2f}"
        x, y = tile.box[0], max(0, tile.box[1] - font.size - 2 if hasattr(font, "size") else tile.box[1] - 12)
        left, top, right, bottom = draw.textbbox((x, y), text, font=font)
        draw.rectangle((left - 1, top - 1, right + 1, bottom + 1), fill=colour)
        draw.text((x, y), text, fill="white", font=font)
    return out


def save_drawing(image: Image.Image, detections: Detections, path: str | os.PathLike[str]) -> None:
    drawn = draw_detections(image, detections)
    drawn.save(path, quality=90) if str(path).lower().endswith((".jpg", ".jpeg")) else drawn.save(path)
