"""Tile crops: the classifier's input, cut the same way at training and at inference.

A crop is the box widened by a small margin (the localiser's boxes are a few pixels off), turned a
quarter when it is wider than tall (a sideways tile, or an upright tile in a photo turned a quarter), so
that every face stands portrait, and resized to ``CROP_WIDTH`` x ``CROP_HEIGHT``. Which way up the face
then stands (0 or 180 degrees) is left to the classifier, which is trained on both. A box more than
``STRETCHED_ASPECT`` times wider than tall is not turned: no tile lies that flat in a photo of the right
shape, so it is an upright tile of a photo squeezed one way (some published photos were resized to a
square whatever their shape), and resizing the crop undoes the squeeze.

>>> image = np.zeros((100, 200, 3), dtype=np.uint8)
>>> tile_crops(image, np.array([[10, 10, 40, 50], [50, 10, 110, 50]], dtype=np.float32)).shape
(2, 64, 48, 3)

A crop's ``CropFrame`` says where it came from, so that a box drawn in the crop (the classifier's box
output, as shares of the crop's width and height) maps back to the photo, and a true box maps into it:

>>> frame = crop_frame((50, 10, 110, 50))        # wider than tall: turned a quarter
>>> frame
CropFrame(left=45, top=7, right=115, bottom=53, turned=True)
>>> box_to_crop((50, 10, 110, 50), frame).astype(float).round(3).tolist()
[0.065, 0.071, 0.935, 0.929]
>>> box_from_crop(box_to_crop((50, 10, 110, 50), frame), frame).astype(float).round(1).tolist()
[50.0, 10.0, 110.0, 50.0]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PIL import Image

from vision.boxes import iou_matrix

CROP_WIDTH = 48
CROP_HEIGHT = 64
MARGIN = 0.08
"""Share of the box's width and height added on each side before cropping."""
STRETCHED_ASPECT = 5.0
"""A box wider than this many heights is a squeezed photo's upright tile, not a sideways one (a 4:3 face lying
sideways reaches it only when seen at 75 degrees of tilt). Measured on the real val photos' true boxes: the 395
tiles of the 34 photos stretched 5-15 times one way are named right 94.4 % of the time instead of 83.3 %; the
other 6,218 tiles and the held-out art style's 3,223 are named as before (96.75 % and 85.9 %)."""


@dataclass(frozen=True)
class CropFrame:
    """The photo's region a crop was cut from (pixels, right and bottom exclusive) and whether the crop was
    turned a quarter (counter-clockwise) to stand portrait."""

    left: int
    top: int
    right: int
    bottom: int
    turned: bool


def crop_frame(box: np.ndarray | tuple[float, float, float, float], *, margin: float = MARGIN) -> CropFrame:
    """The frame of the crop of ``box`` (x1 y1 x2 y2 pixels): the box widened by ``margin`` each side."""
    x1, y1, x2, y2 = (float(v) for v in box)
    w, h = max(x2 - x1, 1.0), max(y2 - y1, 1.0)
    left, top = int(round(x1 - margin * w)), int(round(y1 - margin * h))
    right = max(int(round(x2 + margin * w)), left + 1)
    bottom = max(int(round(y2 + margin * h)), top + 1)
    return CropFrame(left, top, right, bottom, h < w <= STRETCHED_ASPECT * h)


def box_to_crop(box: np.ndarray | tuple[float, float, float, float], frame: CropFrame) -> np.ndarray:
    """A box in the photo's pixels -> (x1, y1, x2, y2) as shares of the crop's width and height."""
    width, height = frame.right - frame.left, frame.bottom - frame.top
    u1, v1 = (box[0] - frame.left) / width, (box[1] - frame.top) / height
    u2, v2 = (box[2] - frame.left) / width, (box[3] - frame.top) / height
    if frame.turned:  # a quarter turn counter-clockwise sends (u, v) to (v, 1 - u)
        u1, v1, u2, v2 = v1, 1 - u2, v2, 1 - u1
    return np.array([u1, v1, u2, v2], dtype=np.float32)


def box_from_crop(shares: np.ndarray | tuple[float, float, float, float], frame: CropFrame) -> np.ndarray:
    """The inverse of ``box_to_crop``: shares of the crop -> the box in the photo's pixels."""
    a1, b1, a2, b2 = (float(v) for v in shares)
    if frame.turned:
        a1, b1, a2, b2 = 1 - b2, a1, 1 - b1, a2
    width, height = frame.right - frame.left, frame.bottom - frame.top
    return np.array([frame.left + a1 * width, frame.top + b1 * height, frame.left + a2 * width,
                     frame.top + b2 * height], dtype=np.float32)


def boxes_from_crops(boxes: np.ndarray, drawn: np.ndarray, *, margin: float = MARGIN,
                     min_iou: float = 0.5) -> np.ndarray:
    """The boxes a box head drew (N x 4 shares of each box's crop) in the photo's pixels. Where a drawn box
    is degenerate or strays from the box it was drawn in (IoU below ``min_iou``), the box is kept as it was:
    a crop of a heap may show a neighbour better than its own tile."""
    given = np.asarray(boxes, dtype=np.float32).reshape(-1, 4)
    out = given.copy()
    for i, (box, shares) in enumerate(zip(given, np.asarray(drawn, dtype=np.float32).reshape(-1, 4))):
        refined = box_from_crop(shares, crop_frame(box, margin=margin))
        if not np.all(np.isfinite(refined)) or refined[2] <= refined[0] or refined[3] <= refined[1]:
            continue
        if iou_matrix(box[None], refined[None])[0, 0] >= min_iou:
            out[i] = refined
    return out


REDUCING_GAP: float | None = 2.0
"""A crop whose region is at least twice this many times its size is first reduced by a whole factor (box averages,
Pillow's ``reduce``), to no less than this many times the crop, and then resized (Pillow's ``reducing_gap``): the
crops of a close-up's big faces cost less (stop 26, profiled on the 8 slowest of 60 rendered 3,000-4,000 px photos:
turning the upright crops 45 -> 22 ms a photo; the whole set's median 321 -> 317 ms in an A/B, within noise), to a
grey level or so of the one-step resizing. None: resized in one step."""


WIDE_GREY_MODES = ("I;16", "I;16L", "I;16B", "I;16N", "I")
"""Pillow's modes of a grey picture with more than 8 bits a pixel (a 16-bit PNG from a scanner or an editor)."""


def as_rgb(picture: Image.Image) -> Image.Image:
    """The picture in RGB: itself when it is already (Pillow's ``convert`` to the same mode copies the whole
    picture; a 12-megapixel photo's nine crop batches spent 12 ms on such copies). A 16-bit grey picture is
    brought to 8 bits first: Pillow's own conversion clips it (every pixel over 255 white), and the detector
    saw a blank page.

    >>> grey16 = Image.fromarray(np.full((4, 4), 40000, np.uint16))
    >>> as_rgb(grey16).getpixel((0, 0))
    (156, 156, 156)
    """
    if picture.mode == "RGB":
        return picture
    if picture.mode in WIDE_GREY_MODES:
        values = np.asarray(picture, dtype=np.int64).clip(0, 65535)
        shift = 8 if values.max(initial=0) > 255 else 0  # ("I" may hold 8-bit values too)
        picture = Image.fromarray((values >> shift).astype(np.uint8), "L")
    return picture.convert("RGB")


def tile_crop(image: Image.Image, box: np.ndarray | tuple[float, float, float, float], *,
              margin: float = MARGIN, size: tuple[int, int] = (CROP_WIDTH, CROP_HEIGHT)) -> np.ndarray:
    """One crop (``size`` = width, height: CROP_HEIGHT x CROP_WIDTH x 3, uint8) of a PIL RGB image; outside the
    photo is black."""
    frame = crop_frame(box, margin=margin)
    region = image.crop((frame.left, frame.top, frame.right, frame.bottom))
    if frame.turned:
        region = region.transpose(Image.Transpose.ROTATE_90)
    region = region.resize(size, Image.Resampling.BILINEAR, reducing_gap=REDUCING_GAP)
    return np.asarray(region, dtype=np.uint8)


def tile_crops(image: np.ndarray | Image.Image, boxes: np.ndarray, *, margin: float = MARGIN,
               size: tuple[int, int] = (CROP_WIDTH, CROP_HEIGHT)) -> np.ndarray:
    """Crops of every box (N x 4, x1 y1 x2 y2 in the image's pixels): N x height x width x 3 uint8 (``size`` =
    width, height; the tile classifier's CROP_WIDTH x CROP_HEIGHT unless given)."""
    picture = image if isinstance(image, Image.Image) else Image.fromarray(np.ascontiguousarray(image))
    picture = as_rgb(picture)
    out = np.zeros((len(boxes), size[1], size[0], 3), dtype=np.uint8)
    for i, box in enumerate(np.asarray(boxes, dtype=np.float32).reshape(-1, 4)):
        out[i] = tile_crop(picture, box, margin=margin, size=size)
    return out


def to_tensor(crops: np.ndarray) -> np.ndarray:
    """N x H x W x 3 uint8 crops -> the classifier's N x 3 x H x W float32 input in 0..1."""
    return np.ascontiguousarray(crops.transpose(0, 3, 1, 2), dtype=np.float32) / 255.0


UPRIGHT_SCALE = 1.15
"""An upright crop covers the face's rectangle (``vision.face_geometry.face_rectangles``) times this, plus the
margin: the rectangle is the face's, and the box it was solved from also holds the tile's sides. Measured on
true boxes moved by up to 5 % (models/README.md, stop 18): 1.0, 1.15 and 1.3 read the held-out art style's
tiles, each with the crops as cut, 92.7, 93.6 and 93.5 % right."""


TURNED_BY = "opencv"
"""What turns the upright crops (``turned``): "opencv" since stop 46, Pillow's ``rotate`` before. The two differ by a grey
level here and there, so a reading cache (``vision.reading_cache``) made by the other is started afresh."""


def turned(picture: Image.Image, degrees: float, centre: tuple[float, float]) -> Image.Image:
    """``picture`` turned ``degrees`` counter-clockwise about ``centre`` (pixels), bilinear, the same size, black where
    nothing of it lands: Pillow's ``rotate``, sampled by OpenCV's ``warpAffine``, over twice as fast at a face's patch
    (stop 46: 3.4 -> 1.4 ms at 300 px). Pillow's geometry (its matrix, pixel centres) and its arithmetic: the sums in
    floating point, truncated, not rounded. About one value in a thousand still differs, by one grey level (OpenCV
    places a sample to 1/32 of a pixel); on the rim, where a pixel's four lie partly outside, OpenCV blends in black
    and Pillow does not (no crop reaches it). Rounded, as OpenCV does in 8 bits, values came out half a grey level
    lighter on average, and that flipped two close calls of 400 held-out hands.

    >>> patch = Image.fromarray(np.arange(48, dtype=np.uint8).reshape(6, 8))
    >>> ours, pillows = turned(patch, 30.0, (4.0, 3.0)), patch.rotate(30.0, Image.Resampling.BILINEAR, center=(4.0, 3.0))
    >>> np.array_equal(np.asarray(ours)[1:5, 2:6], np.asarray(pillows)[1:5, 2:6])  # inside the rim
    True
    >>> np.asarray(turned(patch, 90.0, (4.0, 3.0)))[0].tolist()
    [0, 6, 14, 22, 30, 38, 46, 0]
    """
    import cv2

    radians = -np.deg2rad(degrees)
    # Pillow's matrix (output -> input), rounded as Pillow rounds it, about the centre
    a, b = round(float(np.cos(radians)), 15), round(float(np.sin(radians)), 15)
    matrix = np.array([[a, b, 0.0], [-b, a, 0.0]])
    cx, cy = centre
    matrix[:, 2] = matrix[:, :2] @ np.array([-cx, -cy]) + np.array([cx, cy])
    # Pillow samples at pixel centres (input + 0.5 = M (output + 0.5)); OpenCV at pixel corners
    matrix[:, 2] += matrix[:, :2] @ np.array([0.5, 0.5]) - 0.5
    out = cv2.warpAffine(np.asarray(picture).astype(np.float32), matrix, picture.size,
                         flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    out += 1e-3  # a whole value float32 brings in a hair under itself stays whole when truncated
    return Image.fromarray(out.astype(np.uint8))


def upright_crops(image: Image.Image | np.ndarray, boxes: np.ndarray, axes: np.ndarray, *,
                  margins: tuple[float, ...] = (MARGIN,), scale: float = UPRIGHT_SCALE,
                  size: tuple[int, int] = (CROP_WIDTH, CROP_HEIGHT), room: float | None = None) -> list[np.ndarray]:
    """Crops of each box turned so that its face stands upright (or upside down: an axis has no sign), one
    N x height x width x 3 array a margin: the face's rectangle from its box and its axis (degrees, 90 =
    upright, ``vision.orientation``) times ``scale``, widened by the margin a side. The face is turned in a patch
    with room for a crop of margin ``room`` (default: the widest of ``margins``): a crop is the same, pixel for pixel,
    whatever other margins are cut with it when ``room`` is the same. Where the axis is unknown
    (NaN), the face's rectangle cannot be solved, or the box is not ``vision.face_geometry.seen_as_is`` (a
    stretched photo), the crop is ``tile_crop``'s. Outside the photo is black.

    A tile in a row turned 40 degrees comes out as a tile of an upright row, which is what most of the
    classifier's training crops show:

    >>> image = np.zeros((100, 100, 3), dtype=np.uint8)
    >>> [c.shape for c in upright_crops(image, np.array([[20, 20, 60, 70]]), np.array([50.0]), margins=(0.04, 0.16))]
    [(1, 64, 48, 3), (1, 64, 48, 3)]
    """
    from vision.face_geometry import face_rectangles, seen_as_is

    picture = image if isinstance(image, Image.Image) else Image.fromarray(np.ascontiguousarray(image))
    picture = as_rgb(picture)
    boxes = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
    axes = np.asarray(axes, dtype=np.float64).reshape(-1)
    out = [np.zeros((len(boxes), size[1], size[0], 3), dtype=np.uint8) for _ in margins]
    if not len(boxes):
        return out
    faces = face_rectangles(boxes, axes)
    turnable = seen_as_is(boxes)  # a stretched photo's box: its axis means nothing
    widest = 2 * scale * (1 + 2 * max(margins if room is None else (*margins, room)))  # in half diagonals of the face
    for i, box in enumerate(boxes):
        half_height, half_width = faces.half_heights[i], faces.half_widths[i]
        if not (turnable[i] and np.isfinite(axes[i]) and np.isfinite(half_height) and np.isfinite(half_width)):
            for crops, margin in zip(out, margins):
                crops[i] = tile_crop(picture, box, margin=margin, size=size)
            continue
        side = int(np.ceil(np.hypot(half_width, half_height) * widest)) + 4  # holds the turned crop whole
        x, y = (int(round(v)) for v in faces.centres[i])
        patch = picture.crop((x - side // 2, y - side // 2, x - side // 2 + side, y - side // 2 + side))
        centre = (faces.centres[i][0] - (x - side // 2), faces.centres[i][1] - (y - side // 2))
        # a face many times the crop's size is first reduced (box averages of k x k pixels) to at least
        # REDUCING_GAP times the crop, so that turning it and resizing it cost what a smaller face's do
        k = int(min(2 * half_height * scale / size[1], 2 * half_width * scale / size[0]) / REDUCING_GAP) \
            if REDUCING_GAP else 1
        if k >= 2:
            patch = patch.reduce(k)
            centre = (centre[0] / k, centre[1] / k)
            half_height, half_width = half_height / k, half_width / k
        patch = turned(patch, 90.0 - axes[i], centre)
        for crops, margin in zip(out, margins):
            w, h = 2 * half_width * scale * (1 + 2 * margin), 2 * half_height * scale * (1 + 2 * margin)
            region = (centre[0] - w / 2, centre[1] - h / 2, centre[0] + w / 2, centre[1] + h / 2)
            crops[i] = np.asarray(patch.resize(size, Image.Resampling.BILINEAR, box=region), dtype=np.uint8)
    return out
