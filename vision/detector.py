"""The tile detector: an ONNX model (exported by ``mjscan train``) run with onnxruntime on the CPU.

    detector = Detector("models/detector.onnx")      # loads the model once
    detections = detector.detect("photo.jpg")        # a path, bytes, a PIL image or an RGB array

What happens to a photo:

1. **Orientation**: the EXIF orientation is applied (``PIL.ImageOps.exif_transpose``); boxes are in the
   pixels of the upright photo, whatever its size.
2. **Letterbox**: the photo is scaled to fit the model's square input (ultralytics' LetterBox: same
   scale both ways, grey 114 padding centred), RGB, 0..1, NCHW float32. A model exported with a free
   input size is run at each of ``LOCALISER_SCALES`` (640 and 320 px for the shipped localiser), its input
   padded only to a multiple of the model's stride, not to the square (``SNUG_INPUT``).
3. **Decode**: ultralytics' detect export answers ``[1, 4 + nc, N]``: a box centre and size in input
   pixels, then one sigmoid score per class. Each candidate keeps its best class.
4. **NMS** (numpy): per class at IoU 0.5, then across classes at IoU 0.8 (tiles do not overlap, so two
   boxes on one place are one tile read two ways; the better score wins). A one-class localiser's boxes
   are thinned only at ``LOCALISER_IOU`` before the classifier names them, and at IoU 0.5 after, on the
   pair's score: a box the classifier doubts (one astride two tiles) then no longer hides a tile.
5. **Back to the photo**: boxes are mapped from the letterbox to the photo's pixels and clipped.
   **Proportions**: a photo resized out of proportion (a publisher's export squeezed to a square, its tiles many
   times wider than tall) is told by the shape of the tiles this first pass is sure of, and read again from the
   start with its squeezed side enlarged so that they stand 3 : 4 (``unstretched_size``); its boxes come back in
   the photo's own pixels. **Close-ups**: a photo whose sure tiles are 0.15 of its long side or more (a heap filling the
   frame) is read again with a third pass at a quarter of the input added (``is_close_up``).
6. **Slicing** (SAHI-style) for big photos with small tiles: when the long side exceeds twice the
   model's input, the photo is also cut into overlapping windows (``vision.boxes.plan_slices``), each
   window is run like a photo, and everything (the whole-photo pass included) is merged by NMS that
   also drops a box lying mostly inside a better one (a tile cut by a window's edge). The windows are
   skipped when the whole-photo pass already sees the tiles big enough (``SLICE_BELOW``: a hand taken from
   close by with a 12 MP camera): they would find nothing more and cost four passes. The other way round, when the
   first whole-photo pass shows small tiles, the windows read them and the whole photo's mirrored and half-size
   passes are skipped (``_whole_photo_passes``, stop 26).
7. **Naming and redrawing** (a one-class localiser): the tile classifier (``vision.classifier``) names
   the crop of each box, and where its model has a box head it also draws the tile's box in the crop;
   that box replaces the localiser's (``vision.crops.boxes_from_crops``), being finer than a
   320-px localiser's input allows. A drawn box that strays far from its crop's box is not used. A box
   is kept when its reading's confidence reaches the threshold, or when the classifier is sure it is a tile
   but not which (``SURE_TILE``: a face in an unfamiliar art style); then it is kept at the threshold, and
   its other readings (``Detection.alternatives``) let the grouping read it again.
   A box the classifier takes for a flower or a season is read again by the bonus reader
   (``vision.bonus_reader``), from a larger crop, as cut and turned upright (with the face-axis reader's angles),
   where a ``bonus.onnx`` lies beside the models. Then a suit or honour tile that looks like others of the photo
   (what the classifier's last layer read of them) is read with them (``vision.sibling_readings``, stop 33).
8. **Faces** (with a face-axis reader): each box's face axis is read (``vision.orientation``); a box whose centre
   lies on two faces side by side is dropped (``vision.face_geometry.drop_astride``: in a row turned near 45
   degrees a box across two tiles' halves overlaps each under IoU 0.5, so NMS keeps it).
9. **Sideways**: ``mark_sideways`` below, from the faces' axes.

Importing this module loads numpy and Pillow only; onnxruntime is imported when a Detector is made.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import math
import os
import threading
from dataclasses import replace
from pathlib import Path
from typing import Iterator, Sequence, Union

import numpy as np
from PIL import Image, ImageOps

from vision import sibling_readings
from vision.boxes import (Slice, class_aware_nms, iou_matrix, letterbox_canvas, letterbox_geometry, lower_bottom_edges,
                         plan_slices, unletterbox, vote_boxes)
from vision.classes import BACK_ID, CLASS_NAMES, NUM_CLASSES, class_from_id
from vision.crops import MARGIN, as_rgb
from vision.detections import Detection, Detections
from vision.face_geometry import drop_astride

DEFAULT_MODEL = Path(__file__).resolve().parent.parent / "models" / "detector.onnx"
DEFAULT_CONFIDENCE = 0.25
"""The shipped confidence threshold: detections below it are not reported."""

ImageInput = Union[str, os.PathLike, bytes, Image.Image, np.ndarray]


UNSURE_FLOOR = 0.05
"""``Detector.unsure_boxes`` reads a photo again down to this confidence (measured at stop 32 on the held-out meld
scenes: 0.05 lets the grouping complete 6 hands of 800 a tile short, 0.1 five)."""
UNSURE_LIMIT = 6
"""At most this many boxes under the threshold are offered to the grouping (the likeliest)."""
UNSURE_APART = 0.3
"""A box under the threshold overlapping a reported tile at this IoU or more is that tile read again, not another."""
CLOSER_ZOOM = 2.0
"""``Detector.detect_closer`` enlarges a photo this many times (stop 54: a 1280 x 720 photo is then read in windows, as
a big photo is, its tiles seen 1.7 times as big as in its whole-photo pass)."""
CLOSER_BELOW = 40.0
"""... unless the photo's sure tiles (``SLICE_EVIDENCE``) are already this many pixels across (their median short
side, in the model's input). Stop 54: of the 18 held-out photos a closer look made a clean hand of, 17 had tiles
under 37 px (one 46); of real val's 296 photos (640-px exports), 22 % have tiles under 40 px and 2 % under 28 (the
slicing's ``SLICE_BELOW``, which would have lost 3 of the 18)."""


class DetectorError(Exception):
    """A model or a photo the detector cannot use, with a message for people."""


LOCALISER_IOU = 0.7
"""The two-stage pipeline's first NMS, on the localiser's score alone: looser than the final one
(``FINAL_IOU``), which is applied once the classifier has named the boxes (real val: photos read exactly 59.8 % ->
60.1 %, mAP50 the same; with the round-4 localiser 60.8 % -> 61.5 %)."""

FINAL_IOU = 0.35
"""The two-stage pipeline's final NMS, on the pair's score, whatever the class, is 0.5; among the boxes it reports (at
its threshold) it is this: tiles do not overlap much, and a box over part of a tile, or across two (the stretched phone
exports above all), overlapped its tile's box at IoU 0.2-0.5 and stayed (until stop 23). Measured (models/README.md,
stop 23): real val extra boxes 318 -> 163 for 2 tiles lost; the held-out meld scenes lose 0-4 of some 3,200 tiles a
set and read 1-3 hands more each. Applied to every box down to the evaluation's 0.001 it cost real val 0.005 mAP50: a
wrong reading's box then hides a weaker, right one from the AP curves."""

FAST_READING = {"crop_margins": (MARGIN,), "read_upright": False, "mirror": False}
"""``Detector(**FAST_READING)`` (``mjscan detect/read/scan --fast``) reads much as stop 17 did: one crop a box, as cut,
and no mirrored passes (the boxes still vote); at 12 MP about 110 ms against 245 ms, for real val mAP50 / mAP50-95
0.9407 / 0.7321 against 0.9507 / 0.7415 and 61.5 % of photos exact against 67.6 % (models/README.md, stop 18; with
stop 23's models and final NMS 0.9371 / 0.7282 and 62.8 % against 0.9468 / 0.7385 and 67.9 %)."""

SURE_READING = 0.7
"""A box whose classifier reading from its two crops at the training's margin (as cut, and turned upright) is this
sure of one answer (a tile, or none) is not read from the other six (``Detector._crop_readings``): the other crops
would not change its name, and reading them was most of the classifier's time. Measured on true boxes (stop 45,
models/README.md): every one of the real val photos' 6,613 tiles, the held-out art style's 3,223 (seed 10) and
the training styles' 3,220 (seed 11) gets the name all eight crops give it, while 6.0, 13.6 and 7.6 % of them are
read again (0.5 loses one name of the 3,223 and gains one of the 6,613; 0.9 reads more than twice as many again).
A box overlapping another at ``FINAL_IOU`` or more is read from every crop however sure: a first reading runs a little
higher than every crop's, and a box astride two face-down tiles read surely outscored the two right boxes in the
final NMS (seed 12 lost a hand). With that, real val reads 0.9674 / 0.7743 (0.9676 / 0.7744) with the same exact
photos, missed and extra boxes, and seeds 10 and 12 the same hands, in 0.62-0.74 of the time a photo."""

SURE_ONE_WAY = 0.9
"""Before that, a box is read from those two crops one way up only (the classifier reads each crop also turned a half
turn and averages the two): a box whose one-way reading is this sure of one answer keeps it, and only the others are
read the other way up too, then as ``SURE_READING`` says. Measured on stop 45's true-box readings of every crop each
way up (stop 46, models/README.md): at 0.9 every true box of real val (6,613), the held-out style's seed 10 (3,223)
and the training styles' seed 11 (3,220) keeps the name stop 45's reading gives it, for 0.64-0.77 of its classifier
reads (0.8 changes one name of real val, 0.7 two of real val and two of seed 10, each right before). End to end
the four held-out seeds read the same 800 hands, and real val 0.9675 / 0.7748 (0.9674 / 0.7743) with the same photos."""

SNUG_INPUT = True
"""A localiser exported with a free input size is given the photo resized to the pass's size and padded only to a
multiple of its stride (ultralytics' ``LetterBox(auto=True)``, as its own ``predict`` does), not to a square: a
4:3 photo is read at 640 x 480, a quarter less work than 640 x 640. Measured (stop 47, models/README.md): at 12 MP
the localiser's passes take 153 ms a photo instead of 182, and a photo 0.89-0.94 of the time; real val reads 0.9680 /
0.7744 (0.9675 / 0.7748) with one photo more exact, and the eight held-out seeds 1,318 hands of 1,600 (1,316), 53
silently wrong (53): the boxes move a little because the picture no longer sits 16 px off the model's 32-px grid, and
close calls fall either way (14 hands better, 11 worse).
``Detector(snug_input=False)`` pads to the square as before."""

VOTE_IOU = 0.85
VOTE_POWER = 4.0
"""The two-stage pipeline moves each box its first NMS keeps to the mean of the localiser's boxes over it at IoU
``VOTE_IOU`` or more, weighted by their scores to ``VOTE_POWER`` (``vision.boxes.vote_boxes``); with the mirrored
passes (``Detector(mirror=True)``) the votes come from four readings of the photo. Measured (stop 18,
models/README.md), real val mAP50-95: 0.7301 without either, 0.7365 voting alone (IoU 0.8 with weights to the
power 1: 0.7359, but mAP50 0.9466 -> 0.9436), 0.7415 voting with the mirrored passes."""

LOCALISER_SCALES = (1.0, 0.5)
"""A localiser exported with a free input size (``dynamic``) reads the whole photo twice, at its input size and at
half of it, and both passes' boxes are merged by the first NMS; a half-size pass costs a quarter of a full one.
For the 640-px localiser (round 7) the 320 pass finds 175 more of the real val photos' 6,613 tiles, mostly in
photos the publisher squeezed or stretched (recall 0.911 -> 0.937, mAP50 0.904 -> 0.930). The windows of a
sliced photo are read at the first scale only. A fixed-size model (round 6 and older) has one scale."""

BOTTOM_EDGE_SHIFT = 0.009
"""The one-class localiser's boxes stop short of a tile's bottom edge: their bottom edges lie a median 0.92 % of the
box's height above the labels' on 400 of the real training photos (0.0092; 1.27 % on the real val photos, 0.65 % in
the held-out art style, seed 10), while the other edges' medians disagree in sign between the sets. So once the
classifier has named the boxes, every face's bottom edge is moved down by 0.9 % of its box's height (the training
photos' figure). Face-down tiles show no such bias (a median of 0.0001 over seed 10's 45) and keep their boxes. The
classifier still cuts its crops from the boxes as found: moving them first changed what it read (real val mAP50
+0.0025, but held-out seed 10's `back` AP50 0.97 -> 0.94, a box astride two backs read as one), so the readings,
and the hands read from them, stay as they were.
``Detector(bottom_edge_shift=0)`` turns it off; ``localise`` (the first stage alone) answers the boxes as found."""

DRAFT_LONG_SIDE = 1800
"""A JPEG whose long side is at least twice this is decoded at a reduced scale (libjpeg's DCT scaling,
``Image.draft``) with the long side still at least this: for a 12-megapixel photo that is 2000 x 1500,
about 5 times faster to decode. Nothing is lost to the model: slicing caps the windows at 4 a side, so
a 4000-pixel photo's windows are shrunk 4 times before the model sees them; at 2000 pixels, twice."""


MIN_PHOTO_SIDE = 16
"""A picture narrower or lower than this many pixels cannot show a tile; it is refused with a clear message
rather than read (its scaled-down copies would round to no pixels)."""


def load_image(source: ImageInput, *, draft_long_side: int | None = None) -> Image.Image:
    """An upright RGB PIL image from a path, bytes, a PIL image or an HxWx3 RGB uint8 array.

    With ``draft_long_side``, a big JPEG may be decoded at 1/2, 1/4 or 1/8 scale (never below that long
    side); the image's ``info["full_size"]`` then holds the upright photo's full (width, height)."""
    if isinstance(source, np.ndarray):
        if source.ndim != 3 or source.shape[2] not in (3, 4):
            raise DetectorError(f"an image array must be H x W x 3 (RGB), not {source.shape}")
        _check_size(source.shape[1], source.shape[0])
        return Image.fromarray(np.ascontiguousarray(source[:, :, :3]).astype(np.uint8), "RGB")
    full_size = None
    if isinstance(source, Image.Image):
        image = source
    else:
        _register_heif()
        try:
            image = Image.open(io.BytesIO(source) if isinstance(source, (bytes, bytearray)) else source)
            full_size = image.size
            if draft_long_side and image.format == "JPEG" and max(full_size) >= 2 * draft_long_side:
                ratio = draft_long_side / max(full_size)
                image.draft("RGB", (math.ceil(full_size[0] * ratio), math.ceil(full_size[1] * ratio)))
            image.load()
        except FileNotFoundError:
            raise DetectorError(f"No such file: '{source}'.") from None
        except IsADirectoryError:
            raise DetectorError(f"'{source}' is a folder, not a photo.") from None
        except Image.DecompressionBombError:  # Pillow refuses to decode past twice its MAX_IMAGE_PIXELS
            name = "the photo" if isinstance(source, (bytes, bytearray)) else f"'{source}'"
            limit = (Image.MAX_IMAGE_PIXELS or 0) * 2 / 1e6
            raise DetectorError(f"Cannot read {name}: it is too large to be a photo (over {limit:.0f} megapixels)."
                                ) from None
        except OSError as error:  # PIL.UnidentifiedImageError is an OSError
            name = "the photo" if isinstance(source, (bytes, bytearray)) else f"'{source}'"
            raise DetectorError(f"Cannot read {name} as an image ({error.__class__.__name__}).") from None
    stored_size = image.size
    full = full_size or stored_size
    try:
        if image is source:  # the caller's picture: turned on a copy, never in place
            image = ImageOps.exif_transpose(image)
        else:  # a photo opened here: turned in place (Pillow copies the whole photo otherwise, even unturned)
            ImageOps.exif_transpose(image, in_place=True)
    except Exception:  # a broken EXIF block: keep the pixels as stored
        pass
    if image.size != stored_size and image.size == stored_size[::-1]:  # turned a quarter by its EXIF
        full = full[::-1]
    _check_size(*full)
    image = as_rgb(image)  # (a convert to the same mode would copy the photo again)
    if tuple(full) != image.size:
        image.info["full_size"] = tuple(full)
    return image


def _check_size(width: int, height: int) -> None:
    if min(width, height) < MIN_PHOTO_SIDE:
        raise DetectorError(f"The picture is {width} x {height} pixels: too small to show a tile (each side needs at "
                            f"least {MIN_PHOTO_SIDE}).")


def _register_heif() -> None:
    try:
        import pillow_heif  # iPhone photos; optional
    except ImportError:
        return
    pillow_heif.register_heif_opener()


def letterbox(image: np.ndarray, size: int, stride: int | None = None) -> tuple[np.ndarray, tuple[float, int, int]]:
    """An RGB uint8 image fitted into a size x size square (ultralytics' LetterBox), as the model's
    1 x 3 x size x size float32 input, with (scale, left, top) to map boxes back. With ``stride`` the input is
    only padded to a multiple of it (``vision.boxes.letterbox_canvas``; ``SNUG_INPUT``)."""
    resized, geometry, canvas = _resized(image, size, stride)
    return _tensor(resized, canvas, geometry), geometry


def letterbox_both_ways(image: np.ndarray, size: int, stride: int | None = None
                        ) -> tuple[np.ndarray, np.ndarray, tuple[float, int, int]]:
    """``letterbox`` of the image and of the image mirrored left to right, with the geometry both share. The
    resized image is mirrored, not the photo: copying a 12-megapixel photo's decoded 2000 x 1500 pixels mirrored
    took 8 ms a pass, more than the half-size pass's model; resizing and mirroring commute (OpenCV's bilinear
    sampling is symmetric), so the mirrored input is the one the mirrored photo gave."""
    resized, geometry, canvas = _resized(image, size, stride)
    return _tensor(resized, canvas, geometry), _tensor(resized[:, ::-1], canvas, geometry), geometry


def _resized(image: np.ndarray, size: int, stride: int | None
             ) -> tuple[np.ndarray, tuple[float, int, int], tuple[int, int]]:
    """The image resized for the model, the geometry that maps boxes back, and the input's (width, height)."""
    height, width = image.shape[:2]
    scale, left, top, new_w, new_h = letterbox_geometry(width, height, size, stride)
    if (new_w, new_h) != (width, height):
        import cv2

        image = cv2.resize(image, (new_w, new_h), interpolation=cv2.INTER_LINEAR)
    return image, (scale, left, top), letterbox_canvas(new_w, new_h, size, stride)


def _tensor(resized: np.ndarray, input_size: tuple[int, int], geometry: tuple[float, int, int]) -> np.ndarray:
    """The resized image on a grey (114) canvas of ``input_size`` (width, height) at the geometry's offsets, as
    1 x 3 x height x width floats in 0..1."""
    _, left, top = geometry
    new_h, new_w = resized.shape[:2]
    canvas = np.full((3, input_size[1], input_size[0]), 114, dtype=np.uint8)  # channels first: one copy of the pixels
    canvas[:, top:top + new_h, left:left + new_w] = resized.transpose(2, 0, 1)
    tensor = canvas[None].astype(np.float32)
    tensor /= np.float32(255.0)
    return tensor


def _metadata_size(meta: dict[str, str]) -> int:
    """The input side a free-size model was trained at (ultralytics writes ``imgsz: [640, 640]``); 640 if absent."""
    try:
        size = json.loads(meta.get("imgsz", "[640]"))
        return int(size[0] if isinstance(size, list) else size)
    except (ValueError, TypeError, IndexError):
        return 640


def _metadata_stride(meta: dict[str, str]) -> int:
    """The model's largest stride (ultralytics writes ``stride: 32``); 32 if absent."""
    try:
        return max(1, int(meta.get("stride", "32")))
    except ValueError:
        return 32


def _metadata_names(meta: dict[str, str]) -> list | None:
    """The model's class names in class-id order, from ultralytics' ``names`` metadata (a Python or JSON dict or
    list); None when absent or unreadable."""
    if "names" not in meta:
        return None
    import ast

    try:
        names = ast.literal_eval(meta["names"])
    except (ValueError, SyntaxError):
        try:
            names = json.loads(meta["names"])
        except ValueError:
            return None
    if isinstance(names, dict):
        names = [names[k] for k in sorted(names, key=int)]
    return list(names) if isinstance(names, list) and names else None


def decode(output: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Ultralytics' detect output ``[1, 4 + nc, N]`` (or ``[4 + nc, N]``) -> boxes (x1, y1, x2, y2 in
    input pixels), scores and class ids of the candidates at or above ``confidence``."""
    array = np.asarray(output, dtype=np.float32)
    if array.ndim == 3:
        array = array[0]
    if array.ndim != 2 or array.shape[0] < 5:
        raise DetectorError(f"unexpected model output shape {np.shape(output)}; expected [1, 4 + classes, N]")
    predictions = array.T  # N x (4 + nc)
    class_scores = predictions[:, 4:]
    classes = class_scores.argmax(axis=1)
    scores = class_scores[np.arange(len(classes)), classes]
    keep = scores >= confidence
    xywh, scores, classes = predictions[keep, :4], scores[keep], classes[keep]
    boxes = np.empty_like(xywh)
    boxes[:, 0] = xywh[:, 0] - xywh[:, 2] / 2
    boxes[:, 1] = xywh[:, 1] - xywh[:, 3] / 2
    boxes[:, 2] = xywh[:, 0] + xywh[:, 2] / 2
    boxes[:, 3] = xywh[:, 1] + xywh[:, 3] / 2
    return boxes, scores, classes


def mark_sideways(detections: Sequence[Detection], *, margin: float = 1.08, min_tiles: int = 3,
                  min_elongation: float = 1.1, axes: np.ndarray | None = None) -> tuple[Detection, ...]:
    """Set each detection's ``sideways`` flag from its face's axis where ``axes`` (degrees, one a detection:
    ``vision.orientation``) are given and agree on a row (``sideways_from_axes``), else from its box's shape
    (axis-aligned boxes only), as follows.

    The rule: a tile's face is a rectangle longer than wide. Take the median aspect (width / height) of
    the photo's face boxes (face-down tiles included). If the median is clearly below 1 (most tiles
    stand taller than wide, as in an upright photo of a row), a box is sideways when it is wider than
    tall by ``margin``; if the median is clearly above 1 (the photo is turned a quarter), a box is
    sideways when it is taller than wide by ``margin``. With fewer than ``min_tiles`` boxes, or a median
    within ``min_elongation`` of square, nothing is marked.

    Limits: the rule sees only boxes. It fails when the photo is turned near 45 degrees (every box
    squarish), when a strong camera tilt shortens lying tiles until they look wider than tall, when
    standing and lying tiles mix (their faces differ in shape), when most tiles of the photo are
    sideways, and on photos stretched square (as the real training photos are), where tiles look squarer
    than they are. A rotated-box (OBB) model would read the angle instead.
    """
    tiles = tuple(detections)
    if len(tiles) < min_tiles:
        return tuple(replace(t, sideways=False) if t.sideways else t for t in tiles)
    by_axis = None
    if axes is not None and len(axes) == len(tiles):
        from vision.orientation import sideways_from_axes

        centres = np.array([[(t.box[0] + t.box[2]) / 2, (t.box[1] + t.box[3]) / 2] for t in tiles])
        by_axis = sideways_from_axes(axes, min_tiles=min_tiles, centres=centres)
    aspects = np.array([t.width / t.height if t.height > 0 else 1.0 for t in tiles])
    median = float(np.median(aspects))
    marked: list[bool] = []
    for i, (tile, aspect) in enumerate(zip(tiles, aspects)):
        if by_axis is not None and np.isfinite(axes[i]):  # its face's axis, where the reader is sure of it
            sideways = bool(by_axis[i])
        elif median <= 1 / min_elongation:
            sideways = aspect >= margin
        elif median >= min_elongation:
            sideways = aspect <= 1 / margin
        else:
            sideways = False
        marked.append(bool(sideways))
    if axes is not None and len(axes) == len(tiles):
        from vision.orientation import across_neighbours, among_bonus

        # a tile lying across its two touching neighbours, which lie alike, is sideways whatever the crosses said
        marked = across_neighbours(axes, np.array([t.box for t in tiles]), np.array(marked))
        # a flower or season only by the other flowers and seasons (they lie apart from the hand, face up)
        bonus = np.array([not t.is_back and t.code.is_bonus for t in tiles], dtype=bool)
        marked = among_bonus(axes, bonus, marked).tolist()
    return tuple(tile if tile.sideways == sideways else replace(tile, sideways=bool(sideways))
                 for tile, sideways in zip(tiles, marked))


def merge(boxes: np.ndarray, scores: np.ndarray, classes: np.ndarray, *, sliced: bool) -> np.ndarray:
    """Indices kept after NMS: class-aware at IoU 0.5, then across classes at IoU 0.8; with slices,
    a box mostly (over 70 %) inside a better one of any class is dropped too."""
    ios = 0.7 if sliced else None
    kept = class_aware_nms(boxes, scores, classes, iou_threshold=0.5, cross_class_iou=0.8, ios_threshold=ios)
    return kept


def drop_cut_boxes(boxes: np.ndarray, window: Slice, width: int, height: int, tolerance: float = 2.0) -> np.ndarray:
    """A mask of the boxes found in a window that do not touch one of its inner edges (edges that are
    not the photo's own): such a box is likely a tile cut by the window, seen whole by a neighbour."""
    keep = np.ones(len(boxes), dtype=bool)
    if window.x0 > 0:
        keep &= boxes[:, 0] > window.x0 + tolerance
    if window.y0 > 0:
        keep &= boxes[:, 1] > window.y0 + tolerance
    if window.x1 < width:
        keep &= boxes[:, 2] < window.x1 - tolerance
    if window.y1 < height:
        keep &= boxes[:, 3] < window.y1 - tolerance
    return keep


class Detector:
    """The ONNX tile detector. Load once, call ``detect`` for each photo (thread-safe: onnxruntime's
    ``run`` may be called from several threads)."""

    def __init__(self, model_path: str | os.PathLike[str] | None = None, *, confidence: float = DEFAULT_CONFIDENCE,
                 slicing: bool = True, threads: int | None = None,
                 classifier_path: str | os.PathLike[str] | None = None, refine_boxes: bool = True,
                 scales: Sequence[float] | None = None,
                 bonus_reader_path: str | os.PathLike[str] | None | bool = None,
                 axis_reader_path: str | os.PathLike[str] | None | bool = None,
                 crop_margins: Sequence[float] | None = None, read_upright: bool = True, mirror: bool = True,
                 unstretch: bool = True, close_up: bool = True, bottom_edge_shift: float = BOTTOM_EDGE_SHIFT,
                 share_readings: bool = True, sure_reading: float | None = SURE_READING,
                 sure_one_way: float | None = SURE_ONE_WAY, snug_input: bool = SNUG_INPUT):
        path = Path(model_path) if model_path is not None else DEFAULT_MODEL
        if not path.is_file():
            raise DetectorError(f"No detector model at '{path}'. Train one with 'mjscan train' or pass --model.")
        from vision.onnx_session import open_session

        self.session = open_session(path, threads=threads, error=DetectorError, what="the detector model")
        self.model_path = path
        # a photo's decoding and the localiser's answers, kept while ``remembering`` (each thread its own)
        self._remembered = threading.local()
        self.confidence = float(confidence)
        self.slicing = slicing
        self.refine_boxes = refine_boxes  # redraw boxes with the classifier's box head, where it has one
        self.crop_margins = tuple(float(m) for m in (CROP_MARGINS if crop_margins is None else crop_margins))
        # with a face-axis reader, each box is also read from crops turned so that its face stands upright
        self.read_upright = bool(read_upright)
        self.mirror = bool(mirror)  # a one-class localiser also reads the whole photo mirrored (``_passes``)
        self.unstretch = bool(unstretch)  # a photo resized out of proportion is read again in proportion
        # tiles that look alike read alike (vision.sibling_readings), with a classifier that answers its features
        self.share_readings = bool(share_readings)
        # a box read this surely from its crops at the training's margin is not read from the others (None: every
        # box from every crop)
        if sure_reading is not None and not 0 < sure_reading <= 1:
            raise DetectorError(f"sure_reading must be a probability in (0, 1] or None, not {sure_reading!r}")
        self.sure_reading = None if sure_reading is None else float(sure_reading)
        # ... and before that from those crops one way up (None: both ways from the start; without sure_reading
        # every box is read from every crop, both ways)
        if sure_one_way is not None and not (self.sure_reading or 0) <= sure_one_way <= 1:
            raise DetectorError(f"sure_one_way must be a probability in [sure_reading, 1] or None, not "
                                f"{sure_one_way!r}")
        self.sure_one_way = None if sure_one_way is None or self.sure_reading is None else float(sure_one_way)
        if not 0 <= bottom_edge_shift <= 0.1:
            raise DetectorError(f"bottom_edge_shift must be a share in [0, 0.1], not {bottom_edge_shift!r}")
        self.bottom_edge_shift = float(bottom_edge_shift)  # a one-class localiser's bias (BOTTOM_EDGE_SHIFT)
        if not self.crop_margins or any(not 0 <= m <= 0.5 for m in self.crop_margins):
            raise DetectorError(f"crop_margins must be a few shares in [0, 0.5], not {crop_margins!r}")
        model_input = self.session.get_inputs()[0]
        self.input_name = model_input.name
        shape = model_input.shape
        meta = self.session.get_modelmeta().custom_metadata_map
        names = _metadata_names(meta)
        fixed = isinstance(shape[2], int) and isinstance(shape[3], int)
        self.batched = not isinstance(shape[0], int)  # a free batch size: several passes in one run (_passes)
        self.size = int(shape[2]) if fixed else _metadata_size(meta)
        # a free-size model's input is padded only to a multiple of its stride (SNUG_INPUT), not to a square
        self.input_stride = _metadata_stride(meta) if snug_input and not fixed else None
        # each pass's input side: a fixed-size model has one; a free-size one is read at every scale
        chosen = (1.0,) if fixed else tuple(LOCALISER_SCALES if scales is None else scales)
        if not chosen or any(not 0 < scale <= 4 for scale in chosen):
            raise DetectorError(f"scales must be a few numbers in (0, 4], not {scales!r}")
        self.pass_sizes = tuple(sorted({max(32, int(round(self.size * scale / 32)) * 32) for scale in chosen},
                                       reverse=True))
        # a free-size localiser also reads a close-up at a quarter of its input (CLOSE_UP)
        self.close_up_size = None if fixed or not close_up else \
            max(32, int(round(self.size * CLOSE_UP_SCALE / 32)) * 32)
        output_shape = self.session.get_outputs()[0].shape
        if isinstance(output_shape[1], int):
            self.num_classes = int(output_shape[1]) - 4
        else:
            self.num_classes = len(names) if names else NUM_CLASSES
        self.classifier = None
        self.bonus_reader = None
        self.axis_reader = None
        if self.num_classes == 1 or classifier_path is not None:
            # a one-class localiser: the tile classifier names what it finds (two stages, see module doc)
            from vision.classifier import DEFAULT_CLASSIFIER, ClassifierError, TileClassifier

            if classifier_path is None:
                classifier_path = path.with_name("classifier.onnx") if path.with_name("classifier.onnx").is_file() \
                    else DEFAULT_CLASSIFIER
            try:
                self.classifier = TileClassifier(classifier_path, threads=threads)
            except ClassifierError as error:
                raise DetectorError(f"The detector '{path}' finds tiles without naming them and needs the tile "
                                    f"classifier: {error}") from None
            self.class_map = np.zeros(max(self.num_classes, 1), dtype=np.int64)
            # flowers and seasons read again (vision.bonus_reader); the sideways flags from the faces' print, not
            # their boxes' shape (vision.orientation)
            from vision.bonus_reader import BonusReader, BonusReaderError
            from vision.orientation import AxisReader, AxisReaderError

            self.bonus_reader = self._companion(bonus_reader_path, path, Path(classifier_path), threads,
                                                "bonus.onnx", BonusReader, BonusReaderError, "bonus reader")
            self.axis_reader = self._companion(axis_reader_path, path, Path(classifier_path), threads,
                                               "axis.onnx", AxisReader, AxisReaderError, "face-axis reader")
        else:
            self.class_map = self._class_map(names)

    @staticmethod
    def _companion(given: str | os.PathLike[str] | None | bool, model: Path, classifier: Path, threads: int | None,
                   file_name: str, reader: type, error: type[Exception], what: str):
        """A ``reader`` that runs beside the classifier: ``given`` (a path; False: none), else ``file_name`` beside
        the localiser or the classifier, else none. Its ``error`` becomes a DetectorError naming ``what`` it is."""
        if given is False:
            return None
        if given is None or given is True:
            found = [p for p in (model.with_name(file_name), classifier.with_name(file_name)) if p.is_file()]
            if not found:
                return None
            given = found[0]
        try:
            return reader(given, threads=threads)
        except error as failure:
            raise DetectorError(f"The detector '{model}' cannot use its {what}: {failure}") from None

    def _class_map(self, names: list | None) -> np.ndarray:
        """Model class id -> our class id, from the model's names (``_metadata_names``); identity when the names
        are ours or absent."""
        if not names:
            if self.num_classes != NUM_CLASSES:
                raise DetectorError(f"the model has {self.num_classes} classes and no names; expected {NUM_CLASSES}")
            return np.arange(NUM_CLASSES)
        mapping = []
        for name in names:
            if str(name) not in CLASS_NAMES:
                raise DetectorError(f"the model's class '{name}' is not a tile code or 'back'")
            mapping.append(CLASS_NAMES.index(str(name)))
        return np.asarray(mapping)

    # ----------------------------------------------------------------------------------------------

    @contextlib.contextmanager
    def remembering(self) -> Iterator[None]:
        """Within it, the photos this thread decodes and the localiser's answers to each input are kept, and
        reading the same photo (the same object) again decodes it and runs the localiser no more; on leaving, they
        are dropped. ``vision.photo_reading.read_photo`` reads every photo twice (``detect``, then
        ``unsure_boxes`` down to a lower threshold), and the second reading's decoding and localiser passes were
        over half of its time (stop 50). The answers are the same to the bit: the model sees the same inputs, and an
        answer is found again only for an input of the same bytes (its SHA-1). Nested, the outer one keeps them."""
        if getattr(self._remembered, "memo", None) is not None:
            yield
            return
        self._remembered.memo = {"photos": [], "answers": {}}
        try:
            yield
        finally:
            self._remembered.memo = None

    def picture(self, source: ImageInput) -> Image.Image:
        """The photo as this detector decodes it: upright RGB, a big JPEG at a reduced scale (``DRAFT_LONG_SIDE``;
        ``info["full_size"]`` then holds its full width and height). While ``remembering``, the very decoding the
        detector read, so that looking at the photo again (``vision.photo_advice``) decodes it no more."""
        return self._load(source)

    def _load(self, source: ImageInput) -> Image.Image:
        """``load_image`` at ``DRAFT_LONG_SIDE``, or the picture already decoded from this very ``source`` while
        ``remembering`` (the picture is never changed in place: a resize makes another)."""
        memo = getattr(self._remembered, "memo", None)
        if memo is None:
            return load_image(source, draft_long_side=DRAFT_LONG_SIDE)
        for seen, picture in memo["photos"]:
            if seen is source:
                return picture
        picture = load_image(source, draft_long_side=DRAFT_LONG_SIDE)
        memo["photos"].append((source, picture))
        return picture

    def _localised(self, batch: np.ndarray) -> np.ndarray:
        """The localiser's answer to one input batch, or the one it gave these very bytes while ``remembering``."""
        memo = getattr(self._remembered, "memo", None)
        if memo is None:
            return self.session.run(None, {self.input_name: batch})[0]
        batch = np.ascontiguousarray(batch)
        key = (batch.shape, batch.dtype.str, hashlib.sha1(batch, usedforsecurity=False).digest())
        answer = memo["answers"].get(key)
        if answer is None:
            answer = memo["answers"][key] = self.session.run(None, {self.input_name: batch})[0]
        return answer

    def _passes(self, image: np.ndarray, confidence: float, sizes: Sequence[int], *, mirrored_too: bool,
                first: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
                ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """The model's pass at each input size (and mirrored, with ``mirrored_too``, where the model is a one-class
        localiser): each pass's boxes in the array's pixels, scores and model class ids, not yet merged. ``first``:
        the straight pass at ``sizes[0]``, already run (``_whole_photo_passes``), taken as it is."""
        height, width = image.shape[:2]
        parts = []
        # a one-class localiser also reads the whole photo mirrored: "a tile is here" does not care which way a
        # face reads (a many-class model would: a mirrored face is another picture); windows are read once
        mirrors = (False, True) if mirrored_too and self.mirror and self.classifier is not None else (False,)
        for number, size in enumerate(sizes):
            if len(mirrors) == 2:
                straight, flipped, (scale, left, top) = letterbox_both_ways(image, size, self.input_stride)
                tensors = (straight, flipped)
            else:
                tensor, (scale, left, top) = letterbox(image, size, self.input_stride)
                tensors = (tensor,)
            if first is not None and number == 0:  # the straight pass at this size: already run
                parts.append(first)
                mirrors_left, tensors = mirrors[1:], tensors[1:]
            else:
                mirrors_left = mirrors
            if not tensors:
                continue
            # the passes at one size go through the model as one batch where it takes one: the same answers, bit
            # for bit, in 0.91 of the time of a run each at 640 px on two cores (stop 44)
            batches = [np.concatenate(tensors)] if self.batched else tensors
            outputs = np.concatenate([self._localised(batch) for batch in batches])
            for mirrored, output in zip(mirrors_left, outputs):
                found, scores, classes = decode(output, confidence)
                found = unletterbox(found, scale, left, top, width, height)
                if mirrored:  # the boxes back to the photo's side
                    found = np.stack([width - found[:, 2], found[:, 1], width - found[:, 0], found[:, 3]], axis=1)
                parts.append((found, scores, classes))
        return parts

    def _whole_photo_passes(self, image: np.ndarray, confidence: float
                            ) -> tuple[list[tuple[np.ndarray, np.ndarray, np.ndarray]],
                                       tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """The passes over the whole photo (``_passes`` at every size, mirrored too) and their merge (``_merged``).
        A photo big enough for windows whose first pass already shows small tiles (``_tiles_seen_whole`` false: the
        windows will read them, at twice the scale) keeps that pass alone: the mirrored and half-size passes over
        the whole photo would see its tiles smaller still, and cost some 50 ms (stop 26)."""
        height, width = image.shape[:2]
        if self.slicing and plan_slices(width, height, self.size):
            first = self._passes(image, confidence, self.pass_sizes[:1], mirrored_too=False)
            merged = self._merged(first)
            if not _tiles_seen_whole(merged[0], merged[1], max(width, height), self.size):
                return first, merged
            passes = self._passes(image, confidence, self.pass_sizes, mirrored_too=True, first=first[0])
        else:
            passes = self._passes(image, confidence, self.pass_sizes, mirrored_too=True)
        return passes, self._merged(passes)

    def _merged(self, parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]]
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Passes (``_passes``) merged: the first NMS, box voting for a one-class localiser; our class ids."""
        boxes = np.concatenate([part[0] for part in parts])
        scores = np.concatenate([part[1] for part in parts])
        classes = np.concatenate([part[2] for part in parts])
        if len(boxes):
            iou = LOCALISER_IOU if self.classifier is not None else 0.5
            keep = class_aware_nms(boxes, scores, classes, iou_threshold=iou, cross_class_iou=0.8)
            if self.classifier is not None:  # each tile's box from the localiser's boxes round it (box voting)
                boxes[keep] = vote_boxes(boxes, scores, keep, iou_threshold=VOTE_IOU, power=VOTE_POWER)
            boxes, scores, classes = boxes[keep], scores[keep], classes[keep]
        return boxes, scores, self.class_map[classes]

    def raw(self, source: ImageInput, confidence: float | None = None) -> tuple[int, int, np.ndarray, np.ndarray,
                                                                                np.ndarray]:
        """Width, height, boxes, scores and class ids (arrays) of a photo: the work of ``detect`` without
        the typed result (the evaluation uses it at a low threshold)."""
        return self._detect_arrays(source, confidence, name=True, read_axes=False)[:5]

    def raw_with_axes(self, source: ImageInput, confidence: float | None = None
                      ) -> tuple[int, int, np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
        """``raw``'s arrays and each box's face axis (degrees, ``vision.orientation``; None without a face-axis
        reader), which ``to_detections`` sets the sideways flags from."""
        found = self._detect_arrays(source, confidence, name=True)
        return (*found[:5], found[6])

    def raw_readings(self, source: ImageInput, confidence: float | None = None
                     ) -> tuple[int, int, np.ndarray, np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None]:
        """``raw_with_axes``'s arrays with each box's next readings (``alternative_readings``; None for a many-class
        detector) before the axes: what the evaluation's multi-label AP reads."""
        return self._detect_arrays(source, confidence, name=True)

    def localise(self, source: ImageInput, confidence: float | None = None) -> tuple[int, int, np.ndarray, np.ndarray]:
        """Width, height, boxes and scores of the first stage alone (for a one-class localiser: where it sees
        a tile, before the classifier names or rejects it). Mining the localiser's false boxes uses it."""
        width, height, boxes, scores = self._detect_arrays(source, confidence, name=False)[:4]
        return width, height, boxes, scores

    def _detect_arrays(self, source: ImageInput, confidence: float | None, *, name: bool, read_axes: bool = True
                       ) -> tuple[int, int, np.ndarray, np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None]:
        """``raw``'s arrays, each box's alternative readings (``alternative_readings``), or None when the
        classifier does not name the boxes (a many-class detector, or ``name`` False), and each box's face axis
        (``vision.orientation``), or None without a face-axis reader or with ``read_axes`` False (``raw`` has no
        use for them)."""
        conf = self.confidence if confidence is None else confidence
        picture = self._load(source)
        photo_size = picture.info.get("full_size", picture.size)  # the boxes' pixels in the end
        image = np.asarray(picture)
        passes, (boxes, scores, classes) = self._whole_photo_passes(image, conf)
        restored = self.unstretch and unstretched_size(boxes, scores, picture.size)
        if restored:  # a photo resized out of proportion: read again at its tiles' own proportions
            picture = picture.resize(restored, Image.Resampling.BILINEAR)
            image = np.asarray(picture)
            passes, (boxes, scores, classes) = self._whole_photo_passes(image, conf)
        if self.close_up_size and is_close_up(boxes, scores, picture.size):  # tiles too big for the passes
            passes += self._passes(image, conf, (self.close_up_size,), mirrored_too=True)
            boxes, scores, classes = self._merged(passes)
        height, width = image.shape[:2]
        # a big photo is also read in windows, unless the whole-photo pass already saw its tiles well
        if self.slicing and plan_slices(width, height, self.size) \
                and not _tiles_seen_whole(boxes, scores, max(width, height), self.size):
            # the windows are cut from the photo scaled down to MAX_LONG_SIDE (the classifier still crops the
            # photo as decoded)
            zoom = min(1.0, MAX_LONG_SIDE / max(width, height))
            view = image if zoom == 1.0 else np.asarray(picture.resize(
                (round(width * zoom), round(height * zoom)), Image.Resampling.BILINEAR, reducing_gap=2.0))
            view_height, view_width = view.shape[:2]
            parts_b, parts_s, parts_c = [boxes], [scores], [classes]
            for window in plan_slices(view_width, view_height, self.size):
                crop = view[window.y0:window.y1, window.x0:window.x1]
                # a window is read at the finest scale only: a tile big enough to need the coarse one is
                # found by the whole photo's passes (a 4 MP photo: 7 passes instead of 14)
                b, s, c = self._merged(self._passes(crop, conf, self.pass_sizes[:1], mirrored_too=False))
                b = b + np.array([window.x0, window.y0, window.x0, window.y0], dtype=b.dtype)
                keep = drop_cut_boxes(b, window, view_width, view_height)
                parts_b.append(b[keep] / np.float32(zoom)), parts_s.append(s[keep]), parts_c.append(c[keep])
            boxes, scores, classes = np.concatenate(parts_b), np.concatenate(parts_s), np.concatenate(parts_c)
            keep = merge(boxes, scores, classes, sliced=True)
            boxes, scores, classes = boxes[keep], scores[keep], classes[keep]
        alternatives = axes = None
        if self.classifier is not None and name:
            # the faces' axes come with the names where the upright crops needed them (angles: a reduced-scale
            # decoding leaves them as they are)
            boxes, scores, classes, alternatives, axes = self._name(picture, boxes, scores, conf)
            if self.bottom_edge_shift > 0:  # the localiser's bias on faces (BOTTOM_EDGE_SHIFT), once named
                faces = classes != BACK_ID
                boxes[faces] = lower_bottom_edges(boxes[faces], self.bottom_edge_shift, height)
            if axes is None and self.axis_reader is not None and read_axes:
                axes = self.axis_reader.axes(picture, boxes)
        axes = axes if read_axes else None
        if axes is not None:  # a box astride two faces (a row near 45 degrees) is no tile
            keep = drop_astride(boxes, scores, axes)
            boxes, scores, classes, axes = boxes[keep], scores[keep], classes[keep], axes[keep]
            alternatives = alternatives[keep] if alternatives is not None else None
        if (width, height) != tuple(photo_size):  # decoded at a reduced scale, or restored: boxes to the photo's pixels
            full_width, full_height = photo_size
            boxes = boxes * np.array([full_width / width, full_height / height] * 2, dtype=np.float32)
            width, height = full_width, full_height
        return width, height, boxes, scores, classes, alternatives, axes

    def _name(self, image: Image.Image, boxes: np.ndarray, scores: np.ndarray, confidence: float
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
        """The second stage: classify crops of every box; a detection's confidence is the localiser's
        times the classifier's, so a box the classifier calls "none" (not a tile) falls below the threshold,
        except one it is sure is a tile without knowing which (``SURE_TILE``), which is kept at the threshold.
        Also each kept box's alternative readings (``alternative_readings``), on the same scale, and its face
        axis where the upright crops read them (else None)."""
        from vision.classifier import best_tile
        from vision.crops import boxes_from_crops, tile_crops

        if not len(boxes):
            return boxes, scores, np.zeros(0, dtype=np.int64), np.zeros((0, ALTERNATIVES, 2), np.float32), None
        axes = seen = None
        if self.classifier.draws_boxes and self.refine_boxes:
            # the classifier also draws each tile's box in its crop, at a finer scale than the localiser's
            probs, drawn = self.classifier.read(tile_crops(image, boxes))
            boxes = boxes_from_crops(boxes, drawn)
        else:  # each box read from crops cut with several margins (and turned upright), the readings averaged
            if self.axis_reader is not None and self.read_upright:
                axes = self.axis_reader.axes(image, boxes)
            probs, seen = self._crop_readings(image, boxes, axes)
        if self.bonus_reader is not None:  # flowers and seasons, read again from a larger crop (upright, with axes)
            probs = self.bonus_reader.reread(image, boxes, probs, axes, axis_reader=self.axis_reader)
        tile = scores * (1.0 - probs[:, -1])  # the localiser's score times "a tile, whichever" ("none" is last)
        if seen is not None:  # tiles that look alike read alike (vision.sibling_readings), among those reported
            # (it swaps two faces' probabilities: a box's best probability and its "none" stay as they are)
            reported = (scores * probs[:, :NUM_CLASSES].max(axis=1) >= self.confidence) | (tile >= SURE_TILE)
            probs = sibling_readings.share_readings(probs, seen, among=reported)
        classes, probability = best_tile(probs)
        alternatives = alternative_readings(probs, scores)
        named = scores * probability
        # a box surely a tile but unsure which (a face in an art style never seen) is raised to the detector's
        # threshold (not the call's: the evaluation asks down to 0.001 and cuts at the detector's own), its
        # alternatives in proportion, so that re-reading it (vision.repair) weighs them as before
        unsure = (named < self.confidence) & (tile >= SURE_TILE)
        raise_by = np.where(unsure, self.confidence / np.maximum(named, 1e-9), 1.0).astype(np.float32)
        scores = np.where(unsure, self.confidence, named)
        alternatives[..., 1] *= raise_by[:, None]
        keep = np.flatnonzero(scores >= confidence)
        if len(keep):  # the final NMS, on the pair's score, whatever the class (tiles do not overlap)
            keep = keep[class_aware_nms(boxes[keep], scores[keep], np.zeros(len(keep)), iou_threshold=0.5,
                                        cross_class_iou=None)]
            # and tighter among the boxes reported at the detector's threshold (FINAL_IOU); below it (asked for by the
            # evaluation's AP curves) a weaker box of another class over a tile stays a candidate
            above = scores[keep] >= self.confidence
            reported = keep[above]
            if len(reported) > 1:
                reported = reported[class_aware_nms(boxes[reported], scores[reported], np.zeros(len(reported)),
                                                    iou_threshold=FINAL_IOU, cross_class_iou=None)]
                keep = np.concatenate([reported, keep[~above]])
        return boxes[keep], scores[keep], classes[keep], alternatives[keep], None if axes is None else axes[keep]

    def _crop_readings(self, image: Image.Image, boxes: np.ndarray, axes: np.ndarray | None
                       ) -> tuple[np.ndarray, np.ndarray | None]:
        """Each box's classifier probabilities averaged over its crops (one a margin of ``crop_margins``, and one a
        margin turned upright where ``axes`` are given), each read both ways up, and what the classifier's last
        layer reads, averaged alike (None unless ``share_readings`` and the classifier answers it). With
        ``sure_reading`` the crops at the training's margin (``vision.crops.MARGIN``) are read first, and a box whose
        average over them is that sure of one answer (a tile, or none) keeps it, unless it overlaps another box at
        ``FINAL_IOU`` or more: only the others are read from the rest of the crops, and their average is the one
        every crop gives (``SURE_READING``). With ``sure_one_way`` too, those first crops are read one way up before
        the other, and a box that sure of one answer then keeps that reading (``SURE_ONE_WAY``); the others' first
        reading is then the both-ways one, to the last bit."""
        from vision.crops import tile_crops, upright_crops

        kinds = [(margin, False) for margin in self.crop_margins]
        kinds += [(margin, True) for margin in self.crop_margins] if axes is not None else []
        first = [number for number, (margin, _) in enumerate(kinds) if margin == MARGIN]
        if self.sure_reading is None or not first or len(first) == len(kinds):
            first = list(range(len(kinds)))
        features = self.share_readings and getattr(self.classifier, "gives_features", False)

        def cut(numbers: list[int], rows: np.ndarray) -> dict[int, np.ndarray]:
            """The crops ``numbers`` (of ``kinds``) of the boxes ``rows``."""
            crops = {number: tile_crops(image, boxes[rows], margin=kinds[number][0])
                     for number in numbers if not kinds[number][1]}
            turned = [number for number in numbers if kinds[number][1]]
            if turned:  # room made for the widest margin's crop, so that a crop is the same cut alone or with all
                crops.update(zip(turned, upright_crops(image, boxes[rows], axes[rows],
                                                       margins=tuple(kinds[n][0] for n in turned),
                                                       room=max(self.crop_margins))))
            return crops

        def run(crops: np.ndarray, **way: bool) -> tuple[np.ndarray, np.ndarray | None]:
            """The classifier's probabilities and features of ``crops`` (both ways up unless ``half_turn=False``)."""
            if features:
                return self.classifier.read_features(crops, **way)
            return self.classifier.probabilities(crops, **way), None

        first_crops = cut(first, np.arange(len(boxes)))
        cascade = len(first) < len(kinds)  # some crops are left for the boxes the first ones leave unsure
        if cascade:
            # a box overlapping another as much as the final NMS parts them is read from every crop, as the other
            # is: which of the two is kept is decided by their scores, and a first reading runs higher than every crop's
            overlaps = iou_matrix(boxes, boxes)
            np.fill_diagonal(overlaps, 0.0)
            contested = overlaps.max(axis=1, initial=0.0) >= FINAL_IOU
        if cascade and self.sure_one_way is not None:
            readings = {number: run(first_crops[number], half_turn=False) for number in first}
            one_way = np.mean([readings[number][0] for number in first], axis=0)
            other_way = np.flatnonzero((one_way.max(axis=1) < self.sure_one_way) | contested)
            if len(other_way):  # the same crops turned a half turn, averaged as a both-ways reading averages them
                for number in first:
                    probs, seen = run(first_crops[number][other_way][:, ::-1, ::-1], half_turn=False)
                    readings[number][0][other_way] = (readings[number][0][other_way] + probs) / 2
                    if seen is not None:
                        readings[number][1][other_way] = (readings[number][1][other_way] + seen) / 2
        else:
            readings = {number: run(first_crops[number]) for number in first}

        def averaged(part: int, rows: np.ndarray | None = None) -> np.ndarray:
            """The mean of the readings' ``part`` (0: probabilities, 1: features) over the first crops (``rows``
            None), or over every crop in the order of ``kinds`` for the boxes ``rows``, as if all were read at once."""
            if rows is None:
                return np.mean([readings[number][part] for number in first], axis=0)
            return np.mean([readings[number][part][rows] if number in first else readings[number][part]
                            for number in range(len(kinds))], axis=0)

        probs = averaged(0)
        seen = averaged(1) if features else None
        if cascade:
            rest = [number for number in range(len(kinds)) if number not in readings]
            # a box read one way up alone is at least sure_one_way >= sure_reading sure, and not contested
            unsure = np.flatnonzero((probs.max(axis=1) < self.sure_reading) | contested)
            if len(unsure):
                crops = cut(rest, unsure)
                readings.update({number: run(crops[number]) for number in rest})
                probs[unsure] = averaged(0, unsure)
                if features:
                    seen[unsure] = averaged(1, unsure)
        return probs, seen

    def unsure_boxes(self, source: ImageInput, reported: Detections, floor: float = UNSURE_FLOOR,
                     limit: int = UNSURE_LIMIT) -> tuple[Detection, ...]:
        """The boxes of a photo under the detector's threshold (down to ``floor``) that overlap none of the tiles
        ``reported`` (``detect``'s answer for it: IoU under ``UNSURE_APART``), the likeliest ``limit`` first: a
        tile found faintly or named unsurely. A second reading of the photo, so it is only asked for when the hand
        as read lacks a tile (``vision.photo_reading``)."""
        width, height, boxes, scores, classes, alternatives, axes = self._detect_arrays(source, floor, name=True)
        under = np.flatnonzero(scores < self.confidence)
        if len(under) and len(reported):
            apart = iou_matrix(boxes[under], np.array([t.box for t in reported.tiles])).max(axis=1) < UNSURE_APART
            under = under[apart]
        under = under[np.argsort(-scores[under], kind="stable")][:limit]
        if not len(under):
            return ()
        found = to_detections(width, height, boxes[under], scores[under], classes[under],
                              None if alternatives is None else alternatives[under],
                              None if axes is None else axes[under])
        return found.tiles

    def detect(self, source: ImageInput, confidence: float | None = None) -> Detections:
        """Every tile in a photo, best confidence first, with the sideways flags set."""
        width, height, boxes, scores, classes, alternatives, axes = self._detect_arrays(source, confidence, name=True)
        # a box the classifier is sure is a tile but not which was raised to the threshold (``_name``): only such a
        # box scores the threshold itself, and its reading is a guess (``Detection.unsure_face``)
        unsure_face = None if self.classifier is None else scores == np.float32(self.confidence)
        return to_detections(width, height, boxes, scores, classes, alternatives, axes, unsure_face)

    def detect_closer(self, source: ImageInput, reported: Detections | None = None,
                      zoom: float = CLOSER_ZOOM) -> Detections | None:
        """The photo read again enlarged ``zoom`` times, so that it is read in windows too (``plan_slices``), its
        boxes in the photo's own pixels. A second look at a small photo whose hand lacks a tile
        (``vision.photo_reading``): a 1280 x 720 photo is read whole at 640 pixels, where a tile seen small is a
        dozen pixels wide. None for a photo big enough to be read in windows at its own size, or one whose tiles
        ``reported`` (its ``detect``) already shows big enough (``CLOSER_BELOW``)."""
        picture = self._load(source)
        width, height = picture.info.get("full_size", picture.size)
        if not self.slicing or plan_slices(width, height, self.size):
            return None
        if reported is not None and len(reported.tiles) and _tiles_seen_whole(
                np.array([t.box for t in reported.tiles]), np.array([t.confidence for t in reported.tiles]),
                max(width, height), self.size, big_enough=CLOSER_BELOW):
            return None
        closer = picture.resize((round(picture.width * zoom), round(picture.height * zoom)),
                                Image.Resampling.BICUBIC)
        found = self.detect(closer)
        back = np.array([width / closer.width, height / closer.height] * 2)
        return Detections(width, height, tuple(
            replace(tile, box=tuple(float(v) for v in np.asarray(tile.box) * back)) for tile in found.tiles))

    __call__ = detect


def _sure_boxes(boxes: np.ndarray, scores: np.ndarray) -> np.ndarray | None:
    """The boxes the localiser is sure of (``SLICE_EVIDENCE``), which tell what its tiles look like in a photo
    (their size, their shape); None when there are too few to tell."""
    min_score, min_count = SLICE_EVIDENCE
    sure = boxes[scores >= min_score]
    return sure if len(sure) >= min_count else None


STRETCHED = 2.5
"""A photo is taken for one resized out of proportion (a publisher's export squeezed to a square: 35 of the 296 real
val photos, most with tiles 9-12 times wider than tall or 7-14 times taller than wide) when three in four of the tiles
the localiser is sure of (``SLICE_EVIDENCE``) are more than this many times wider than tall, or taller than wide: a
tile's face is about 3 : 4, and lying sideways, seen steeply, it reaches 2 : 1 and more, but then the standing tiles
beside it keep their shape (the held-out meld scenes: one photo in 800 has a median tile over 2.5 times wider than
tall, none a lower quartile). Milder cases (1.6 or 1.8; exports squeezed 4 : 3 or 16 : 9, which the training photos
are full of) read worse resized (models/README.md, stop 25)."""
TILE_ASPECT = 0.75
"""Such a photo is read again resized so that that median tile is this wide for its height (a standing tile's
face): whichever way its tiles lay, it is then within the shapes the models were trained on."""
MAX_RESTORED_SIDE = 8192
"""The photo is restored by enlarging its squeezed side (keeping every pixel it has), to at most this long side."""


def unstretched_size(boxes: np.ndarray, scores: np.ndarray, size: tuple[int, int]) -> tuple[int, int] | None:
    """The size a photo resized out of proportion is restored to (``STRETCHED``), from the localiser's boxes
    on it; None for a photo in proportion, or one with too few sure tiles to tell.

    >>> wide = np.array([[0, 0, 540, 60]] * 4, dtype=np.float32)  # tiles 9 times wider than tall
    >>> unstretched_size(wide, np.full(4, 0.9), (640, 640))  # the height enlarged 12 times
    (640, 7680)
    >>> unstretched_size(wide[:, [1, 0, 3, 2]], np.full(4, 0.9), (640, 640))  # 9 times taller: the width enlarged
    (4320, 640)
    >>> unstretched_size(np.array([[0, 0, 60, 80]] * 4, dtype=np.float32), np.full(4, 0.9), (640, 640)) is None
    True
    >>> unstretched_size(wide, np.full(4, 0.3), (640, 640)) is None  # no sure tile
    True
    >>> steep = np.array([[0, 0, 300, 100]] * 3 + [[0, 0, 60, 80]] * 2, dtype=np.float32)  # flat melds, a standing row
    >>> unstretched_size(steep, np.full(5, 0.9), (1280, 720)) is None
    True
    """
    sure = _sure_boxes(boxes, scores)
    if sure is None:
        return None
    aspects = (sure[:, 2] - sure[:, 0]) / np.maximum(sure[:, 3] - sure[:, 1], 1e-6)
    lower, aspect, upper = (float(q) for q in np.percentile(aspects, [25, 50, 75]))
    if lower <= STRETCHED and upper >= 1 / STRETCHED:  # a steep view's flat melds alone look as wide: not all tiles
        return None
    width, height = size
    factor = aspect / TILE_ASPECT
    width, height = (width, height * factor) if factor > 1 else (width / factor, height)
    shrink = min(1.0, MAX_RESTORED_SIDE / max(width, height))
    return max(1, round(width * shrink)), max(1, round(height * shrink))


CLOSE_UP = 0.15
"""A photo is a close-up when the median long side of the tiles the localiser is sure of (``SLICE_EVIDENCE``) is at
least this share of the photo's long side: a heap of a dozen tiles filling the frame, each some 100 px of the 640-px
pass and 50 of the 320-px one, bigger than most the localiser was trained on, and it is unsure of them (scores
0.3-0.6, so that with the classifier's probability most fall under the threshold). Such a photo is read again with a
third pass at ``CLOSE_UP_SCALE`` of the input (160 px), where they are tile-sized, merged with the others. Measured
on real val (models/README.md, stop 25): the pass added to every photo found 36 more tiles but added 26 extra boxes
(in photos of small tiles, boxes over nothing); 0.12-0.16 read the same photos' tiles alike."""
CLOSE_UP_SCALE = 0.25


def is_close_up(boxes: np.ndarray, scores: np.ndarray, size: tuple[int, int]) -> bool:
    """Whether the tiles the localiser is sure of are big in the photo (``CLOSE_UP``).

    >>> boxes = np.array([[0, 0, 80, 110]] * 4, dtype=np.float32)
    >>> is_close_up(boxes, np.full(4, 0.6), (640, 480)), is_close_up(boxes / 2, np.full(4, 0.6), (640, 480))
    (True, False)
    >>> is_close_up(boxes, np.full(4, 0.4), (640, 480))  # too few sure tiles to tell
    False
    """
    sure = _sure_boxes(boxes, scores)
    if sure is None:
        return False
    long_sides = np.maximum(sure[:, 2] - sure[:, 0], sure[:, 3] - sure[:, 1])
    return float(np.median(long_sides)) >= CLOSE_UP * max(size)


MAX_LONG_SIDE = 2200
"""The windows of a sliced photo are cut from it scaled down to this long side: 2 x 2 windows of 1280 px, as for
a 12-megapixel photo decoded at a reduced scale (2000 x 1500), where a 3,000-3,599 px photo (which that decoding
leaves whole) got 3 x 3 and took twice as long. Measured on 3000-4000 px rendered photos (models/README.md): it
also reads them better (fewer extra boxes)."""

SLICE_BELOW = 28.0
"""A big photo is also read in windows (slicing) unless the whole-photo pass already sees its tiles at least
this many pixels tall or wide (their median short side, in the model's input) ..."""
SLICE_EVIDENCE = (0.5, 4)
"""... judged on the localiser's boxes of at least this score, when there are at least this many of them
(``_sure_boxes``; a photo resized out of proportion and a close-up are told from the same boxes)."""


def _tiles_seen_whole(boxes: np.ndarray, scores: np.ndarray, long_side: int, size: int,
                      big_enough: float = SLICE_BELOW) -> bool:
    """Whether the whole-photo pass saw the photo's tiles big enough that windows would add nothing (and cost
    four more passes): a hand photographed from close by, whatever the camera's megapixels. ``big_enough``: the
    median short side of the sure boxes, in the model's input, that says so (``Detector.detect_closer`` asks it
    with ``CLOSER_BELOW``).

    >>> boxes = np.array([[0, 0, 100, 130]] * 4, dtype=np.float32)  # 100 px wide in a 2000-px photo
    >>> _tiles_seen_whole(boxes, np.full(4, 0.9), 2000, 640)  # 32 px in the 640-px input
    True
    >>> _tiles_seen_whole(boxes, np.full(4, 0.9), 4000, 640), _tiles_seen_whole(boxes[:3], np.full(3, 0.9), 2000, 640)
    (False, False)
    """
    sure = _sure_boxes(boxes, scores)
    if sure is None:
        return False
    short = np.minimum(sure[:, 2] - sure[:, 0], sure[:, 3] - sure[:, 1])
    return float(np.median(short)) * size / long_side >= big_enough


CROP_MARGINS = (0.04, 0.08, 0.12, 0.16)
"""The classifier reads each box from crops cut with each of these shares of its size added a side (its training
crops have 0.08, ``vision.crops.MARGIN``, with the edges jittered by up to 0.08), and the readings are averaged:
the localiser's box is a little off, and a face in an art style never seen reads surer at one margin than at
another. Measured on true boxes moved by up to 5 % (models/README.md, stop 18): right 96.88 -> 97.13 % on the
real val photos, 90.6 -> 91.8 % in the held-out art style, 96.18 -> 96.18 % in the training styles. With a
face-axis reader each box is also read from crops of the same margins turned so that its face stands upright
(``vision.crops.upright_crops``, ``Detector(read_upright=True)``), and all the readings are averaged: a face in a
row turned 40 degrees then also reads as the upright faces most training crops show."""

SURE_TILE = 0.7
"""A box whose best reading falls below the threshold is still kept (at the threshold) when the localiser's score
times the classifier's "a tile, whichever" (1 - P(none)) reaches this: a face in an art style the classifier
never saw spreads its probability over several tiles, and dropping it loses a tile the hand needs. Measured
(models/README.md): 0.65-0.75 read the same real val photos exactly (61.5 %, 61.1 % without it); lower lets
tile sides and cloth through."""

ALTERNATIVES = 3
"""How many other readings a detection keeps (``Detection.alternatives``) ..."""
ALTERNATIVE_SHARE = 0.01
"""... each at least this share of the classifier's probability (rarer ones are noise)."""


def alternative_readings(probs: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """N x ALTERNATIVES x 2 (class id, confidence) of each box's next likeliest tile classes after its best:
    the classifier's probability times the localiser's ``score``, as a detection's own confidence is.
    Rows of a class below ALTERNATIVE_SHARE are -1 and 0 ("none", not a tile, is never an alternative).

    >>> probs = np.array([[0.7, 0.2, 0.005, 0.095]])  # three tile classes, then "none"
    >>> alternative_readings(probs, np.array([0.5])).astype(float).round(3).tolist()
    [[[1.0, 0.1], [-1.0, 0.0], [-1.0, 0.0]]]
    """
    tiles = probs[:, :probs.shape[1] - 1]  # the last column is "none"
    order = np.argsort(-tiles, axis=1, kind="stable")[:, 1:1 + ALTERNATIVES]
    chances = np.take_along_axis(tiles, order, axis=1)
    out = np.zeros((len(probs), ALTERNATIVES, 2), dtype=np.float32)
    out[:, :order.shape[1], 0] = order
    out[:, :order.shape[1], 1] = chances * np.asarray(scores, dtype=np.float32)[:, None]
    weak = np.ones_like(out[..., 0], dtype=bool)
    weak[:, :order.shape[1]] = chances < ALTERNATIVE_SHARE
    out[weak] = (-1, 0)
    return out


def to_detections(width: int, height: int, boxes: np.ndarray, scores: np.ndarray, classes: np.ndarray,
                  alternatives: np.ndarray | None = None, axes: np.ndarray | None = None,
                  unsure_face: np.ndarray | None = None) -> Detections:
    """The edge where arrays become our types (once). ``alternatives``: ``alternative_readings`` rows; ``axes``:
    each box's face axis, which the sideways flags come from (``mark_sideways``); ``unsure_face``: each box kept at
    the threshold though the classifier could not say which face it is (``Detection.unsure_face``)."""
    made = []  # (detection, its box's index): the axes follow the boxes kept, in the detections' order
    for k, (box, score, cls) in enumerate(zip(boxes.tolist(), scores.tolist(), classes.tolist())):
        # in the photo, whatever rounding the box voting and the mapping back left (640.0000000000001)
        x1, x2 = (min(max(v, 0.0), float(width)) for v in box[::2])
        y1, y2 = (min(max(v, 0.0), float(height)) for v in box[1::2])
        if x2 - x1 < 1 or y2 - y1 < 1:
            continue
        confidence = min(max(float(score), 0.0), 1.0)
        others = () if alternatives is None else tuple(
            (class_from_id(int(c)), min(float(p), confidence)) for c, p in alternatives[k].tolist() if c >= 0)
        # each face's axis travels with it, where the reader was sure of one
        axis = float(axes[k]) if axes is not None and np.isfinite(axes[k]) else None
        made.append((Detection(class_from_id(int(cls)), (x1, y1, x2, y2), confidence, alternatives=others,
                               axis=axis, unsure_face=bool(unsure_face[k]) if unsure_face is not None else False),
                     k))
    made.sort(key=lambda pair: -pair[0].confidence)
    tiles = [tile for tile, _ in made]
    kept_axes = None if axes is None else np.asarray(axes, dtype=np.float64)[[k for _, k in made]]
    return Detections(width, height, mark_sideways(tiles, axes=kept_axes))


def detect(image: ImageInput, model_path: str | os.PathLike[str] | None = None) -> Detections:
    """One-off detection (loads the model each call; keep a ``Detector`` for more than one photo)."""
    return Detector(model_path).detect(image)


__all__ = ["Detector", "DetectorError", "DEFAULT_CONFIDENCE", "DEFAULT_MODEL", "decode", "detect", "letterbox",
           "load_image", "mark_sideways", "merge", "to_detections"]
