"""A small tile-art bundle drawn in code, for tests, benchmarks and runs without the real art.

It has the interface of ``datasets.art.bundle.ArtBundle`` (``face_size``, ``styles`` with ``name``,
``source``, ``license``, ``held_out``, ``faces`` code -> RGBA uint8 HxWx4 and ``back``, and
``training_styles()`` / ``held_out_style()``). The faces are not realistic: each class gets a distinct
pattern (its suit's motif, its rank as dots or bars, and its code in large letters), which is enough
for geometry tests and speed measurements, not for training a detector.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from scorer.tiles import ALL_TILES

_SUIT_INK = {"m": (30, 30, 200), "p": (160, 90, 20), "s": (40, 140, 40), "z": (40, 40, 40), "f": (150, 40, 150)}


@dataclass
class ProceduralStyle:
    name: str
    faces: dict[str, np.ndarray]
    back: np.ndarray | None = None
    source: str = "procedural (mjscan datasets.render.procedural_art)"
    license: str = "CC0"
    held_out: bool = False


@dataclass
class ProceduralBundle:
    face_size: tuple[int, int]
    styles: list[ProceduralStyle] = field(default_factory=list)

    def training_styles(self) -> list[ProceduralStyle]:
        return [s for s in self.styles if not s.held_out]

    def held_out_style(self) -> ProceduralStyle | None:
        return next((s for s in self.styles if s.held_out), None)


def draw_face(code: str, size: tuple[int, int] = (96, 72), variant: int = 0) -> np.ndarray:
    """An RGBA face (height, width) = ``size`` for ``code``: ivory, the suit's motif, the code in ink."""
    h, w = size
    rgb = np.empty((h, w, 3), np.uint8)
    ivory = (236, 240, 244) if variant % 2 == 0 else (222, 236, 242)
    rgb[:] = ivory
    ink = _SUIT_INK[code[1]]
    rank, suit = int(code[0]), code[1]
    # the rank as a column of marks on the left, the suit as a motif on the right, the code at the bottom
    for i in range(rank):
        y = int(h * (0.1 + 0.07 * i))
        if suit == "p":
            cv2.circle(rgb, (int(w * 0.2), y + 2), max(2, h // 40), ink, -1, cv2.LINE_AA)
        else:
            cv2.rectangle(rgb, (int(w * 0.1), y), (int(w * 0.3), y + max(2, h // 60)), ink, -1)
    if suit == "s":
        cv2.line(rgb, (int(w * 0.65), int(h * 0.1)), (int(w * 0.65), int(h * 0.55)), ink, max(2, w // 12))
    elif suit == "m":
        cv2.rectangle(rgb, (int(w * 0.45), int(h * 0.12)), (int(w * 0.85), int(h * 0.5)), ink, max(1, w // 30))
    elif suit == "z":
        cv2.drawMarker(rgb, (int(w * 0.65), int(h * 0.3)), ink, cv2.MARKER_TILTED_CROSS, w // 3, max(1, w // 25))
    elif suit == "f":
        cv2.circle(rgb, (int(w * 0.65), int(h * 0.3)), w // 7, ink, max(1, w // 30), cv2.LINE_AA)
    else:
        cv2.circle(rgb, (int(w * 0.65), int(h * 0.3)), w // 6, ink, -1, cv2.LINE_AA)
    scale = w / 60
    cv2.putText(rgb, code, (int(w * 0.08), int(h * 0.9)), cv2.FONT_HERSHEY_SIMPLEX, scale, ink, max(1, int(2 * scale)),
                cv2.LINE_AA)
    alpha = np.full((h, w, 1), 255, np.uint8)
    return np.concatenate([rgb[..., ::-1], alpha], axis=2)  # drawn as BGR, stored as RGBA like the bundle


def procedural_bundle(face_size: tuple[int, int] = (96, 72), n_styles: int = 2, held_out: bool = True,
                      with_back: bool = True) -> ProceduralBundle:
    """``n_styles`` training styles (and one held-out style) with a face for each of the 42 codes."""
    styles = []
    for i in range(n_styles + (1 if held_out else 0)):
        faces = {t.code: draw_face(t.code, face_size, i) for t in ALL_TILES}
        back = None
        if with_back and i % 2 == 0:
            back = np.zeros((*face_size, 4), np.uint8)
            back[..., :3] = (30, 120, 200) if i == 0 else (200, 80, 30)
            back[..., 3] = 255
        styles.append(ProceduralStyle(name=f"procedural-{i}", faces=faces, back=back,
                                      held_out=held_out and i == n_styles))
    return ProceduralBundle(face_size=face_size, styles=styles)
