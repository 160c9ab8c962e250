"""Each tile's face as a turned rectangle, from its axis-aligned box and its face axis, and the boxes that lie
astride two faces.

Why: the localiser's boxes are axis-aligned. In a row turned near 45 degrees two neighbours' boxes overlap
by a third of their area, and a box across the two halves (found where a half of each looks like one tile)
overlaps each of them by under a half: the final NMS at IoU 0.5 keeps it, and the hand gets a tile too many.
With each face's axis (``vision.orientation``) the faces themselves are known, and those do not overlap: a box
whose centre lies on two faces that lie side by side, next to each other, is a box astride them.

Measured (the shipped detector on 200 rendered meld scenes each; ``mjscan eval-grouping DIR --detector``): in the
training styles (seed 11) it drops 29 boxes astride two tiles and 3 boxes of a tile (boxes that cover their tile
at IoU 0.50-0.52 and a neighbour too), and hands read exactly go from 136 to 144; in the held-out style (seed 10)
22 and 4, 105 to 110. On the real val photos it drops one box (astride two tiles) and nothing else.

A face's rectangle: ``axis`` a (degrees, counter-clockwise from the photo's x axis, y pointing down) is the
direction of its "up"; its height h runs along it and its width w across. Its axis-aligned box is
W = w |sin a| + h |cos a| wide and H = w |cos a| + h |sin a| tall, which gives w and h back, except near
45 degrees, where W and H say only w + h: there the face takes the usual aspect ``ASPECT``.

>>> rect = face_rectangles(np.array([[0, 0, 30, 40.]]), np.array([90.0]))
>>> [round(float(v), 2) for v in (*rect.centres[0], *rect.ups[0], rect.half_heights[0], rect.half_widths[0])]
[15.0, 20.0, 0.0, -1.0, 20.0, 15.0]
>>> row = np.array([[0, 0, 30, 40], [30, 0, 60, 40], [60, 0, 90, 40], [15, 0, 45, 40]], dtype=float)  # the last astride
>>> drop_astride(row, np.array([0.9, 0.9, 0.9, 0.5]), np.full(4, 90.0)).tolist()
[0, 1, 2]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from vision.boxes import box_area, ioa_matrix

ASPECT = 0.75
"""A face's width over its height where its box cannot say (an axis near 45 degrees): a tile's face."""
WELL_POSED = 0.35
"""The box gives the face's width and height only where |cos 2a| reaches this (the axis more than about 10
degrees from a diagonal); nearer, and the solution blows up any error in the box."""
HOST_REACH = 1.6
"""A box's centre lies on a face when it lies within this many of the face's half sides of its centre (along and
across its axis). A box astride two faces has its centre on their shared edge, or near it where the box is
uneven (measured: up to 1.4 half widths from one face's centre); a tile's own neighbour in a row has its centre
two half widths away. On the detector's boxes of 200 rendered meld scenes in the training styles (seed 11), 1.2,
1.4, 1.6 and 1.8 drop 13, 23, 29 and 28 boxes astride two tiles, and 1, 2, 3 and 10 boxes of a tile (the first
three are boxes that cover their tile at IoU 0.50-0.52): hands read exactly 139, 141, 144 and 139 of 200 (measured
before ``NEIGHBOUR_GAP``; with it, 1.6, 1.8 and 2.0 read 144, 143 and 138)."""
MAX_ELONGATION = 3.0
"""A box more than this many times longer one way than the other is no face seen as it is: a photo squeezed or
stretched (the real photos a publisher exported stretched 5-15 times one way), whose faces' axes and shapes say
nothing. Such a box neither holds another nor is dropped. Measured on the real val photos: without this guard the
rule dropped 69 boxes (scored 0.25 or more), 67 of them in the stretched photos, 16 of those a tile's only box
(mAP50 0.9405 -> 0.9322)."""
NEIGHBOUR_GAP = 1.4
"""... and are next to each other: their centres no farther apart than this many times the distance from either to
its own nearest other tile (a tile between them puts them twice that apart). Why: a face's box holds its tile's
sides too, so in a real photo of a row at 60 degrees the faces came out half again too wide, and a tile's own
two neighbours seemed to hold its centre (it was dropped; 1.25 and 1.4 read the rendered scenes alike)."""
ROOM_BETWEEN = 1.2
"""... and leave no room for the box between them: their centres are less than this many times the box's own face
apart, measured along the line through them. A box astride two neighbours lies on their shared edge, and they lie one
face apart (measured: 0.78); a tile between two others has them two faces apart (fewer in a steep view, whose faces
come out too wide: 1.33-1.74 on the five middle tiles of steep groups of three that the rule dropped in the held-out
meld scenes until stop 35, where the outer two's nearest other tile is each other, so ``NEIGHBOUR_GAP`` took them for
neighbours; models/README.md, "Stop 35")."""
APART = 0.7
"""Two faces lie side by side (not one on the other, as a kong's fourth tile lies on the claimed one) when
neither's centre lies within this many of the other's half sides."""


@dataclass(frozen=True)
class FaceRectangles:
    """Faces as turned rectangles, one row a box: centre (x, y), the unit "up" vector, and half the face's height
    (along up) and width (across). NaN rows for boxes without an axis."""

    centres: np.ndarray
    ups: np.ndarray
    half_heights: np.ndarray
    half_widths: np.ndarray

    @property
    def acrosses(self) -> np.ndarray:
        """The unit vectors across each face (up turned a quarter)."""
        return np.stack([-self.ups[:, 1], self.ups[:, 0]], axis=1)

    def extents(self, face: int, direction: np.ndarray) -> float:
        """How far the face ``face`` reaches from side to side along the unit vector ``direction`` (NaN without an
        axis)."""
        up = self.ups[face]
        along = abs(float(direction @ up))
        across = abs(float(direction[0] * -up[1] + direction[1] * up[0]))  # across: up turned a quarter
        return 2.0 * (self.half_heights[face] * along + self.half_widths[face] * across)

    def holds(self, faces: np.ndarray, point: np.ndarray, reach: float) -> np.ndarray:
        """Which of ``faces`` (indices) hold ``point`` (x, y) within ``reach`` of their half sides."""
        offset = np.asarray(point, dtype=np.float64) - self.centres[faces]
        along = np.abs((offset * self.ups[faces]).sum(axis=1))
        across = np.abs((offset * self.acrosses[faces]).sum(axis=1))
        return (along <= reach * self.half_heights[faces]) & (across <= reach * self.half_widths[faces])


def face_rectangles(boxes: np.ndarray, axes: np.ndarray, *, aspect: float = ASPECT) -> FaceRectangles:
    """The face in each box (N x 4, x1 y1 x2 y2) whose face axis is ``axes`` (N degrees; NaN: unknown)."""
    boxes = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
    angles = np.radians(np.asarray(axes, dtype=np.float64).reshape(-1))
    wide, tall = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
    cos, sin = np.abs(np.cos(angles)), np.abs(np.sin(angles))
    determinant = sin * sin - cos * cos
    with np.errstate(invalid="ignore", divide="ignore"):
        width = (sin * wide - cos * tall) / determinant
        height = (sin * tall - cos * wide) / determinant
        floor = 0.25 * np.minimum(wide, tall)
        solved = (np.abs(determinant) >= WELL_POSED) & (width > floor) & (height > floor)
        usual = (wide + tall) / ((1 + aspect) * (sin + cos))  # the height of a face of the usual aspect
    width = np.where(solved, width, aspect * usual)
    height = np.where(solved, height, usual)
    centres = np.stack([(boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2], axis=1)
    ups = np.stack([np.cos(angles), -np.sin(angles)], axis=1)
    return FaceRectangles(centres, ups, height / 2, width / 2)


def seen_as_is(boxes: np.ndarray) -> np.ndarray:
    """Which boxes (N x 4) are no longer one way than ``MAX_ELONGATION`` times the other: faces seen as they are,
    not a stretched photo's, whose axes and shapes say nothing.

    >>> seen_as_is(np.array([[0, 0, 30, 40], [0, 0, 160, 30]])).tolist()
    [True, False]
    """
    boxes = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
    sides = np.stack([boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]], axis=1)
    return sides.max(axis=1) <= MAX_ELONGATION * np.maximum(sides.min(axis=1), 1e-9)


def drop_astride(boxes: np.ndarray, scores: np.ndarray, axes: np.ndarray, *, reach: float = HOST_REACH,
                 apart: float = APART, neighbour: float = NEIGHBOUR_GAP, room: float = ROOM_BETWEEN) -> np.ndarray:
    """Indices (ascending) of the boxes kept when every box astride two faces is dropped: best score first, a
    box is dropped when its centre lies on the faces of two boxes already kept (``reach``) that lie side by side
    (``apart``) next to each other (``neighbour``) with no room for it between them (``room``). Only boxes with an
    axis (not NaN) can hold another; a box longer than ``MAX_ELONGATION`` times its width neither holds nor is
    dropped."""
    boxes = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
    count = len(boxes)
    if count < 3 or axes is None:
        return np.arange(count)
    faces = face_rectangles(boxes, axes)
    as_is = seen_as_is(boxes)
    known = np.isfinite(faces.half_heights) & as_is
    kept: list[int] = []
    holders: list[int] = []  # the kept boxes with an axis
    for index in np.argsort(-np.asarray(scores, dtype=np.float64), kind="stable"):
        if len(holders) >= 2 and as_is[index] \
                and _astride(faces, np.asarray(holders), int(index), reach, apart, neighbour, room):
            continue
        kept.append(int(index))
        if known[index]:
            holders.append(int(index))
    return np.array(sorted(kept), dtype=np.int64)


def _astride(faces: FaceRectangles, holders: np.ndarray, index: int, reach: float, apart: float,
             neighbour: float, room: float) -> bool:
    hosts = holders[faces.holds(holders, faces.centres[index], reach)]
    for n, first in enumerate(hosts):
        for second in hosts[n + 1:]:
            if faces.holds(np.array([second]), faces.centres[first], apart)[0] \
                    or faces.holds(np.array([first]), faces.centres[second], apart)[0]:
                continue  # one on the other (a kong's fourth tile), not side by side
            # next to each other: no farther apart than either is from its own nearest other tile (a tile between
            # them is twice as far; a face's box holds its tile's sides too, so the faces alone cannot say), and with
            # no room for this box between them (at the end of a group of three the outer two's nearest other tile
            # is each other); a box without an axis has no known extent: the distances decide alone
            between = faces.centres[second] - faces.centres[first]
            gap = float(np.hypot(*between))
            others = holders[(holders != first) & (holders != second)]
            if not len(others):
                continue
            nearest = min(float(np.hypot(*(faces.centres[others] - faces.centres[k]).T).min()) for k in (first, second))
            if gap <= neighbour * nearest \
                    and not gap > room * faces.extents(index, between / max(gap, 1e-9)):  # NaN: no room known
                return True
    return False


TOP_SHARE = 0.25
"""A box lies on a standing tile's top (``on_tops``) when at least this share of it lies within the face's box ...
(measured with ``TOP_ALONG``, ``TOP_ACROSS`` and ``TOP_AREA`` on the shipped detector's boxes read as the White
dragon in 1,800 rendered meld scenes, seeds 10-12 and 17-22: 28 of the 74 such boxes that cover no tile, none of the
479 that cover a White dragon; 0.2 catches one false box more, 0.3 four fewer; models/README.md, "Stop 40")."""
TOP_ALONG = (0.5, 1.8)
"""... its centre lies this many of the face's half heights from the face's centre, along the face's axis (a
standing tile's top shows beyond its face's top edge, and its box reaches back over the face; an axis is a line, not
a direction, so either end counts: measured, only the upward end caught 23 boxes, none of them a tile) ..."""
TOP_ACROSS = 1.2
"""... and no farther across than this many half widths (a neighbour in the row lies two half widths across) ..."""
TOP_AREA = 0.9
"""... and it is smaller than the face (at most this share of the face's box area: a top is a thin strip seen
obliquely; a White dragon of a meld lying beyond the standing row, half hidden behind it, would be as large)."""


def on_tops(boxes: np.ndarray, axes: np.ndarray, candidates: Sequence[int], hosts: Sequence[int]) -> list[int]:
    """Which of ``candidates`` (box indices) lie on the top of a standing tile whose face is one of ``hosts`` (boxes
    with an axis; NaN: none): the blank top of a standing tile, seen from above, looks like a blank or framed White
    dragon, and the classifier reads it so in art styles it never saw (``TOP_SHARE``, ``TOP_ALONG``, ``TOP_ACROSS``,
    ``TOP_AREA``). A stretched box (``seen_as_is``) neither lies on a top nor holds one.

    >>> faces = np.array([[0, 20, 30, 60], [30, 20, 60, 60], [2, 8, 28, 30], [60, 20, 90, 60.]])
    >>> on_tops(faces, np.array([90.0, 90.0, np.nan, 90.0]), [2, 3], [0, 1])  # 2 on face 0's top; 3 its neighbour
    [2]
    """
    boxes = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
    faces = face_rectangles(boxes, axes)
    as_is = seen_as_is(boxes)
    areas = box_area(boxes)
    shares = ioa_matrix(boxes, boxes)  # the share of each box that lies in each other box
    found = []
    for index in candidates:
        if not as_is[index] or areas[index] <= 0:
            continue
        for host in hosts:
            if host == index or not as_is[host] or not np.isfinite(faces.half_heights[host]):
                continue
            offset = faces.centres[index] - faces.centres[host]
            along = abs(float(offset @ faces.ups[host])) / faces.half_heights[host]
            across = float(offset @ faces.acrosses[host]) / faces.half_widths[host]
            if shares[index, host] >= TOP_SHARE and TOP_ALONG[0] <= along <= TOP_ALONG[1] \
                    and abs(across) <= TOP_ACROSS and areas[index] <= TOP_AREA * areas[host]:
                found.append(int(index))
                break
    return found


__all__ = ["ASPECT", "APART", "MAX_ELONGATION", "FaceRectangles", "HOST_REACH", "ROOM_BETWEEN", "TOP_ACROSS",
           "TOP_ALONG", "TOP_AREA", "TOP_SHARE", "drop_astride", "face_rectangles", "on_tops"]
