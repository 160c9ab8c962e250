"""Our own tile faces, painted with numpy and Pillow: several distinct styles from a few parameters.

A ``Scheme`` says how one style looks: which CJK font writes its characters (datasets/art/fonts.py),
its ink colours, how dots, bamboo sticks and the 1s bird are drawn, how the White dragon looks (blank,
framed, double-framed or written 白), whether suit and honour tiles carry a corner index (a small Arabic
numeral, or E S W N for the winds, as many commercial sets print), how flowers and seasons look (their
character and seat number, with or without a picture), and the back's pattern. ``SCHEMES`` lists the
styles the bundle gets; ``paint_style(scheme)`` paints one style's 42 faces and its back.

Faces are print layers: RGBA, transparent where the tile's surface shows (datasets/art/bundle.py). They
are drawn at ``SUPERSAMPLE`` times the face size and scaled down, which smooths their edges.

Output is deterministic: the same scheme, fonts and Pillow give the same pixels (every random choice
comes from ``random.Random`` seeded by the scheme's seed and the tile code). Where no CJK font is
installed, the painter still works: it draws 一 二 三 as bars and writes the other characters as Arabic
numerals and Latin letters (4..9, W for 萬, E S W N, C F P, Pl Or Ch Bm Sp Su Au Wi) in Pillow's own font.
Such faces are for tests only; ``prepare_art`` requires the CJK fonts.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

from datasets.art.bundle import CODES, DEFAULT_FACE_SIZE, fit_face
from datasets.art.fonts import (BRUSH_CHARACTERS, BRUSH_KINDS, DISPLAY_KINDS, NUMERAL_KINDS, FontRef, any_cjk_font,
                                covers, default_font, find_font, latin_font)

SUPERSAMPLE = 4
RGB = tuple[int, int, int]

OUTLINE_KINDS = ("edged", "hollow", "lined")
"""How a style may outline its marks (``Scheme.outline``; ``outline_marks``): ``edged``, each mark's own edge in a
darker rim and its inside in its ink (enamelled and engraved sets, many digital tilesets); ``hollow``, only each
mark's edge, in its ink, the tile showing inside; ``lined``, a rim drawn round the outside of each mark."""

NUMERALS = "一二三四五六七八九"
WINDS = "東南西北"
FLOWERS = "梅蘭菊竹"
SEASONS = "春夏秋冬"
WIND_LETTERS = "ESWN"
_FALLBACK_TEXT = {"四": "4", "五": "5", "伍": "5", "六": "6", "七": "7", "八": "8", "九": "9", "萬": "W", "万": "W",
                  "東": "E", "南": "S", "西": "W", "北": "N", "中": "C", "發": "F", "白": "P",
                  "梅": "Pl", "蘭": "Or", "菊": "Ch", "竹": "Bm", "春": "Sp", "夏": "Su", "秋": "Au", "冬": "Wi"}


@dataclass(frozen=True)
class Palette:
    """The inks of one style."""

    red: RGB = (196, 30, 36)
    green: RGB = (18, 120, 60)
    blue: RGB = (28, 56, 150)
    black: RGB = (25, 25, 28)
    numeral: RGB = (25, 25, 28)  # the numeral of a characters tile
    wan: RGB = (196, 30, 36)  # 萬
    wind: RGB = (25, 25, 28)
    flower: RGB = (190, 40, 60)
    season: RGB = (28, 56, 150)
    frame: RGB = (28, 56, 150)  # White dragon's frame, bonus tiles' frame
    index: RGB = (196, 30, 36)  # corner indices
    bird: tuple[RGB, RGB, RGB] = ((18, 120, 60), (196, 30, 36), (28, 56, 150))
    branch: RGB = (110, 70, 40)


@dataclass(frozen=True)
class Scheme:
    """How one painted style looks (see the module docstring)."""

    name: str
    seed: int
    font: str = "serif"  # a font kind of datasets/art/fonts.py
    weight: int = 0  # extra stroke weight, in supersampled pixels (a max filter of this size)
    tall: float = 1.0  # glyph aspect factor: below 1 draws characters narrower and taller
    index_font: str = "latin"
    palette: Palette = field(default_factory=Palette)
    dots: str = "rings"  # rings | flower | coin | solid
    sticks: str = "segmented"  # segmented | bars | reeds
    bird: str = "sparrow"  # sparrow | peacock | stick (the 1s as one big bamboo stick, as some sets draw it)
    one_stick: tuple[str, float, float] = ("green", 0.16, 0.62)  # bird "stick": its ink, width and length shares
    white: str = "frame"  # blank | frame | double | char
    white_inset: float = 0.13  # double frame: the inner frame's inset, a share of the face's width
    white_line: float = 1.0  # the White dragon's frame line, times the usual width
    index: str | None = None  # None | "tl" | "tr": corner indices on suits, winds and dragons
    bonus: str = "char"  # char | picture
    bonus_numeral: str = "arabic"  # arabic | chinese | none: the seat number on flowers and seasons
    bonus_frame: bool = True
    border: bool = False  # a thin printed line round the face
    spread: float = 1.0  # how far dots and sticks stand from the face's centre
    size: float = 1.0  # how big dots and sticks are
    five: str = "五"
    wan: str = "萬"
    back: tuple | None = None  # None | ("plain", rgb) | ("lattice", rgb, rgb) | ("stripes", rgb, rgb) | ("emblem", rgb, rgb)
    brush: str | None = None  # None | a brush font kind (fonts.BRUSH_KINDS): the characters suit's numerals, 万 and
    # the flowers' and seasons' characters and Chinese numbers in a calligrapher's hand, where that font has them
    outline: tuple | None = None  # None | (kind, width, rim): every mark of the face drawn outlined (OUTLINE_KINDS;
    # width in supersampled pixels; rim an RGB, or None for each mark's own ink darkened)

    def __post_init__(self) -> None:
        ink, thickness, length = self.one_stick
        if ink not in ("green", "red", "blue", "black") or not (0 < thickness <= 1 and 0 < length <= 1):
            raise ValueError(f"one_stick must be (an ink: green, red, blue or black; a width and a length, shares of "
                             f"the face in (0, 1]), not {self.one_stick!r}")
        if self.brush is not None and self.brush not in NUMERAL_KINDS:
            raise ValueError(f"brush must be None or one of {', '.join(NUMERAL_KINDS)}, not {self.brush!r}")
        if self.outline is not None and (len(self.outline) != 3 or self.outline[0] not in OUTLINE_KINDS
                                         or not 1 <= int(self.outline[1]) <= 40):
            raise ValueError(f"outline must be None or (kind: one of {', '.join(OUTLINE_KINDS)}; a width of 1-40 "
                             f"supersampled pixels; a rim colour or None), not {self.outline!r}")

    @property
    def source(self) -> str:
        return f"procedural:{self.seed}"


# The painted styles of the bundle. Each differs from the others in font, inks and drawing, so that a
# detector learns the tiles rather than one artist's hand.
SCHEMES: tuple[Scheme, ...] = (
    Scheme("painted-classic", seed=1101, font="serif", weight=5, dots="rings", sticks="segmented", bird="sparrow",
           white="frame", index=None, bonus="char", bonus_frame=True, back=None),
    Scheme("painted-kai", seed=2202, font="kai", weight=2, tall=0.92, spread=0.95, size=0.92, dots="flower", sticks="bars", bird="peacock",
           white="double", index="tl", bonus="picture", back=("lattice", (24, 92, 62), (70, 150, 110)),
           palette=Palette(numeral=(28, 40, 120), wan=(180, 24, 30), wind=(28, 40, 120), index=(28, 40, 120),
                           green=(10, 110, 70), blue=(30, 50, 140), frame=(30, 50, 140))),
    Scheme("painted-ming", seed=3303, font="ming", weight=7, tall=0.85, dots="coin", sticks="segmented",
           bird="sparrow", white="blank", index=None, bonus="picture", bonus_numeral="chinese", five="伍",
           back=("plain", (214, 120, 30)),
           palette=Palette(red=(170, 20, 40), green=(0, 100, 90), blue=(20, 40, 110), numeral=(20, 40, 110),
                           wan=(170, 20, 40), wind=(20, 20, 20), flower=(170, 20, 40), season=(0, 100, 90),
                           frame=(20, 40, 110), bird=((0, 100, 90), (170, 20, 40), (20, 40, 110)))),
    Scheme("painted-sans", seed=4404, font="sans-bold", weight=0, spread=1.03, size=1.08, dots="solid", sticks="bars", bird="sparrow",
           white="frame", index="tr", index_font="latin-bold", bonus="char", bonus_frame=False, back=None,
           palette=Palette(red=(220, 40, 40), green=(30, 150, 70), blue=(40, 90, 200), numeral=(20, 20, 20),
                           wan=(220, 40, 40), wind=(20, 20, 20), flower=(220, 40, 40), season=(40, 90, 200),
                           frame=(40, 90, 200), index=(20, 20, 20),
                           bird=((30, 150, 70), (220, 40, 40), (40, 90, 200)))),
    Scheme("painted-hei", seed=5505, font="hei", weight=3, tall=0.9, spread=0.93, size=0.95, dots="rings", sticks="reeds", bird="peacock",
           white="char", index="tl", bonus="picture", bonus_frame=False, border=True, wan="万",
           back=("stripes", (30, 60, 130), (70, 110, 190)),
           palette=Palette(red=(150, 30, 30), green=(40, 90, 40), blue=(40, 60, 90), black=(50, 40, 30),
                           numeral=(50, 40, 30), wan=(150, 30, 30), wind=(40, 60, 90), flower=(150, 30, 30),
                           season=(40, 90, 40), frame=(40, 60, 90), index=(150, 30, 30),
                           bird=((40, 90, 40), (150, 30, 30), (40, 60, 90)), branch=(90, 70, 50))),
    Scheme("painted-serif-bold", seed=6606, font="serif-bold", weight=0, tall=0.95, spread=0.97, size=1.05, dots="coin", sticks="reeds",
           bird="peacock", white="double", index="tr", index_font="latin-serif", bonus="char",
           bonus_numeral="chinese", border=False, back=("emblem", (150, 30, 40), (230, 180, 90)),
           palette=Palette(red=(150, 25, 45), green=(0, 110, 110), blue=(35, 40, 110), numeral=(35, 40, 110),
                           wan=(150, 25, 45), wind=(0, 80, 80), flower=(150, 25, 45), season=(0, 110, 110),
                           frame=(0, 110, 110), index=(150, 25, 45),
                           bird=((0, 110, 110), (150, 25, 45), (35, 40, 110)))),
)


# Random styles (domain randomisation): a detector that has seen many inks, fonts and drawings learns what
# tells the tiles apart rather than one set's look, and so reads a set it has never seen.
FONT_KINDS = ("serif", "serif-bold", "sans", "sans-bold", "kai", "ming", "hei")
INDEX_FONT_KINDS = ("latin", "latin-bold", "latin-serif")
RANDOM_PREFIX = "painted-random-"


def _dark_ink(rng: random.Random, hue: float | None = None) -> RGB:
    """A saturated ink dark enough to read on an ivory face, of ``hue`` (0..1) or a random one."""
    import colorsys

    hue = rng.random() if hue is None else hue % 1.0
    r, g, b = colorsys.hsv_to_rgb(hue, rng.uniform(0.55, 1.0), rng.uniform(0.3, 0.75))
    return int(r * 255), int(g * 255), int(b * 255)


def _random_palette(rng: random.Random) -> Palette:
    """Inks as sets print them (red, green, blue, near black), moved a little; or every ink of a random hue;
    or one ink for everything."""
    kind = rng.choices(("classic", "hues", "mono"), weights=(0.55, 0.3, 0.15))[0]
    if kind == "mono":
        ink = _dark_ink(rng)
        red = green = blue = black = ink
    elif kind == "hues":
        red, green, blue, black = (_dark_ink(rng) for _ in range(4))
    else:
        red = _dark_ink(rng, rng.uniform(-0.04, 0.04))
        green = _dark_ink(rng, rng.uniform(0.28, 0.5))
        blue = _dark_ink(rng, rng.uniform(0.55, 0.7))
        black = tuple(rng.randint(10, 70) for _ in range(3))
    pick = lambda: rng.choice((red, green, blue, black))  # noqa: E731
    return Palette(red=red, green=green, blue=blue, black=black, numeral=rng.choice((black, blue, green, red)),
                   wan=rng.choice((red, red, black, blue)), wind=rng.choice((black, black, blue, green)),
                   flower=pick(), season=pick(), frame=pick(), index=pick(), bird=(green, red, blue),
                   branch=tuple(rng.randint(60, 140) for _ in range(3)))


# Generation 2 adds options real sets have and generation 1 never drew: flowers and seasons without a seat
# number (only the character or picture tells them apart), the 1s as one big stick, White frames of other
# weights and insets. Generation 3 (stop 23) draws the 1s as one stick more often, and that stick in any of the
# suit's inks, as thin as the other bamboo sticks or twice as wide, short or face-long: real sets print it every
# way. Generation 4 (stop 27) writes the characters suit's numerals (and 万, the flowers' and seasons' characters)
# in a calligrapher's hand four times in five: cursive, running or brush regular script (fonts.BRUSH_KINDS), as many
# real sets do; no earlier style wrote a cursive 二 or 七. Earlier generations stay as they were, so that older
# recipes paint the same styles. Generation 5 (stop 30) keeps generation 4's brush in half its styles and writes
# the other half's numerals in a printed display face instead (fonts.DISPLAY_KINDS): the held-out style's numerals,
# and real sets', are printed in faces no earlier style used. Generation 6 (stop 48) draws generation 5's style and
# then, in four styles of five, outlines every mark of the face (OUTLINE_KINDS): no earlier style drew a stroke's
# edge apart from its inside, and a classifier that has only seen solid ink reads an outlined 二 or 五 by its edges.
RANDOM_GENERATIONS = (1, 2, 3, 4, 5, 6)
RANDOM_PREFIXES = {1: RANDOM_PREFIX, 2: f"{RANDOM_PREFIX}g2-", 3: f"{RANDOM_PREFIX}g3-", 4: f"{RANDOM_PREFIX}g4-",
                   5: f"{RANDOM_PREFIX}g5-", 6: f"{RANDOM_PREFIX}g6-"}


def random_style_name(seed: int, generation: int = 1) -> str:
    """``painted-random-<seed>`` (generation 1), or ``painted-random-gN-<seed>`` (generation N from 2)."""
    if generation not in RANDOM_PREFIXES:
        raise ValueError(f"The random style generation must be one of {RANDOM_GENERATIONS}, not {generation}.")
    return f"{RANDOM_PREFIXES[generation]}{seed}"


def random_scheme(seed: int, generation: int = 1) -> Scheme:
    """A style drawn at random from every option the painter has (named by ``random_style_name``).

    Generation 2 draws the same style as generation 1 and then its own extra options, from the same stream;
    generation 3 draws generation 2's style and then its 1s; generation 4 draws generation 3's and then its brush;
    generation 5 draws generation 4's and then, in half its styles, a display face in the brush's place;
    generation 6 draws generation 5's and then, in four styles of five, an outline for every mark.

    >>> random_scheme(7, 3).bird in ("sparrow", "peacock", "stick"), random_scheme(7, 2).one_stick
    (True, ('green', 0.16, 0.62))
    >>> random_scheme(1200, 4).brush, random_scheme(1200, 3).brush
    ('brush-cursive', None)
    >>> random_scheme(1600, 6).brush == random_scheme(1600, 5).brush, random_scheme(1600, 5).outline
    (True, None)
    """
    name = random_style_name(seed, generation)
    rng = random.Random(f"random-scheme:{seed}")
    back_kind = rng.choice((None, "plain", "lattice", "stripes", "emblem"))
    back = None
    if back_kind == "plain":
        back = ("plain", _dark_ink(rng))
    elif back_kind:
        base = _dark_ink(rng)
        back = (back_kind, base, tuple(min(255, c + rng.randint(40, 120)) for c in base))
    scheme = Scheme(
        name, seed=seed, font=rng.choice(FONT_KINDS), weight=rng.randint(0, 7),
        tall=rng.uniform(0.82, 1.0), index_font=rng.choice(INDEX_FONT_KINDS), palette=_random_palette(rng),
        dots=rng.choice(("rings", "flower", "coin", "solid")), sticks=rng.choice(("segmented", "bars", "reeds")),
        bird=rng.choice(("sparrow", "peacock")), white=rng.choice(("blank", "frame", "double", "char")),
        index=rng.choice((None, None, "tl", "tr")), bonus=rng.choice(("char", "picture")),
        bonus_numeral=rng.choice(("arabic", "chinese")), bonus_frame=rng.random() < 0.5, border=rng.random() < 0.3,
        spread=rng.uniform(0.9, 1.05), size=rng.uniform(0.88, 1.1), five=rng.choice(("五", "伍")),
        wan=rng.choice(("萬", "萬", "万")), back=back)
    if generation == 1:
        return scheme
    scheme = replace(scheme, bonus_numeral=rng.choice((scheme.bonus_numeral, "none")),
                     bird=scheme.bird if rng.random() < 0.65 else "stick",
                     white_inset=rng.uniform(0.08, 0.3), white_line=rng.uniform(0.6, 1.7))
    if generation == 2:
        return scheme
    scheme = replace(scheme, bird=scheme.bird if rng.random() < 0.4 else "stick",
                     one_stick=(rng.choice(("green", "red", "blue")), rng.uniform(0.07, 0.2), rng.uniform(0.45, 0.85)))
    if generation == 3:
        return scheme
    scheme = replace(scheme, brush=None if rng.random() < 0.2 else rng.choice(BRUSH_KINDS))
    if generation == 4:
        return scheme
    scheme = replace(scheme, brush=scheme.brush if rng.random() < 0.5 else rng.choice(DISPLAY_KINDS))
    if generation == 5:
        return scheme
    if rng.random() < 0.2:
        return scheme
    kind = rng.choice(OUTLINE_KINDS)
    rim = None if kind == "hollow" or rng.random() < 0.5 else _dark_ink(rng)
    return replace(scheme, outline=(kind, rng.randint(3, 10), rim))


def _jitter(rng: random.Random, colour: RGB, amount: int = 10) -> RGB:
    return tuple(max(0, min(255, c + rng.randint(-amount, amount))) for c in colour)  # type: ignore[return-value]


class FacePainter:
    """Paints the faces of one scheme at ``face_size`` (width, height)."""

    def __init__(self, scheme: Scheme, face_size: tuple[int, int] = DEFAULT_FACE_SIZE):
        self.scheme = scheme
        self.face_size = face_size
        self.W = face_size[0] * SUPERSAMPLE
        self.H = face_size[1] * SUPERSAMPLE
        rng = random.Random(scheme.seed)
        p = scheme.palette
        # The same inks, shifted a little per style seed: no two styles share exact colours.
        self.palette = replace(p, **{name: _jitter(rng, getattr(p, name)) for name in
                                     ("red", "green", "blue", "black", "numeral", "wan", "wind", "flower",
                                      "season", "frame", "index", "branch")})

    # -------------------------------------------------------------------------------------- fonts

    @cached_property
    def font(self) -> FontRef | None:
        return find_font(self.scheme.font) or any_cjk_font()

    @cached_property
    def index_font(self) -> FontRef | None:
        return latin_font(self.scheme.index_font)

    @cached_property
    def brush_font(self) -> FontRef | None:
        """The scheme's brush font, or None (no brush, or its font not installed: the style's font writes all)."""
        return None if self.scheme.brush is None else find_font(self.scheme.brush, BRUSH_CHARACTERS)

    def _brushed(self, text: str) -> FontRef | None:
        """The font for ``text`` where the scheme writes it by brush: the brush font when it has every character
        of ``text``, else the style's own font."""
        brush = self.brush_font
        return brush if brush is not None and covers(brush, text) else self.font

    @property
    def uses_fallback(self) -> bool:
        """True when no CJK font is installed and characters are drawn with shapes and Latin letters."""
        return self.font is None

    # ------------------------------------------------------------------------------------ public

    def paint(self, code: str) -> np.ndarray:
        """One face as an RGBA uint8 array of ``face_size`` (height x width x 4)."""
        if code not in CODES:
            raise ValueError(f"'{code}' is not a tile code with a face.")
        self.rng = random.Random(f"{self.scheme.seed}:{code}")
        self.img = Image.new("RGBA", (self.W, self.H), (0, 0, 0, 0))
        self.draw = ImageDraw.Draw(self.img)
        rank, suit = int(code[0]), code[1]
        if self.scheme.border:
            self._border()
        {"m": self._characters, "p": self._dots, "s": self._bamboo, "z": self._honour, "f": self._bonus}[suit](rank)
        layer = np.asarray(self.img)
        if self.scheme.outline is not None:
            layer = outline_marks(layer, *self.scheme.outline)
        return fit_face(layer, self.face_size)

    def paint_back(self) -> np.ndarray | None:
        """The back's pattern (opaque), or None when the style leaves the back to the renderer."""
        if self.scheme.back is None:
            return None
        self.rng = random.Random(f"{self.scheme.seed}:back")
        kind, base, *rest = self.scheme.back
        line = rest[0] if rest else base
        array = np.zeros((self.H, self.W, 4), np.float32)
        shade = np.linspace(1.06, 0.94, self.H)[:, None, None]
        array[..., :3] = np.clip(np.array(base, np.float32)[None, None, :] * shade, 0, 255)
        array[..., 3] = 255
        self.img = Image.fromarray(array.astype(np.uint8), "RGBA")
        self.draw = ImageDraw.Draw(self.img)
        W, H = self.W, self.H
        if kind == "lattice":
            step = W // 5
            width = max(2, W // 90)
            for k in range(-H // step - 2, W // step + H // step + 3):
                self.draw.line([(k * step, 0), (k * step + H, H)], fill=line + (255,), width=width)
                self.draw.line([(k * step, 0), (k * step - H, H)], fill=line + (255,), width=width)
        elif kind == "stripes":
            for k in range(1, 6):
                x = k * W / 6
                self.draw.line([(x, 0), (x, H)], fill=line + (255,), width=max(2, W // 60))
            for k in range(1, 4):
                y = k * H / 4
                self.draw.line([(0, y), (W, y)], fill=line + (255,), width=max(2, W // 120))
        elif kind == "emblem":
            cx, cy, r = W / 2, H / 2, W * 0.3
            self._ring(cx, cy, r, r * 0.12, line)
            for k in range(8):
                a = k * math.pi / 4
                self._disc(cx + 0.55 * r * math.cos(a), cy + 0.55 * r * math.sin(a), r * 0.16, line)
            self._disc(cx, cy, r * 0.2, line)
        return fit_face(np.asarray(self.img), self.face_size)

    def faces(self) -> dict[str, np.ndarray]:
        return {code: self.paint(code) for code in CODES}

    # ------------------------------------------------------------------------------------- layout

    def _content(self, corner_index: bool = False) -> tuple[float, float, float, float]:
        """The box (x0, y0, x1, y1) the picture of a suit tile fills, in supersampled pixels."""
        mx, my = 0.09 * self.W, 0.065 * self.H
        x0, y0, x1, y1 = mx, my, self.W - mx, self.H - my
        if corner_index and self.scheme.index:
            y0 += 0.075 * self.H
        return x0, y0, x1, y1

    @staticmethod
    def _at(box, u: float, v: float) -> tuple[float, float]:
        x0, y0, x1, y1 = box
        return x0 + u * (x1 - x0), y0 + v * (y1 - y0)

    def _spread(self, box, u: float, v: float) -> tuple[float, float]:
        """A layout point, moved towards or away from the centre by the scheme's spread."""
        k = self.scheme.spread
        return self._at(box, 0.5 + (u - 0.5) * k, 0.5 + (v - 0.5) * k)

    # ------------------------------------------------------------------------------------ shapes

    def _disc(self, cx, cy, r, colour, alpha=255):
        self.draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=tuple(colour) + (alpha,))

    def _erase_disc(self, cx, cy, r):
        self.draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=(0, 0, 0, 0))

    def _ring(self, cx, cy, r, width, colour):
        self.draw.ellipse([cx - r, cy - r, cx + r, cy + r], outline=tuple(colour) + (255,), width=max(1, int(width)))

    def _border(self):
        inset = 0.035 * self.W
        self.draw.rounded_rectangle([inset, inset, self.W - inset, self.H - inset], radius=0.06 * self.W,
                                    outline=self.palette.frame + (255,), width=max(2, int(0.012 * self.W)))

    # ------------------------------------------------------------------------------------ glyphs

    def _glyph_mask(self, text: str, font: FontRef | None, fallback_ok: bool = True) -> Image.Image:
        """The ink of ``text`` as an 'L' image cropped to its ink."""
        size = 256
        if font is None:
            if text in ("一", "二", "三"):
                return self._bars_mask(NUMERALS.index(text) + 1)
            text = "".join(_FALLBACK_TEXT.get(ch, ch) for ch in text)
            pil_font = default_font(size)
        else:
            pil_font = font.load(size)
        box = pil_font.getbbox(text)
        width, height = max(1, box[2] - box[0] + 8), max(1, box[3] - box[1] + 8)
        mask = Image.new("L", (width, height))
        ImageDraw.Draw(mask).text((4 - box[0], 4 - box[1]), text, font=pil_font, fill=255)
        bbox = mask.getbbox()
        return mask.crop(bbox) if bbox else mask

    @staticmethod
    def _bars_mask(count: int) -> Image.Image:
        mask = Image.new("L", (200, 60 * count))
        draw = ImageDraw.Draw(mask)
        for k in range(count):
            draw.rounded_rectangle([0, k * 60 + 18, 199, k * 60 + 42], radius=10, fill=255)
        return mask

    def _text(self, text: str, box, colour: RGB, *, font: FontRef | None = None, tall: float | None = None,
              weight: int | None = None, anchor: str = "centre") -> None:
        """Write ``text`` as large as fits in ``box`` (x0, y0, x1, y1), centred (or anchored to a side)."""
        font = self.font if font is None else font
        mask = self._glyph_mask(text, font)
        tall = self.scheme.tall if tall is None else tall
        x0, y0, x1, y1 = box
        gw, gh = mask.size[0] * tall, mask.size[1]
        scale = min((x1 - x0) / gw, (y1 - y0) / gh)
        tw, th = max(1, int(round(gw * scale))), max(1, int(round(gh * scale)))
        mask = mask.resize((tw, th), Image.LANCZOS)
        weight = self.scheme.weight if weight is None else weight
        if weight > 0:
            size = weight if weight % 2 == 1 else weight + 1
            pad = size
            padded = Image.new("L", (tw + 2 * pad, th + 2 * pad))
            padded.paste(mask, (pad, pad))
            mask = padded.filter(ImageFilter.MaxFilter(size))
            offset = pad
        else:
            offset = 0
        if anchor == "left":
            x = x0
        elif anchor == "right":
            x = x1 - tw
        else:
            x = (x0 + x1 - tw) / 2
        y = (y0 + y1 - th) / 2
        layer = Image.new("RGBA", mask.size, tuple(colour) + (0,))
        layer.putalpha(mask)
        self.img.alpha_composite(layer, (int(round(x)) - offset, int(round(y)) - offset))

    def _index(self, label: str, colour: RGB | None = None) -> None:
        """A small corner index (digit or letter), where the scheme prints one."""
        if not self.scheme.index or not label:
            return
        h = 0.12 * self.H
        w = 0.2 * self.W * max(1, len(label))
        mx, my = 0.06 * self.W, 0.035 * self.H
        if self.scheme.index == "tl":
            box = (mx, my, mx + w, my + h)
            anchor = "left"
        else:
            box = (self.W - mx - w, my, self.W - mx, my + h)
            anchor = "right"
        font = self.index_font
        self._text(label, box, colour or self.palette.index, font=font, tall=1.0,
                   weight=0 if font is not None else 2, anchor=anchor)

    # ------------------------------------------------------------------------------------ suits

    def _characters(self, rank: int) -> None:
        p = self.palette
        x0, y0, x1, y1 = self._content(corner_index=True)
        numeral = self.scheme.five if rank == 5 else NUMERALS[rank - 1]
        split = y0 + 0.40 * (y1 - y0)
        width = x1 - x0
        inset = 0.2 if rank == 1 else 0.1  # 一 is flat: keep it from growing as wide as the tile
        numeral_box = (x0 + inset * width, y0 + 0.02 * (y1 - y0), x1 - inset * width, split - 0.03 * (y1 - y0))
        self._text(numeral, numeral_box, p.numeral, font=self._brushed(numeral))
        self._text(self.scheme.wan, (x0 + 0.04 * width, split + 0.02 * (y1 - y0), x1 - 0.04 * width, y1), p.wan,
                   font=self._brushed(self.scheme.wan))
        self._index(str(rank))

    _DOT_LAYOUT = {
        2: [(0.5, 0.25), (0.5, 0.75)],
        3: [(0.2, 0.16), (0.5, 0.5), (0.8, 0.84)],
        4: [(0.27, 0.26), (0.73, 0.26), (0.27, 0.74), (0.73, 0.74)],
        5: [(0.24, 0.22), (0.76, 0.22), (0.5, 0.5), (0.24, 0.78), (0.76, 0.78)],
        6: [(0.27, 0.16), (0.73, 0.16), (0.27, 0.55), (0.73, 0.55), (0.27, 0.86), (0.73, 0.86)],
        7: [(0.16, 0.1), (0.5, 0.22), (0.84, 0.34), (0.27, 0.62), (0.73, 0.62), (0.27, 0.89), (0.73, 0.89)],
        8: [(0.27, 0.11), (0.73, 0.11), (0.27, 0.37), (0.73, 0.37), (0.27, 0.63), (0.73, 0.63), (0.27, 0.89),
            (0.73, 0.89)],
        9: [(u, v) for v in (0.15, 0.5, 0.85) for u in (0.17, 0.5, 0.83)],
    }
    _DOT_RADIUS = {2: 0.2, 3: 0.17, 4: 0.2, 5: 0.17, 6: 0.16, 7: 0.13, 8: 0.13, 9: 0.145}

    def _dot_colours(self, rank: int) -> list[RGB]:
        r, g, b = self.palette.red, self.palette.green, self.palette.blue
        return {2: [g, b], 3: [b, r, g], 4: [b, g, g, b], 5: [b, g, r, g, b], 6: [g, g, r, r, r, r],
                7: [g, g, g, r, r, r, r], 8: [b] * 8, 9: [g, g, g, r, r, r, b, b, b]}[rank]

    def _dot(self, cx, cy, r, colour, accent):
        style = self.scheme.dots
        if style == "rings":
            self._disc(cx, cy, r, colour)
            self._erase_disc(cx, cy, 0.8 * r)
            self._disc(cx, cy, 0.64 * r, colour)
            self._erase_disc(cx, cy, 0.44 * r)
            self._disc(cx, cy, 0.26 * r, colour)
        elif style == "flower":
            self._disc(cx, cy, r, colour)
            self._erase_disc(cx, cy, 0.82 * r)
            for k in range(8):
                a = k * math.pi / 4
                self._disc(cx + 0.5 * r * math.cos(a), cy + 0.5 * r * math.sin(a), 0.19 * r, colour)
            self._disc(cx, cy, 0.22 * r, accent)
        elif style == "coin":
            self._disc(cx, cy, r, colour)
            self._erase_disc(cx, cy, 0.84 * r)
            self._disc(cx, cy, 0.72 * r, colour)
            h = 0.24 * r
            self.draw.rectangle([cx - h, cy - h, cx + h, cy + h], fill=(0, 0, 0, 0))
            for k in range(4):
                a = math.pi / 4 + k * math.pi / 2
                self._erase_disc(cx + 0.5 * r * math.cos(a), cy + 0.5 * r * math.sin(a), 0.07 * r)
        else:  # solid
            self._disc(cx, cy, r, colour)
            self._erase_disc(cx, cy, 0.7 * r)
            self._disc(cx, cy, 0.58 * r, colour)
            self._erase_disc(cx, cy, 0.14 * r)

    def _dots(self, rank: int) -> None:
        box = self._content(corner_index=True)
        x0, y0, x1, y1 = box
        width = x1 - x0
        p = self.palette
        if rank == 1:
            cx, cy = self._at(box, 0.5, 0.5)
            r = 0.46 * width
            self._disc(cx, cy, r, p.blue)
            self._erase_disc(cx, cy, 0.9 * r)
            for k in range(16):
                a = k * math.pi / 8
                self._disc(cx + 0.76 * r * math.cos(a), cy + 0.76 * r * math.sin(a), 0.1 * r, p.green)
            self._disc(cx, cy, 0.58 * r, p.red)
            self._erase_disc(cx, cy, 0.48 * r)
            self._dot(cx, cy, 0.4 * r, p.green, p.red)
        else:
            colours = self._dot_colours(rank)
            r = self._DOT_RADIUS[rank] * width * self.scheme.size
            for (u, v), colour in zip(self._DOT_LAYOUT[rank], colours):
                cx, cy = self._spread(box, u, v)
                self._dot(cx, cy, r, colour, p.red if colour != p.red else p.blue)
        self._index(str(rank))

    def _stick(self, cx, cy, length, width, colour, angle=0.0):
        """One bamboo stick centred at (cx, cy), ``angle`` degrees from upright."""
        pad = int(width)
        w, h = int(width) + 2 * pad, int(length) + 2 * pad
        layer = Image.new("RGBA", (w, h), (0, 0, 0, 0))
        d = ImageDraw.Draw(layer)
        c = tuple(colour) + (255,)
        clear = (0, 0, 0, 0)
        left, top, right, bottom = pad, pad, pad + width, pad + length
        style = self.scheme.sticks
        if style == "segmented":
            d.rounded_rectangle([left, top, right, bottom], radius=width * 0.35, fill=c)
            inner = width * 0.24
            d.rectangle([left + inner, top + length * 0.1, right - inner, bottom - length * 0.1], fill=clear)
            for t in (0.0, 0.5, 1.0):
                y = top + t * length
                band = length * 0.06
                d.rounded_rectangle([left - width * 0.18, y - band, right + width * 0.18, y + band],
                                    radius=band * 0.8, fill=c)
        elif style == "bars":
            d.rounded_rectangle([left, top, right, bottom], radius=width * 0.5, fill=c)
            for t in (1 / 3, 2 / 3):
                y = top + t * length
                d.line([(left, y), (right, y)], fill=clear, width=max(1, int(width * 0.14)))
            d.line([(left + width * 0.3, top + width * 0.6), (left + width * 0.3, bottom - width * 0.6)],
                   fill=clear, width=max(1, int(width * 0.12)))
        else:  # reeds: waisted sticks, wider at the ends and the middle node
            points = []
            n = 24
            for k in range(n + 1):
                t = k / n
                bulge = 0.32 + 0.18 * abs(math.cos(2 * math.pi * t))
                points.append((pad + width / 2 + bulge * width, top + t * length))
            for k in range(n, -1, -1):
                t = k / n
                bulge = 0.32 + 0.18 * abs(math.cos(2 * math.pi * t))
                points.append((pad + width / 2 - bulge * width, top + t * length))
            d.polygon(points, fill=c)
            d.line([(pad + width / 2, top + length * 0.08), (pad + width / 2, bottom - length * 0.08)],
                   fill=clear, width=max(1, int(width * 0.12)))
        if angle:
            layer = layer.rotate(angle, resample=Image.BICUBIC, expand=True)
        self.img.alpha_composite(layer, (int(round(cx - layer.size[0] / 2)), int(round(cy - layer.size[1] / 2))))

    _STICK_LAYOUT = {
        2: ([(0.5, 0.25), (0.5, 0.75)], 0.4),
        3: ([(0.5, 0.25), (0.3, 0.75), (0.7, 0.75)], 0.4),
        4: ([(0.3, 0.25), (0.7, 0.25), (0.3, 0.75), (0.7, 0.75)], 0.4),
        5: ([(0.2, 0.25), (0.8, 0.25), (0.5, 0.5), (0.2, 0.75), (0.8, 0.75)], 0.4),
        6: ([(u, v) for v in (0.25, 0.75) for u in (0.2, 0.5, 0.8)], 0.4),
        7: ([(0.5, 0.16)] + [(u, v) for v in (0.5, 0.84) for u in (0.2, 0.5, 0.8)], 0.28),
        9: ([(u, v) for v in (0.16, 0.5, 0.84) for u in (0.2, 0.5, 0.8)], 0.28),
    }

    def _stick_colour(self, rank: int, k: int) -> RGB:
        p = self.palette
        if (rank == 5 and k == 2) or (rank == 7 and k == 0) or (rank == 9 and k % 3 == 1):
            return p.red
        if rank in (4, 6, 9) and self.scheme.sticks != "bars" and k % 2 == 1 and rank != 9:
            return p.blue
        return p.green

    def _bamboo(self, rank: int) -> None:
        box = self._content(corner_index=True)
        x0, y0, x1, y1 = box
        width, height = x1 - x0, y1 - y0
        if rank == 1 and self.scheme.bird == "stick":
            cx, cy = self._spread(box, 0.5, 0.5)
            ink, thickness, length = self.scheme.one_stick
            self._stick(cx, cy, length * height * self.scheme.size, thickness * width * self.scheme.size,
                        getattr(self.palette, ink))
        elif rank == 1:
            self._bird(box)
        elif rank == 8:
            length, stick = 0.4 * height * self.scheme.size, 0.11 * width * self.scheme.size
            slant = math.degrees(math.atan2(0.2 * width, length))
            for v, flip in ((0.25, 1), (0.75, -1)):
                for u, angle in ((0.14, 0), (0.38, slant * flip), (0.62, -slant * flip), (0.86, 0)):
                    cx, cy = self._spread(box, u, v)
                    self._stick(cx, cy, length, stick, self.palette.green, angle)
        else:
            centres, length = self._STICK_LAYOUT[rank]
            stick = (0.12 if rank <= 6 else 0.11) * width * self.scheme.size
            for k, (u, v) in enumerate(centres):
                cx, cy = self._spread(box, u, v)
                self._stick(cx, cy, length * height * self.scheme.size, stick, self._stick_colour(rank, k))
        self._index(str(rank))

    def _bird(self, box) -> None:
        """The 1s bird: a sparrow on a branch, or a peacock with a fanned tail."""
        p = self.palette
        body, wing, head = p.bird
        x0, y0, x1, y1 = box
        w, h = x1 - x0, y1 - y0

        def at(u, v):
            return x0 + u * w, y0 + v * h

        if self.scheme.bird == "peacock":
            base = at(0.5, 0.78)
            for k in range(7):
                a = math.radians(-150 + k * 20)
                tip = (base[0] + 0.5 * w * math.cos(a), base[1] + 0.55 * h * math.sin(a))
                self.draw.line([base, tip], fill=body + (255,), width=max(2, int(0.025 * w)))
                self._disc(tip[0], tip[1], 0.085 * w, body)
                self._disc(tip[0], tip[1], 0.055 * w, wing)
                self._disc(tip[0], tip[1], 0.025 * w, head)
            bx, by = at(0.5, 0.72)
            self.draw.ellipse([bx - 0.13 * w, by - 0.12 * h, bx + 0.13 * w, by + 0.12 * h], fill=head + (255,))
            self.draw.polygon([at(0.47, 0.64), at(0.55, 0.64), at(0.6, 0.42), at(0.54, 0.42)], fill=head + (255,))
            hx, hy = at(0.58, 0.4)
            self._disc(hx, hy, 0.065 * w, head)
            self._erase_disc(hx + 0.02 * w, hy - 0.01 * h, 0.018 * w)
            self.draw.polygon([at(0.63, 0.385), at(0.74, 0.41), at(0.63, 0.425)], fill=wing + (255,))
            for k in range(3):
                cx = hx - 0.03 * w + k * 0.03 * w
                self.draw.line([(cx, hy - 0.04 * h), (cx - 0.01 * w, hy - 0.09 * h)], fill=head + (255,),
                               width=max(1, int(0.012 * w)))
                self._disc(cx - 0.01 * w, hy - 0.09 * h, 0.018 * w, wing)
            self.draw.line([at(0.45, 0.83), at(0.42, 0.95)], fill=p.branch + (255,), width=max(2, int(0.02 * w)))
            self.draw.line([at(0.55, 0.83), at(0.58, 0.95)], fill=p.branch + (255,), width=max(2, int(0.02 * w)))
        else:
            # branch with leaves
            self.draw.line([at(0.02, 0.86), at(0.98, 0.78)], fill=p.branch + (255,), width=max(3, int(0.05 * w)))
            for u in (0.15, 0.8, 0.9):
                lx, ly = at(u, 0.85)
                self.draw.ellipse([lx - 0.07 * w, ly - 0.02 * h, lx + 0.07 * w, ly + 0.035 * h], fill=p.green + (255,))
            # tail
            self.draw.polygon([at(0.3, 0.6), at(0.02, 0.28), at(0.12, 0.22), at(0.4, 0.52)], fill=wing + (255,))
            self.draw.line([at(0.33, 0.57), at(0.07, 0.25)], fill=(0, 0, 0, 0), width=max(1, int(0.012 * w)))
            # body and belly
            self.draw.ellipse([*at(0.22, 0.42), *at(0.78, 0.76)], fill=body + (255,))
            self.draw.ellipse([*at(0.42, 0.56), *at(0.76, 0.75)], fill=head + (255,))
            # wing
            self.draw.ellipse([*at(0.3, 0.47), *at(0.6, 0.64)], fill=wing + (255,))
            for k in range(3):
                a, b = at(0.34 + 0.07 * k, 0.5), at(0.4 + 0.07 * k, 0.62)
                self.draw.line([a, b], fill=(0, 0, 0, 0), width=max(1, int(0.012 * w)))
            # head, eye, beak
            hx, hy = at(0.72, 0.38)
            self._disc(hx, hy, 0.13 * w, body)
            self._erase_disc(hx + 0.04 * w, hy - 0.02 * h, 0.035 * w)
            self._disc(hx + 0.045 * w, hy - 0.02 * h, 0.018 * w, p.black)
            self.draw.polygon([(hx + 0.11 * w, hy - 0.025 * h), (hx + 0.26 * w, hy + 0.01 * h),
                               (hx + 0.11 * w, hy + 0.04 * h)], fill=head + (255,))
            # legs
            for u in (0.45, 0.56):
                self.draw.line([at(u, 0.74), at(u - 0.02, 0.83)], fill=p.branch + (255,), width=max(2, int(0.02 * w)))

    # ------------------------------------------------------------------------------------ honours

    def _honour(self, rank: int) -> None:
        p = self.palette
        box = self._content(corner_index=True)
        x0, y0, x1, y1 = box
        w, h = x1 - x0, y1 - y0
        big = (x0 + 0.02 * w, y0 + 0.06 * h, x1 - 0.02 * w, y1 - 0.06 * h)
        if rank <= 4:
            self._text(WINDS[rank - 1], big, p.wind)
            self._index(WIND_LETTERS[rank - 1])
        elif rank == 5:
            self._white(box)
        elif rank == 6:
            self._text("發", big, p.green)
            self._index("F", p.green if self.scheme.index_font != "latin" else None)
        else:
            self._text("中", big, p.red)
            self._index("C")

    def _white(self, box) -> None:
        style = self.scheme.white
        p = self.palette
        x0, y0, x1, y1 = box
        w, h = x1 - x0, y1 - y0
        if style == "blank":
            return
        if style == "char":
            self._text("白", (x0 + 0.1 * w, y0 + 0.1 * h, x1 - 0.1 * w, y1 - 0.1 * h), p.frame)
            self._index("P")
            return
        line = max(3, int(0.07 * w * self.scheme.white_line))
        outer = [x0 + 0.12 * w, y0 + 0.08 * h, x1 - 0.12 * w, y1 - 0.08 * h]
        self.draw.rectangle(outer, outline=p.frame + (255,), width=line)
        if style == "double":
            inset = self.scheme.white_inset * w
            inner = [outer[0] + inset, outer[1] + inset, outer[2] - inset, outer[3] - inset]
            self.draw.rectangle(inner, outline=p.frame + (255,), width=max(2, line // 2))
        self._index("P")

    # ------------------------------------------------------------------------------------ bonus

    def _bonus(self, rank: int) -> None:
        p = self.palette
        season = rank > 4
        seat = (rank - 1) % 4 + 1
        char = (SEASONS if season else FLOWERS)[seat - 1]
        colour = p.season if season else p.flower
        numeral = self.scheme.bonus_numeral
        number = "" if numeral == "none" else str(seat) if numeral == "arabic" else NUMERALS[seat - 1]
        number_font = self.index_font if self.scheme.bonus_numeral == "arabic" else self._brushed(number)
        x0, y0, x1, y1 = self._content()
        w, h = x1 - x0, y1 - y0
        if self.scheme.bonus_frame:
            self.draw.rounded_rectangle([x0, y0, x1, y1], radius=0.06 * w, outline=p.frame + (255,),
                                        width=max(2, int(0.025 * w)))
            x0, y0, x1, y1 = x0 + 0.06 * w, y0 + 0.05 * h, x1 - 0.06 * w, y1 - 0.05 * h
            w, h = x1 - x0, y1 - y0
        number_box = (x1 - (0.3 if number.isdigit() else 0.36) * w, y0, x1, y0 + 0.2 * h)
        if number:
            self._text(number, number_box, p.red if season else p.blue, font=number_font, tall=1.0, anchor="right",
                       weight=0 if numeral == "arabic" and number_font is not self.font else None)
        if self.scheme.bonus == "picture":
            self._text(char, (x0, y0, x0 + 0.42 * w, y0 + 0.3 * h), colour, anchor="left", font=self._brushed(char))
            picture = (x0 + 0.02 * w, y0 + 0.33 * h, x1 - 0.02 * w, y1)
            (self._season_picture if season else self._flower_picture)(seat, picture)
        elif number:
            self._text(char, (x0 + 0.08 * w, y0 + 0.24 * h, x1 - 0.08 * w, y1 - 0.06 * h), colour,
                       font=self._brushed(char))
        else:  # the character alone, as large as the face allows
            self._text(char, (x0 + 0.06 * w, y0 + 0.1 * h, x1 - 0.06 * w, y1 - 0.1 * h), colour,
                       font=self._brushed(char))

    def _blossom(self, cx, cy, r, colour, centre):
        for k in range(5):
            a = -math.pi / 2 + k * 2 * math.pi / 5
            self._disc(cx + 0.55 * r * math.cos(a), cy + 0.55 * r * math.sin(a), 0.48 * r, colour)
        self._disc(cx, cy, 0.3 * r, centre)

    def _leaf(self, base, tip, width, colour):
        (bx, by), (tx, ty) = base, tip
        mx, my = (bx + tx) / 2, (by + ty) / 2
        dx, dy = tx - bx, ty - by
        n = math.hypot(dx, dy) or 1.0
        ox, oy = -dy / n * width, dx / n * width
        self.draw.polygon([(bx, by), (mx + ox, my + oy), (tx, ty), (mx - ox, my - oy)], fill=tuple(colour) + (255,))

    def _flower_picture(self, seat: int, box) -> None:
        p = self.palette
        x0, y0, x1, y1 = box
        w, h = x1 - x0, y1 - y0

        def at(u, v):
            return x0 + u * w, y0 + v * h

        stroke = max(2, int(0.035 * w))
        if seat == 1:  # plum: a crooked branch with five-petal blossoms
            self.draw.line([at(0.1, 0.98), at(0.35, 0.6), at(0.3, 0.35), at(0.6, 0.1)], fill=p.branch + (255,),
                           width=stroke, joint="curve")
            self.draw.line([at(0.35, 0.6), at(0.8, 0.45)], fill=p.branch + (255,), width=stroke)
            for u, v, r in ((0.3, 0.35, 0.12), (0.6, 0.12, 0.1), (0.8, 0.45, 0.12), (0.5, 0.55, 0.1)):
                self._blossom(*at(u, v), r * w, p.red, (230, 200, 60))
        elif seat == 2:  # orchid: long leaves and two flowers
            for tip in ((0.05, 0.25), (0.3, 0.05), (0.75, 0.15), (0.95, 0.45)):
                self._leaf(at(0.5, 0.98), at(*tip), 0.035 * w, p.green)
            for u, v in ((0.35, 0.35), (0.68, 0.28)):
                cx, cy = at(u, v)
                for k in range(5):
                    a = k * 2 * math.pi / 5
                    self._leaf((cx, cy), (cx + 0.14 * w * math.cos(a), cy + 0.14 * w * math.sin(a)), 0.05 * w,
                               (150, 60, 150))
                self._disc(cx, cy, 0.03 * w, (230, 200, 60))
        elif seat == 3:  # chrysanthemum: a many-petalled head on a stem
            self.draw.line([at(0.5, 0.98), at(0.5, 0.45)], fill=p.green + (255,), width=stroke)
            self._leaf(at(0.5, 0.8), at(0.2, 0.65), 0.06 * w, p.green)
            self._leaf(at(0.5, 0.72), at(0.82, 0.58), 0.06 * w, p.green)
            cx, cy = at(0.5, 0.32)
            for k in range(16):
                a = k * 2 * math.pi / 16
                self._leaf((cx, cy), (cx + 0.3 * w * math.cos(a), cy + 0.3 * w * math.sin(a)), 0.04 * w,
                           (220, 150, 20))
            self._disc(cx, cy, 0.07 * w, p.red)
        else:  # bamboo: two jointed stalks with leaves
            for u, top in ((0.38, 0.05), (0.62, 0.2)):
                self.draw.line([at(u, 0.98), at(u, top)], fill=p.green + (255,), width=int(0.07 * w))
                for v in np.linspace(top + 0.2, 0.9, 3):
                    a, b = at(u - 0.05, v), at(u + 0.05, v)
                    self.draw.line([a, b], fill=(0, 0, 0, 0), width=max(1, int(0.012 * w)))
            for base, tip in (((0.38, 0.3), (0.05, 0.15)), ((0.38, 0.45), (0.08, 0.55)), ((0.62, 0.4), (0.95, 0.3)),
                              ((0.62, 0.55), (0.92, 0.7))):
                self._leaf(at(*base), at(*tip), 0.04 * w, p.green)

    def _season_picture(self, seat: int, box) -> None:
        p = self.palette
        x0, y0, x1, y1 = box
        w, h = x1 - x0, y1 - y0

        def at(u, v):
            return x0 + u * w, y0 + v * h

        if seat == 1:  # spring: a sprouting seedling in a pot
            self.draw.polygon([at(0.25, 0.75), at(0.75, 0.75), at(0.66, 0.98), at(0.34, 0.98)], fill=p.branch + (255,))
            self.draw.line([at(0.5, 0.75), at(0.5, 0.3)], fill=p.green + (255,), width=max(2, int(0.035 * w)))
            for tip, base in (((0.15, 0.35), (0.5, 0.55)), ((0.85, 0.3), (0.5, 0.45)), ((0.3, 0.1), (0.5, 0.32))):
                self._leaf(at(*base), at(*tip), 0.07 * w, p.green)
            self._blossom(*at(0.62, 0.15), 0.09 * w, p.red, (230, 200, 60))
        elif seat == 2:  # summer: the sun
            cx, cy = at(0.5, 0.5)
            for k in range(12):
                a = k * math.pi / 6
                self._leaf((cx + 0.2 * w * math.cos(a), cy + 0.2 * w * math.sin(a)),
                           (cx + 0.45 * w * math.cos(a), cy + 0.45 * w * math.sin(a)), 0.04 * w, (235, 150, 20))
            self._disc(cx, cy, 0.22 * w, p.red)
        elif seat == 3:  # autumn: a maple leaf
            cx, cy = at(0.5, 0.45)
            points = []
            for k in range(10):
                a = -math.pi / 2 + k * math.pi / 5
                r = (0.42 if k % 2 == 0 else 0.2) * w
                points.append((cx + r * math.cos(a), cy + r * math.sin(a)))
            self.draw.polygon(points, fill=(200, 90, 20, 255))
            self.draw.line([(cx, cy), at(0.5, 0.98)], fill=p.branch + (255,), width=max(2, int(0.03 * w)))
        else:  # winter: a snowflake
            cx, cy = at(0.5, 0.5)
            stroke = max(2, int(0.03 * w))
            for k in range(6):
                a = k * math.pi / 3
                end = (cx + 0.42 * w * math.cos(a), cy + 0.42 * w * math.sin(a))
                self.draw.line([(cx, cy), end], fill=p.blue + (255,), width=stroke)
                for t in (0.5, 0.75):
                    mx, my = cx + t * 0.42 * w * math.cos(a), cy + t * 0.42 * w * math.sin(a)
                    for side in (-1, 1):
                        b = a + side * math.pi / 4
                        self.draw.line([(mx, my), (mx + 0.1 * w * math.cos(b), my + 0.1 * w * math.sin(b))],
                                       fill=p.blue + (255,), width=stroke)


def outline_marks(layer: np.ndarray, kind: str, width: int, rim: RGB | None = None) -> np.ndarray:
    """An RGBA print layer with every mark outlined (``OUTLINE_KINDS``), ``width`` pixels wide; ``rim`` the rim's
    colour, or None for each mark's own ink at 0.35 of its brightness. A mark thinner than twice ``width`` is all
    rim. The marks' coverage is kept, so the face's layout is the same.

    >>> layer = np.zeros((40, 40, 4), np.uint8); layer[5:35, 5:35] = (200, 40, 40, 255)
    >>> hollow = outline_marks(layer, "hollow", 4)
    >>> int(hollow[20, 20, 3]), int(hollow[20, 6, 3]), tuple(int(v) for v in hollow[20, 6, :3])
    (0, 255, (200, 40, 40))
    >>> edged = outline_marks(layer, "edged", 4, (0, 0, 0))
    >>> tuple(int(v) for v in edged[20, 20]), tuple(int(v) for v in edged[20, 6])
    ((200, 40, 40, 255), (0, 0, 0, 255))
    >>> lined = outline_marks(layer, "lined", 3, (0, 0, 0))
    >>> int(lined[20, 3, 3]), tuple(int(v) for v in lined[20, 20])
    (255, (200, 40, 40, 255))
    """
    import cv2

    if kind not in OUTLINE_KINDS:
        raise ValueError(f"outline kind must be one of {', '.join(OUTLINE_KINDS)}, not {kind!r}")
    size = 2 * int(width) + 1
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))
    rgb = layer[..., :3].astype(np.float32)
    alpha = layer[..., 3]
    edge = rgb * 0.35 if rim is None else np.broadcast_to(np.array(rim, np.float32), rgb.shape)
    if kind == "lined":
        grown = cv2.dilate(alpha, disc).astype(np.float32) / 255
        own = alpha.astype(np.float32)[..., None] / 255
        if rim is None:  # the rim takes the ink of the mark it rings: spread the marks' darkened ink outwards
            edge = cv2.dilate(np.ascontiguousarray((edge * own).astype(np.uint8)), disc).astype(np.float32)
        out_rgb = rgb * own + edge * (1 - own)
        out_alpha = np.maximum(grown * 255, alpha)
    else:
        inner = cv2.erode(alpha, disc).astype(np.float32)[..., None] / 255
        if kind == "edged":
            out_rgb = rgb * inner + edge * (1 - inner)
            out_alpha = alpha.astype(np.float32)
        else:
            out_rgb = rgb
            out_alpha = np.clip(alpha.astype(np.float32) - inner[..., 0] * 255, 0, 255)
    return np.dstack([np.clip(out_rgb, 0, 255), out_alpha]).round().astype(np.uint8)


def paint_style(scheme: Scheme, face_size: tuple[int, int] = DEFAULT_FACE_SIZE) -> tuple[dict[str, np.ndarray], np.ndarray | None]:
    """One scheme's 42 faces (code -> RGBA array) and its back (or None)."""
    painter = FacePainter(scheme, face_size)
    return painter.faces(), painter.paint_back()
