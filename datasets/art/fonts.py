"""Finding the fonts the face painter writes with: CJK fonts for the tiles' characters, a Latin one for indices.

Fonts are looked up by family name in the usual font folders (no fontconfig needed). Each painter style
asks for a kind of font ("serif", "sans", "kai", "ming", "hei") and gets the first installed family of that
kind; failing that, any installed font that has every character a tile face needs; failing that, None,
and the painter draws its characters with plain shapes instead (datasets/art/painter.py).

The Debian packages behind the families named here: fonts-noto-cjk (Noto Serif/Sans CJK), fonts-arphic-ukai
(AR PL UKai), fonts-arphic-uming (AR PL UMing), fonts-wqy-zenhei (WenQuanYi Zen Hei), fonts-dejavu-core.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

FONT_DIRS = ("/usr/share/fonts", "/usr/local/share/fonts", "~/.local/share/fonts", "~/.fonts")
FONT_SUFFIXES = (".ttf", ".ttc", ".otf", ".otc")

# Every character a painted face may show.
TILE_CHARACTERS = "一二三四五伍六七八九萬万東南西北中發白梅蘭菊竹春夏秋冬"

# Font kind -> families in order of preference (family name, style), as FreeType reports them.
FAMILIES: dict[str, tuple[tuple[str, str], ...]] = {
    "serif": (("Noto Serif CJK TC", "Regular"), ("Noto Serif CJK HK", "Regular"), ("Noto Serif CJK JP", "Regular"),
              ("Source Han Serif TC", "Regular"), ("Noto Serif CJK SC", "Regular")),
    "serif-bold": (("Noto Serif CJK TC", "Bold"), ("Noto Serif CJK JP", "Bold"), ("Source Han Serif TC", "Bold"),
                   ("Noto Serif CJK SC", "Bold")),
    "sans": (("Noto Sans CJK TC", "Regular"), ("Noto Sans CJK HK", "Regular"), ("Noto Sans CJK JP", "Regular"),
             ("Source Han Sans TC", "Regular"), ("Noto Sans CJK SC", "Regular")),
    "sans-bold": (("Noto Sans CJK TC", "Bold"), ("Noto Sans CJK JP", "Bold"), ("Source Han Sans TC", "Bold"),
                  ("Noto Sans CJK SC", "Bold")),
    "kai": (("AR PL UKai TW", "Book"), ("AR PL UKai HK", "Book"), ("AR PL UKai CN", "Book"),
            ("AR PL KaitiM Big5", "Regular"), ("TW-Kai", "Regular")),
    "ming": (("AR PL UMing TW", "Light"), ("AR PL UMing HK", "Light"), ("AR PL UMing CN", "Light"),
             ("AR PL Mingti2L Big5", "Regular")),
    "hei": (("WenQuanYi Zen Hei", "Regular"), ("WenQuanYi Micro Hei", "Regular"), ("Droid Sans Fallback", "Regular")),
    "latin": (("DejaVu Sans", "Book"), ("DejaVu Sans", "Regular"), ("Liberation Sans", "Regular"),
              ("Noto Sans", "Regular"), ("FreeSans", "Regular")),
    "latin-bold": (("DejaVu Sans", "Bold"), ("Liberation Sans", "Bold"), ("Noto Sans", "Bold"),
                   ("FreeSans", "Bold")),
    "latin-serif": (("DejaVu Serif", "Book"), ("DejaVu Serif", "Regular"), ("Liberation Serif", "Regular"),
                    ("FreeSerif", "Regular")),
}

APT_PACKAGES = ("fonts-noto-cjk", "fonts-arphic-ukai", "fonts-arphic-uming", "fonts-wqy-zenhei", "fonts-dejavu-core")


@dataclass(frozen=True, order=True)
class FontRef:
    """One face of a font file: the path, its index inside a collection, and its family and style."""

    path: str
    index: int
    family: str
    style: str

    def load(self, size: int) -> ImageFont.FreeTypeFont:
        return _load(self.path, self.index, int(size))


@lru_cache(maxsize=256)
def _load(path: str, index: int, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(path, size, index=index)


def font_files(dirs=FONT_DIRS) -> list[Path]:
    found = []
    for folder in dirs:
        root = Path(os.path.expanduser(folder))
        if root.is_dir():
            found.extend(p for p in root.rglob("*") if p.suffix.lower() in FONT_SUFFIXES and p.is_file())
    return sorted(set(found))


@lru_cache(maxsize=1)
def catalogue() -> tuple[FontRef, ...]:
    """Every face of every installed font file (sorted, so the same machine answers the same)."""
    refs = []
    for path in font_files():
        for index in range(16):
            try:
                font = ImageFont.truetype(str(path), 16, index=index)
            except (OSError, ValueError):
                break
            family, style = font.getname()
            refs.append(FontRef(str(path), index, family or path.stem, style or "Regular"))
            if path.suffix.lower() not in (".ttc", ".otc"):
                break
    return tuple(sorted(refs))


def _glyph_bytes(font: ImageFont.FreeTypeFont, char: str) -> bytes | None:
    box = font.getbbox(char)
    if box is None or box[2] <= box[0] or box[3] <= box[1]:
        return None
    image = Image.new("L", (box[2] - box[0] + 2, box[3] - box[1] + 2))
    ImageDraw.Draw(image).text((1 - box[0], 1 - box[1]), char, font=font, fill=255)
    return image.tobytes() + bytes(str(image.size), "ascii")


def covers(ref: FontRef, characters: str = TILE_CHARACTERS) -> bool:
    """Whether the font draws every one of ``characters`` (not as empty or as the missing-glyph box)."""
    return _covers(ref, characters)


@lru_cache(maxsize=128)
def _covers(ref: FontRef, characters: str) -> bool:
    try:
        font = ref.load(48)
    except OSError:
        return False
    missing = {_glyph_bytes(font, "\U0010fffd"), _glyph_bytes(font, "\uffff"), None}
    return all(_glyph_bytes(font, char) not in missing for char in characters)


def find_font(kind: str, characters: str = TILE_CHARACTERS) -> FontRef | None:
    """The first installed family of ``kind`` that has ``characters``; None when there is none."""
    fonts = catalogue()
    for family, style in FAMILIES.get(kind, ()):
        for ref in fonts:
            if ref.family == family and ref.style == style and covers(ref, characters):
                return ref
    return None


def any_cjk_font() -> FontRef | None:
    """Some installed font that has every tile character (the preferred kinds first)."""
    for kind in ("serif", "sans", "kai", "ming", "hei", "serif-bold", "sans-bold"):
        ref = find_font(kind)
        if ref is not None:
            return ref
    for ref in catalogue():
        if covers(ref):
            return ref
    return None


def latin_font(kind: str = "latin") -> FontRef | None:
    """A font for corner indices (digits and capitals)."""
    return find_font(kind, "0123456789ESWNCFP") or find_font("latin", "0123456789ESWNCFP")


def default_font(size: int) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    """Pillow's own font (scalable from Pillow 10.1), the last resort for digits and letters."""
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1
        return ImageFont.load_default()
