"""Small SVG helpers for cutting tile faces out of a tileset: affine transforms, rectangles, rsvg-convert.

Only what the KDE and GNOME tilesets need: ``transform`` attributes (matrix, translate, scale, rotate,
skewX, skewY), ``<rect>`` and ``<use>`` geometry, and rendering one element into an exact rectangle of the
page with ``rsvg-convert``.
"""

from __future__ import annotations

import io
import math
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET

import numpy as np
from PIL import Image

SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"
XLINK_HREF = f"{{{XLINK_NS}}}href"

ET.register_namespace("", SVG_NS)
ET.register_namespace("xlink", XLINK_NS)
for _prefix, _uri in {
    "inkscape": "http://www.inkscape.org/namespaces/inkscape",
    "sodipodi": "http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd",
    "rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    "cc": "http://creativecommons.org/ns#",
    "dc": "http://purl.org/dc/elements/1.1/",
}.items():
    ET.register_namespace(_prefix, _uri)

Affine = tuple[float, float, float, float, float, float]  # a b c d e f, as in SVG's matrix()
IDENTITY: Affine = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)

_TRANSFORM = re.compile(r"(matrix|translate|scale|rotate|skewX|skewY)\s*\(([^)]*)\)")
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def compose(first: Affine, then: Affine) -> Affine:
    """The transform applying ``then`` inside ``first`` (SVG order: ``first then`` in one attribute)."""
    a1, b1, c1, d1, e1, f1 = first
    a2, b2, c2, d2, e2, f2 = then
    return (a1 * a2 + c1 * b2, b1 * a2 + d1 * b2, a1 * c2 + c1 * d2, b1 * c2 + d1 * d2,
            a1 * e2 + c1 * f2 + e1, b1 * e2 + d1 * f2 + f1)


def parse_transform(text: str | None) -> Affine:
    """An SVG ``transform`` attribute as one affine matrix."""
    result = IDENTITY
    for name, args in _TRANSFORM.findall(text or ""):
        v = [float(x) for x in _NUMBER.findall(args)]
        if name == "matrix" and len(v) == 6:
            m = tuple(v)
        elif name == "translate":
            m = (1.0, 0.0, 0.0, 1.0, v[0] if v else 0.0, v[1] if len(v) > 1 else 0.0)
        elif name == "scale":
            sx = v[0] if v else 1.0
            m = (sx, 0.0, 0.0, v[1] if len(v) > 1 else sx, 0.0, 0.0)
        elif name == "rotate":
            t = math.radians(v[0] if v else 0.0)
            m = (math.cos(t), math.sin(t), -math.sin(t), math.cos(t), 0.0, 0.0)
            if len(v) == 3:
                m = compose(compose((1, 0, 0, 1, v[1], v[2]), m), (1, 0, 0, 1, -v[1], -v[2]))
        elif name == "skewX":
            m = (1.0, 0.0, math.tan(math.radians(v[0])), 1.0, 0.0, 0.0)
        elif name == "skewY":
            m = (1.0, math.tan(math.radians(v[0])), 0.0, 1.0, 0.0, 0.0)
        else:
            continue
        result = compose(result, m)  # type: ignore[arg-type]
    return result


def apply_to_rect(m: Affine, x: float, y: float, w: float, h: float) -> tuple[float, float, float, float]:
    """The bounding box (x0, y0, x1, y1) of a rectangle after the transform ``m``."""
    a, b, c, d, e, f = m
    xs, ys = [], []
    for px, py in ((x, y), (x + w, y), (x, y + h), (x + w, y + h)):
        xs.append(a * px + c * py + e)
        ys.append(b * px + d * py + f)
    return min(xs), min(ys), max(xs), max(ys)


def local_name(element: ET.Element) -> str:
    return element.tag.rsplit("}", 1)[-1]


def length(text: str | None, default: float = 0.0) -> float:
    if text is None:
        return default
    match = _NUMBER.match(text.strip())
    return float(match.group()) if match else default


def have_rsvg() -> bool:
    return shutil.which("rsvg-convert") is not None


def rsvg_render(svg_bytes: bytes, width: int, height: int) -> np.ndarray:
    """Render a whole SVG document to an RGBA array of exactly ``width`` x ``height`` pixels."""
    result = subprocess.run(
        ["rsvg-convert", "--format=png", f"--width={width}", f"--height={height}", "--keep-aspect-ratio"],
        input=svg_bytes, capture_output=True, check=False,
    )
    if result.returncode != 0:
        raise RuntimeError(f"rsvg-convert failed: {result.stderr.decode(errors='replace').strip()}")
    image = Image.open(io.BytesIO(result.stdout)).convert("RGBA")
    if image.size != (width, height):
        image = image.resize((width, height), Image.LANCZOS)
    return np.asarray(image).copy()
