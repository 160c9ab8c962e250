"""Training the tile classifier, the detector's second stage (``mjscan train --config configs/classifier.yaml``).

Why two stages: on two CPU cores a 43-class YOLO trained from scratch learns *where* tiles are long
before it learns *which* tile each is (measured: 0.79 class-agnostic recall at 0.85 precision, but 28 %
of the boxes found read as the right class). Finding tiles is one easy class; telling 43 faces apart is
a small-image classification problem that a little CNN learns from crops hundreds of times faster than a
detector learns it from whole photos. So the YOLO localiser finds tiles (one class), and this classifier
names each crop.

The data are crops (``vision.crops``) of every labelled box in YOLO-format folders (``images/`` beside
``labels/``): the real training photos and the rendered ones. Each box is cut a few times with its edges
jittered, as the localiser's boxes will be; ``none`` crops (tile-sized boxes off any tile, or astride two)
teach the classifier to reject the localiser's false boxes. Augmentation at training time: a half turn,
brightness, contrast, colour cast, grey, noise.

torch is imported lazily: ``vision.detector`` never needs it (inference is onnxruntime).
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np
from PIL import Image, ImageOps

from vision.classes import BONUS_CLASS_IDS, CLASS_NAMES, NUM_CLASSES
from vision.crops import CROP_HEIGHT, CROP_WIDTH, MARGIN, box_to_crop, crop_frame, tile_crop, upright_crops

NONE_ID = NUM_CLASSES  # 43: "not a tile" (the classifier's extra class)
BONUS_IDS = frozenset(BONUS_CLASS_IDS)  # flowers and seasons
PHOTO_SUFFIXES = frozenset({".jpg", ".jpeg", ".png", ".webp"})
"""The photos of a training folder that crops are cut from (and whose false boxes are mined)."""
CLASSIFIER_NAMES: tuple[str, ...] = (*CLASS_NAMES, "none")


def read_yolo_labels(label_path: Path, width: int, height: int) -> tuple[np.ndarray, np.ndarray]:
    """Boxes (N x 4 pixels, x1 y1 x2 y2) and class ids from a YOLO label file (missing: none)."""
    boxes, classes = [], []
    if label_path.is_file():
        for line in label_path.read_text().splitlines():
            parts = line.split()
            if len(parts) < 5:
                continue
            c, cx, cy, w, h = int(parts[0]), *map(float, parts[1:5])
            if not 0 <= c < NUM_CLASSES:
                continue
            boxes.append(((cx - w / 2) * width, (cy - h / 2) * height, (cx + w / 2) * width, (cy + h / 2) * height))
            classes.append(c)
    return np.asarray(boxes, dtype=np.float32).reshape(-1, 4), np.asarray(classes, dtype=np.int64)


def _iou(box: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    if not len(boxes):
        return np.zeros(0)
    x1 = np.maximum(box[0], boxes[:, 0]); y1 = np.maximum(box[1], boxes[:, 1])
    x2 = np.minimum(box[2], boxes[:, 2]); y2 = np.minimum(box[3], boxes[:, 3])
    inter = np.clip(x2 - x1, 0, None) * np.clip(y2 - y1, 0, None)
    area = (box[2] - box[0]) * (box[3] - box[1])
    areas = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    return inter / (area + areas - inter + 1e-9)


def jitter_box(box: np.ndarray, rng: np.random.Generator, amount: float) -> np.ndarray:
    """Each edge moved by up to ``amount`` of the box's size, as a localiser's box may be."""
    w, h = box[2] - box[0], box[3] - box[1]
    d = rng.uniform(-amount, amount, 4) * np.array([w, h, w, h])
    return box + d.astype(np.float32)


NO_BOX = np.full(4, np.nan, dtype=np.float32)
"""The box target of a crop that is not a tile."""


def sidecar_axes(path: Path, boxes: np.ndarray) -> np.ndarray:
    """Each labelled box's face axis (degrees, ``vision.orientation``) from a rendered photo's sidecar
    (``../sidecars/<stem>.json``: the face's corners), matched by box; NaN where there is no sidecar (a real
    photo) or no tile of the sidecar matches the box."""
    from vision.orientation_training import face_axis

    axes = np.full(len(boxes), np.nan)
    sidecar = path.parent.parent / "sidecars" / (path.stem + ".json")
    if not len(boxes) or not sidecar.is_file():
        return axes
    tiles = [t for t in json.loads(sidecar.read_text()).get("tiles", []) if t.get("box") and t.get("quad")]
    if not tiles:
        return axes
    known = np.asarray([t["box"] for t in tiles], dtype=np.float32)
    for i, box in enumerate(boxes):
        overlap = _iou(box, known)
        if overlap.max() >= 0.9:  # the label is the sidecar's box, rounded
            axes[i] = face_axis(tiles[int(overlap.argmax())]["quad"])
    return axes


def image_crops(path: Path, rng: np.random.Generator, *, copies: int, jitter: float,
                none_per_image: int, targets: list[np.ndarray] | None = None,
                false_boxes: np.ndarray | None = None, bonus_copies: int | None = None,
                upright_copies: int = 0, margins: tuple[float, float] | None = None,
                axis_noise: float = 4.0) -> tuple[list[np.ndarray], list[int]]:
    """Crops and labels of one labelled photo: ``copies`` jittered crops per box (the first one exact
    when ``jitter`` is 0; ``bonus_copies`` for a flower or season, where given: a hand holds one of each, so
    they are the rarest faces in the photos) and up to ``none_per_image`` crops that are not a tile. ``targets``, when given,
    gets each crop's true box as shares of the crop (``vision.crops.box_to_crop``; NaN for a non-tile).
    ``false_boxes`` (K x 4 or more columns, ``vision.false_boxes``) are cut as they are and labelled "none".

    ``upright_copies`` more crops a box are cut turned upright (``vision.crops.upright_crops``, as the detector
    reads each box too), by the face's axis from the sidecar give or take ``axis_noise`` degrees (the face-axis
    reader's error); a photo without a sidecar gets none. ``margins`` (low, high), where given, draws each crop's
    margin from that range, as the detector cuts each box at several margins (``vision.detector.CROP_MARGINS``);
    otherwise every crop has ``vision.crops.MARGIN``."""
    if upright_copies and targets is not None:
        raise ValueError("upright crops have no box target: a box head is trained on crops as cut only")
    image = ImageOps.exif_transpose(Image.open(path)).convert("RGB")
    label_path = path.parent.parent / "labels" / (path.stem + ".txt")
    boxes, classes = read_yolo_labels(label_path, image.width, image.height)
    crops: list[np.ndarray] = []
    labels: list[int] = []

    def margin() -> float:
        return MARGIN if margins is None else float(rng.uniform(margins[0], margins[1]))

    axes = sidecar_axes(path, boxes) if upright_copies else np.full(len(boxes), np.nan)
    for box, cls, axis in zip(boxes, classes, axes):
        for _ in range(bonus_copies if bonus_copies is not None and cls in BONUS_IDS else copies):
            cut = jitter_box(box, rng, jitter) if jitter else box
            crops.append(tile_crop(image, cut, margin=margin()))
            labels.append(int(cls))
            if targets is not None:
                targets.append(box_to_crop(box, crop_frame(cut)))
        if upright_copies and np.isfinite(axis):
            for _ in range(upright_copies):
                cut = jitter_box(box, rng, jitter) if jitter else box
                turned = axis + rng.normal(0.0, axis_noise)
                crops.append(upright_crops(image, cut[None], np.array([turned]), margins=(margin(),))[0][0])
                labels.append(int(cls))
    if none_per_image and len(boxes):
        sizes = np.stack([boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]], axis=1)
        made, tries = 0, 0
        while made < none_per_image and tries < none_per_image * 20:
            tries += 1
            w, h = sizes[rng.integers(len(sizes))] * rng.uniform(0.8, 1.25, 2)
            if rng.random() < 0.5:  # astride two neighbours: the localiser's likeliest false box
                anchor = boxes[rng.integers(len(boxes))]
                cx = (anchor[0] + anchor[2]) / 2 + rng.choice([-1, 1]) * rng.uniform(0.4, 0.6) * w
                cy = (anchor[1] + anchor[3]) / 2 + rng.uniform(-0.15, 0.15) * h
            else:
                cx, cy = rng.uniform(0, image.width), rng.uniform(0, image.height)
            candidate = np.array([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], dtype=np.float32)
            if _iou(candidate, boxes).max() >= 0.3:
                continue
            crops.append(tile_crop(image, candidate))
            labels.append(NONE_ID)
            if targets is not None:
                targets.append(NO_BOX)
            made += 1
    for box in (false_boxes if false_boxes is not None else ()):
        crops.append(tile_crop(image, np.asarray(box[:4], dtype=np.float32)))
        labels.append(NONE_ID)
        if targets is not None:
            targets.append(NO_BOX)
    return crops, labels


def photo_paths(folders: Sequence[Path], limit: int | None = None) -> list[Path]:
    """The photos of each folder (``PHOTO_SUFFIXES``) by name, the first ``limit`` of each where given."""
    paths: list[Path] = []
    for folder in folders:
        found = sorted(p for p in Path(folder).iterdir() if p.suffix.lower() in PHOTO_SUFFIXES)
        paths.extend(found[:limit] if limit else found)
    return paths


def build_crops(folders: Sequence[Path], *, copies: int, jitter: float, none_per_image: int, seed: int,
                limit: int | None = None, progress: bool = True, boxes: list[np.ndarray] | None = None,
                false_boxes: dict[str, np.ndarray] | None = None, false_per_image: int = 0,
                bonus_copies: int | None = None, upright_copies: int = 0,
                margins: tuple[float, float] | None = None, workers: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """All crops (N x H x W x 3 uint8) and labels of the images in ``folders`` (each an ``images/`` folder;
    ``copies``, ``jitter``, ``none_per_image``, ``bonus_copies``, ``upright_copies``, ``margins``: ``image_crops``).
    ``boxes``, when given, gets the crops' box targets (``image_crops``), in the same order. ``false_boxes``
    (photo file name -> the localiser's false boxes, best first: ``vision.false_boxes.mine_folder``) adds up
    to ``false_per_image`` "none" crops a photo.

    ``workers`` > 1 cuts the photos in that many processes, photo ``i`` with its own generator (``seed``, ``i``):
    the same crops for any number of workers, though not those of one process (one generator for all photos,
    as the recipes before the GPU's were cut)."""
    parallel = workers > 1 and boxes is None
    rng = np.random.default_rng(seed)

    def cut(item) -> tuple[list[np.ndarray], list[int]]:
        index, path = item
        mined = false_boxes.get(path.name) if false_boxes and false_per_image else None
        return image_crops(path, np.random.default_rng((seed, index)) if parallel else rng, copies=copies,
                           jitter=jitter, none_per_image=none_per_image, targets=boxes,
                           false_boxes=None if mined is None else mined[:false_per_image], bonus_copies=bonus_copies,
                           upright_copies=upright_copies, margins=margins)

    return gather_crops(list(enumerate(photo_paths(folders, limit))), cut, crop_shape=(CROP_HEIGHT, CROP_WIDTH),
                        progress=progress, workers=workers if parallel else 0)


_JOB = None  # the work of parallel_map's processes (forked: a closure needs no pickling)


def _run_job(item):
    return _JOB(item)


def parallel_map(work, items: Sequence[Any], workers: int):
    """``work`` over ``items`` in order, in ``workers`` forked processes (in this one when ``workers`` < 2, or
    where processes cannot fork); yields each answer as it comes."""
    import multiprocessing

    global _JOB
    if workers < 2 or "fork" not in multiprocessing.get_all_start_methods():
        yield from map(work, items)
        return
    _JOB = work
    try:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            yield from pool.imap(_run_job, items, chunksize=4)
    finally:
        _JOB = None


def gather_crops(paths: Sequence[Any], cut, *, crop_shape: tuple[int, int], target_dtype: Any = np.int64,
                 progress: bool = True, every: int = 200, workers: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Every photo's crops and targets, ``cut(path) -> (crops, targets)``, stacked: N x H x W x 3 uint8 (H x W is
    ``crop_shape``) and N targets of ``target_dtype``; progress on stderr every ``every`` photos; ``workers``
    processes (``parallel_map``). The tile classifier's, the bonus reader's and the face-axis reader's
    ``build_crops`` share it."""
    crops: list[np.ndarray] = []
    targets: list[Any] = []
    started = time.time()
    for i, (c, t) in enumerate(parallel_map(cut, paths, workers)):
        crops.extend(c)
        targets.extend(t)
        if progress and (i + 1) % every == 0:
            print(f"  crops: {i + 1}/{len(paths)} photos, {len(crops)} crops, {time.time() - started:.0f} s",
                  file=sys.stderr)
    if not crops:
        return np.zeros((0, *crop_shape, 3), np.uint8), np.zeros(0, target_dtype)
    return np.stack(crops), np.asarray(targets, dtype=target_dtype)


# --- the network ----------------------------------------------------------------------------------

def make_network(width: int = 32, classes: int = NUM_CLASSES + 1, *, box_head: bool = False):
    """A small VGG-style CNN for 64 x 48 crops (0.59 M parameters, 33 M multiply-adds a crop). With
    ``box_head`` it also draws the tile's box in the crop (``TileNet``)."""
    import torch.nn as nn

    def block(cin: int, cout: int, stride: int = 1) -> list[nn.Module]:
        return [nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]

    w = width
    layers = [
        *block(3, w, 2),                      # 32 x 24
        *block(w, w),
        *block(w, 2 * w, 2),                  # 16 x 12
        *block(2 * w, 2 * w),
        *block(2 * w, 4 * w, 2),              # 8 x 6
        *block(4 * w, 4 * w),
        *block(4 * w, 8 * w, 2),              # 4 x 3
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2)]
    if not box_head:
        return nn.Sequential(*layers, nn.Linear(8 * w, classes))

    class TileNet(nn.Module):
        """The same body, then two heads: the class logits, and the tile's box in the crop (x1 y1 x2 y2 as
        shares of its width and height). The body's last 4 x 3 grid keeps where the edges are (pooling it
        would not): the box head reads it before the pooling."""

        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(*layers[:-3])
            self.pool = nn.Sequential(*layers[-3:])
            self.classify = nn.Linear(8 * w, classes)
            # from the 8 x 6 grid (before the last stride), where an edge is still placed to an eighth of the crop
            self.box = nn.Sequential(*block(4 * w, w), nn.Flatten(), nn.Linear(w * 48, 128), nn.ReLU(inplace=True),
                                     nn.Linear(128, 4))

        def forward(self, x):
            return self.classify(self.pool(self.body(x)))

        def both(self, x):
            fine = self.body[:BOX_LAYER](x)
            grid = self.body[BOX_LAYER:](fine)
            return self.classify(self.pool(grid)), self.box(fine)

    return TileNet()


BOX_LAYER = 18
"""The box head reads the body's output after this many layers: the 8 x 6 grid of 4 x width channels."""


WIDEN_NOISE = 0.01
"""The noise a widened network's copies of each filter start with (``widen_state``; a share of each tensor's spread).
Without it a channel's copies get the same gradients for good but in the last convolution (dropout there tells
them apart), so the wider network learns nothing a narrow one could not. Measured on the shipped classifier widened
from 32 to 64 (stop 40): held-out style true-box crops (seed 10, 3,223) 95.13 % right before and 95.16 % after,
99.6 % of the readings unchanged; 0.03 reads 94.85 %."""


DISTILL_WEIGHT = 0.7
"""The share of a distilled round's loss that is the teacher's readings (``train_classifier(teacher=...)``). Stop 41,
the shipped classifier trained on for 2 epochs at lr 0.0004 on 104,861 CPU crops, accuracy on true-box crops (real
val / held-out seeds 10, 12 / training-style seed 11): without a teacher 95.43 / 94.82 / 94.85 / 97.67 %, with the
shipped one as teacher at 0.7 96.52 / 95.35 / 95.29 / 97.52 %, the shipped classifier itself 96.66 / 95.13 / 95.19 /
97.58 %."""
DISTILL_TEMPERATURE = 2.0
"""The softening of both networks' readings for the distillation term."""


def network_width(state: dict) -> int:
    """The width (``make_network``'s) of a plain classifier's or a box-head network's state dict: its first
    convolution's output channels."""
    first = state["0.weight"] if "0.weight" in state else state["body.0.weight"]
    return int(first.shape[0])


def widen_state(state: dict, factor: int, *, noise: float = 0.0, seed: int = 0) -> dict:
    """The state of ``make_network(width * factor)`` that computes what ``state`` (a plain classifier's,
    ``make_network(width)``) computes, so that a wider network starts where a trained narrow one stands rather
    than from random weights (Net2WiderNet: Chen, Goodfellow and Shlens, ICLR 2016). Each convolution's filters
    are repeated ``factor`` times (channel ``j + k * c`` copies channel ``j``) with their batch norms, and each
    next layer reads every copy with its weights divided by ``factor``, so the sums are unchanged. ``noise`` (a share
    of each tensor's standard deviation, from ``seed``) makes the copies differ: without it only the last
    convolution's copies ever drift apart (dropout before the last layer tells them apart), ``WIDEN_NOISE``.

    >>> import torch
    >>> narrow = make_network(8).eval()
    >>> wide = make_network(16).eval()
    >>> wide.load_state_dict(widen_state(narrow.state_dict(), 2))
    <All keys matched successfully>
    >>> crops = torch.rand(3, 3, 64, 48)
    >>> bool(torch.allclose(narrow(crops), wide(crops), atol=1e-5))
    True
    """
    import torch

    if factor < 1 or any(key.startswith(("body.", "box.")) for key in state):
        raise ValueError("widen_state widens a plain classifier's weights (make_network()) by a whole factor.")
    generator = torch.Generator().manual_seed(seed)

    def jittered(tensor):
        if not noise or not tensor.is_floating_point() or tensor.numel() < 2:
            return tensor
        return tensor + noise * float(tensor.std()) * torch.randn(tensor.shape, generator=generator)

    layers = sorted({int(key.split(".")[0]) for key in state})
    convolutions = [n for n in layers if state[f"{n}.weight"].dim() == 4]
    wide: dict = {}
    for order, n in enumerate(convolutions):
        weight = state[f"{n}.weight"]
        if order:  # its input channels are the last convolution's, repeated
            weight = weight.repeat(1, factor, 1, 1) / factor
        wide[f"{n}.weight"] = jittered(weight.repeat(factor, 1, 1, 1))
        norm = n + 1
        for name in ("weight", "bias", "running_mean", "running_var"):
            wide[f"{norm}.{name}"] = state[f"{norm}.{name}"].repeat(factor)
        wide[f"{norm}.num_batches_tracked"] = state[f"{norm}.num_batches_tracked"].clone()
    last = max(n for n in layers if state[f"{n}.weight"].dim() == 2)
    wide[f"{last}.weight"] = jittered(state[f"{last}.weight"].repeat(1, factor) / factor)
    wide[f"{last}.bias"] = state[f"{last}.bias"].clone()
    return wide


def read_state(source: str | os.PathLike[str] | dict) -> dict:
    """A state dict as given, or read (on the CPU) from the path given."""
    import torch

    return source if isinstance(source, dict) else torch.load(str(source), map_location="cpu", weights_only=True)


def state_from_onnx(path: str | os.PathLike[str], calibration: np.ndarray, *, batch: int = 256) -> dict:
    """The state dict of a plain ``make_network`` whose ONNX export is ``path``, for a round to start from when only
    the export was kept (the bonus reader's ``bonus.onnx``). The export folds each batch norm into the convolution
    before it; the state puts it back so that the network computes what the export does, in eval mode exactly
    and in train mode nearly: each norm's running mean and variance are those of its convolution's output over
    ``calibration`` (N x H x W x 3 uint8 crops, as the network reads them), and its scale and shift undo them
    (scale sqrt(var + eps), shift mean + the folded bias). A batch of crops like the calibration ones is then
    normalised by about its own statistics, as it was in training."""
    import onnx
    import torch
    from onnx import numpy_helper

    proto = onnx.load(str(path))
    tensors = {t.name: numpy_helper.to_array(t) for t in proto.graph.initializer}
    # an exporter may also give a folded tensor as a Constant node, or share one tensor through an Identity node
    for node in proto.graph.node:
        if node.op_type == "Constant" and node.attribute and node.attribute[0].t.dims:
            tensors[node.output[0]] = numpy_helper.to_array(node.attribute[0].t)
        elif node.op_type == "Identity" and node.input[0] in tensors:
            tensors[node.output[0]] = tensors[node.input[0]]
    convs = [(node.input[1], node.input[2] if len(node.input) > 2 else None)
             for node in proto.graph.node if node.op_type == "Conv"]
    linear = [name for name in tensors if name.endswith(".weight") and tensors[name].ndim == 2]
    if not convs or len(linear) != 1 or any(w not in tensors or (b is not None and b not in tensors) for w, b in convs):
        raise ValueError(f"'{path}' is not an export of a plain make_network (its convolutions or its one "
                         "classification head are missing).")
    width = int(tensors[convs[0][0]].shape[0])
    head = tensors[linear[0]]
    model = make_network(width, classes=int(head.shape[0]))
    conv_layers = [m for m in model if isinstance(m, torch.nn.Conv2d)]
    norms = [m for m in model if isinstance(m, torch.nn.BatchNorm2d)]
    if len(conv_layers) != len(convs):
        raise ValueError(f"'{path}' has {len(convs)} convolutions; a make_network of width {width} has "
                         f"{len(conv_layers)}.")
    biases = []
    with torch.no_grad():
        for conv, norm, (weight, bias) in zip(conv_layers, norms, convs):
            conv.weight.copy_(torch.from_numpy(tensors[weight].copy()))
            shift = torch.from_numpy(tensors[bias].copy()) if bias else torch.zeros(conv.out_channels)
            biases.append(shift)
            # first the folded function itself: the norm an identity plus the folded bias (eval mode)
            norm.running_mean.zero_()
            norm.running_var.fill_(1.0 - norm.eps)
            norm.weight.fill_(1.0)
            norm.bias.copy_(shift)
        model[-1].weight.copy_(torch.from_numpy(head.copy()))
        model[-1].bias.copy_(torch.from_numpy(tensors[linear[0][:-len("weight")] + "bias"].copy()))
    model.eval()
    sums = [torch.zeros(c.out_channels, dtype=torch.float64) for c in conv_layers]
    squares = [torch.zeros(c.out_channels, dtype=torch.float64) for c in conv_layers]
    counted = [0] * len(conv_layers)

    def hook(k):
        def record(_module, _inputs, output):
            values = output.detach().double().transpose(0, 1).reshape(output.shape[1], -1)
            sums[k] += values.sum(1)
            squares[k] += (values * values).sum(1)
            counted[k] += values.shape[1]
        return record

    handles = [conv.register_forward_hook(hook(k)) for k, conv in enumerate(conv_layers)]
    from vision.crops import to_tensor

    with torch.no_grad():
        for start in range(0, len(calibration), batch):
            model(torch.from_numpy(to_tensor(calibration[start:start + batch])))
    for handle in handles:
        handle.remove()
    with torch.no_grad():
        for k, norm in enumerate(norms):
            mean = sums[k] / max(1, counted[k])
            var = (squares[k] / max(1, counted[k]) - mean * mean).clamp(min=0)
            norm.running_mean.copy_(mean.float())
            norm.running_var.copy_(var.float())
            norm.weight.copy_(torch.sqrt(var + norm.eps).float())
            norm.bias.copy_((mean + biases[k].double()).float())
    return {key: value.clone() for key, value in model.state_dict().items()}


def load_weights(model, state: dict) -> None:
    """Load a state dict into ``model``. A plain classifier's weights (``make_network()``) start a network
    with a box head: its body and class head take them, the box head starts from random weights."""
    if hasattr(model, "box") and not any(key.startswith("body.") for key in state):
        body = len(model.body)
        mapped = {}
        for key, value in state.items():
            index, rest = key.split(".", 1)
            index = int(index)
            if index < body:
                mapped[f"body.{index}.{rest}"] = value
            elif index < body + len(model.pool):
                mapped[f"pool.{index - body}.{rest}"] = value
            else:
                mapped[f"classify.{rest}"] = value
        missing = model.load_state_dict(mapped, strict=False).missing_keys
        if any(not key.startswith("box.") for key in missing):
            raise ValueError(f"The starting weights lack {missing}.")
        return
    model.load_state_dict(state)


def augment(batch, generator, *, channel_shuffle: float = 0.0, blur: float = 0.0, boxes=None):
    """Training-time augmentation of an N x 3 x H x W float batch in 0..1 (torch).

    ``channel_shuffle``: the share of crops whose colour channels are put in a random order, so that inks of
    any hue are read alike (a tile's kind never depends on its inks' hue). ``blur``: the share of crops blurred
    after cutting (``blurred``: out of focus, a streak of movement, or seen smaller), so that a tile is read from
    what blur leaves of its marks in any photo, not only in the rendered photos blurred whole. ``boxes`` (N x 4
    shares of the crop), when given, are turned with their crops and the answer is (batch, boxes)."""
    import torch

    n = batch.shape[0]
    if blur > 0:  # before the light's changes: a lens blurs the scene, the sensor then records it
        batch = blurred(batch, generator, blur)
    flip = torch.rand(n, generator=generator, device=batch.device) < 0.5          # a half turn: the same tile
    batch = torch.where(flip[:, None, None, None], batch.flip(2, 3), batch)
    if boxes is not None:
        boxes = torch.where(flip[:, None], 1 - boxes[:, [2, 3, 0, 1]], boxes)
    gain = 0.65 + 0.7 * torch.rand(n, 1, 1, 1, generator=generator, device=batch.device)
    cast = 0.9 + 0.2 * torch.rand(n, 3, 1, 1, generator=generator, device=batch.device)
    bias = 0.2 * (torch.rand(n, 1, 1, 1, generator=generator, device=batch.device) - 0.5)
    mean = batch.mean(dim=(1, 2, 3), keepdim=True)
    contrast = 0.7 + 0.6 * torch.rand(n, 1, 1, 1, generator=generator, device=batch.device)
    batch = (batch - mean) * contrast + mean
    batch = batch * gain * cast + bias
    if channel_shuffle > 0:
        shuffled = torch.rand(n, generator=generator, device=batch.device) < channel_shuffle
        order = torch.argsort(torch.rand(n, 3, generator=generator, device=batch.device), dim=1)
        permuted = torch.gather(batch, 1, order[:, :, None, None].expand_as(batch))
        batch = torch.where(shuffled[:, None, None, None], permuted, batch)
    grey = torch.rand(n, generator=generator, device=batch.device) < 0.1
    batch = torch.where(grey[:, None, None, None], batch.mean(dim=1, keepdim=True).expand_as(batch), batch)
    strength = 0.03 * torch.rand(n, 1, 1, 1, generator=generator, device=batch.device)
    batch = batch + strength * torch.randn(batch.shape, generator=generator, device=batch.device)
    return batch.clamp(0, 1) if boxes is None else (batch.clamp(0, 1), boxes)


BLUR_SIGMA = (0.4, 1.6)
"""An out-of-focus crop's Gaussian sigma, in the crop's pixels (48 x 64: a tile's numeral is some 12 px tall; the bonus
reader's 72 x 96 crops are blurred by the same pixels, so less for their size)."""
BLUR_STREAK = (3.0, 7.0)
"""A streak's length in the crop's pixels (the renderer's motion blur: 3-12 px of a 1,280-px photo whose tiles are
50-120 px tall, seen in a 64-px crop)."""
BLUR_SHRINK = (1.5, 3.0)
"""A crop seen smaller: shrunk by this factor (area averaging) and brought back (bilinear), as a tile far off is."""
BLUR_KERNEL = 7


def blurred(batch, generator, share: float):
    """``batch`` (N x 3 x H x W floats, torch) with ``share`` of its crops blurred, a third each way (drawn from
    ``generator``): out of focus (a Gaussian of ``BLUR_SIGMA``), a streak of movement (a line ``BLUR_STREAK`` long
    at any angle) or seen smaller (``BLUR_SHRINK``). The two kernels sum to one: out of focus or streaked, a crop
    keeps its light."""
    import torch
    import torch.nn.functional as F

    n, channels, height, width = batch.shape
    on = batch.device

    def uniform(low: float, high: float, count: int):
        return low + (high - low) * torch.rand(count, generator=generator, device=on)

    chosen = torch.rand(n, generator=generator, device=on) < share
    way = torch.randint(0, 3, (n,), generator=generator, device=on)
    sigma = uniform(*BLUR_SIGMA, n)
    length = uniform(*BLUR_STREAK, n)
    angle = uniform(0.0, math.pi, n)
    shrink = uniform(*BLUR_SHRINK, n)
    out = batch.clone()
    # out of focus and streaks: one 7 x 7 kernel a crop, run as a grouped convolution over the crops' channels
    kernel_rows = torch.nonzero(chosen & (way < 2)).flatten()
    if len(kernel_rows):
        r = BLUR_KERNEL // 2
        offsets = torch.arange(-r, r + 1, device=on, dtype=batch.dtype)
        yy, xx = torch.meshgrid(offsets, offsets, indexing="ij")
        s = sigma[kernel_rows][:, None, None]
        gaussian = torch.exp(-(xx ** 2 + yy ** 2) / (2 * s ** 2))
        # a streak: each pixel's distance from the segment through the centre, 1 px of falloff
        dx, dy = torch.cos(angle[kernel_rows])[:, None, None], torch.sin(angle[kernel_rows])[:, None, None]
        along = xx * dx + yy * dy
        across = (-xx * dy + yy * dx).abs()
        half = length[kernel_rows][:, None, None] / 2
        streak = (1 - across).clamp(min=0) * (half + 0.5 - along.abs()).clamp(0, 1)
        kernels = torch.where((way[kernel_rows] == 0)[:, None, None], gaussian, streak)
        kernels = kernels / kernels.sum(dim=(1, 2), keepdim=True)
        weights = kernels.repeat_interleave(channels, dim=0)[:, None]
        crops = batch[kernel_rows].reshape(1, -1, height, width)
        crops = F.conv2d(F.pad(crops, (r, r, r, r), mode="replicate"), weights, groups=weights.shape[0])
        out[kernel_rows] = crops.reshape(-1, channels, height, width)
    # seen smaller: shrunk and brought back, in two sizes a batch (each crop its nearer one)
    small_rows = torch.nonzero(chosen & (way == 2)).flatten()
    for low, high in ((BLUR_SHRINK[0], sum(BLUR_SHRINK) / 2), (sum(BLUR_SHRINK) / 2, BLUR_SHRINK[1] + 1e-6)):
        rows = small_rows[(shrink[small_rows] >= low) & (shrink[small_rows] < high)]
        if len(rows):
            factor = (low + high) / 2
            size = (max(2, round(height / factor)), max(2, round(width / factor)))
            small = F.interpolate(batch[rows], size=size, mode="area")
            out[rows] = F.interpolate(small, size=(height, width), mode="bilinear", align_corners=False)
    return out


def train_classifier(train_x: np.ndarray, train_y: np.ndarray, *, epochs: int, batch: int = 256, lr: float = 0.003,
                     width: int = 32, seed: int = 0, threads: int | None = None,
                     evaluations: dict[str, tuple[np.ndarray, np.ndarray]] | None = None,
                     hours: float | None = None, log: Any = None, init: str | os.PathLike[str] | None = None,
                     channel_shuffle: float = 0.0, train_boxes: np.ndarray | None = None, box_weight: float = 5.0,
                     box_evaluations: dict[str, tuple[np.ndarray, np.ndarray]] | None = None,
                     classes: int = NUM_CLASSES + 1, device: str = "cpu",
                     teacher: str | os.PathLike[str] | dict | None = None, distill_weight: float = DISTILL_WEIGHT,
                     distill_temperature: float = DISTILL_TEMPERATURE, distill_only_right: bool = False,
                     blur: float = 0.0):
    """Train the network on crops; answers (model, history), the model on the CPU. ``hours`` stops early at a
    wall-clock limit; ``init`` (a state dict saved by an earlier run, or its path) starts from its weights
    instead of random ones: a narrower plain network's are widened first (``widen_state``; stop 40). ``classes``:
    the network's outputs (the tile classifier's 44 unless given). ``device``: torch's name of where to train ("cuda" on the lent GPU; the crops then live on it too).

    ``teacher`` (a plain network's state dict, or its path): learning without forgetting (stop 41). Each batch is
    also read by the teacher, frozen, and the loss is ``distill_weight`` times the divergence from its readings
    softened by ``distill_temperature`` (times the temperature squared, Hinton's scale) plus the rest times the
    labels' cross entropy. A round trained on from the shipped classifier with the shipped one as its teacher keeps
    what it knew of the styles it is not shown again (DISTILL_WEIGHT's figures). ``distill_only_right``: the
    divergence counts only on the crops the teacher reads right (its first reading is the label), so that on a new
    style it misreads the labels alone teach (the rest of the loss is then the cross entropy)."""
    import torch
    import torch.nn.functional as F

    if not 0.0 <= blur <= 1.0:
        raise ValueError(f"blur is the share of crops blurred, in [0, 1], not {blur!r}")
    if threads:
        torch.set_num_threads(threads)
    torch.manual_seed(seed)
    on = torch.device(device)
    if on.type == "cuda":
        torch.backends.cudnn.benchmark = True
    generator = torch.Generator(device=on).manual_seed(seed)  # the augmentation's, where the batches are
    # the batch order is drawn on the CPU: from the same generator there (the CPU rounds' recipes give the same
    # weights as before), from one of its own beside a GPU's
    order_generator = generator if on.type == "cpu" else torch.Generator().manual_seed(seed)
    with_boxes = train_boxes is not None
    model = make_network(width, classes, box_head=with_boxes)
    if init is not None:
        state = read_state(init)
        start_width = network_width(state)
        if start_width != width:  # a wider network starts as the narrow one widened (widen_state)
            if with_boxes or width % start_width:
                raise ValueError(f"The starting weights are a network of width {start_width}: a network of width "
                                 f"{width} can start from them only as a whole multiple, without a box head.")
            state = widen_state(state, width // start_width, noise=WIDEN_NOISE, seed=seed)
            if log is not None:
                print(f"  started from the width-{start_width} weights widened to {width} (widen_state)", file=log)
        load_weights(model, state)
    model.to(on)
    teacher_model = None
    if teacher is not None:
        if with_boxes:
            raise ValueError("Distillation (a teacher) cannot go with a box head: the teacher reads classes only.")
        if not 0.0 < distill_weight <= 1.0 or distill_temperature <= 0.0:
            raise ValueError(f"Distillation needs a weight in (0, 1] and a temperature above 0, not {distill_weight} "
                             f"and {distill_temperature}.")
        taught = read_state(teacher)
        teacher_model = make_network(network_width(taught), classes)
        load_weights(teacher_model, taught)
        teacher_model.to(on).eval()
        for parameter in teacher_model.parameters():
            parameter.requires_grad_(False)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=5e-4)
    steps_per_epoch = math.ceil(len(train_x) / batch)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=lr, total_steps=epochs * steps_per_epoch,
                                                    pct_start=0.15)
    x_all = torch.from_numpy(train_x).to(on)  # N x H x W x 3 uint8, converted per batch to save memory
    y_all = torch.from_numpy(train_y).to(on)
    b_all = torch.from_numpy(np.asarray(train_boxes, dtype=np.float32)).to(on) if with_boxes else None
    history = []
    started = time.time()
    for epoch in range(epochs):
        model.train()
        order = torch.randperm(len(x_all), generator=order_generator).to(on)
        total, correct, loss_sum = 0, 0, 0.0
        for step in range(steps_per_epoch):
            index = order[step * batch:(step + 1) * batch]
            xb = x_all[index].permute(0, 3, 1, 2).float().div_(255.0)
            yb = y_all[index]
            if with_boxes:
                xb, bb = augment(xb, generator, channel_shuffle=channel_shuffle, blur=blur, boxes=b_all[index])
                logits, drawn = model.both(xb)
                loss = F.cross_entropy(logits, yb, label_smoothing=0.05)
                tiles = ~torch.isnan(bb[:, 0])  # "none" crops have no box
                if tiles.any():
                    loss = loss + box_weight * F.smooth_l1_loss(drawn[tiles], bb[tiles], beta=0.02)
            else:
                xb = augment(xb, generator, channel_shuffle=channel_shuffle, blur=blur)
                logits = model(xb)
                if teacher_model is None:
                    loss = F.cross_entropy(logits, yb, label_smoothing=0.05)
                else:
                    with torch.no_grad():
                        taught_logits = teacher_model(xb)
                        taught_probs = F.softmax(taught_logits / distill_temperature, dim=1)
                    divergence = F.kl_div(F.log_softmax(logits / distill_temperature, dim=1), taught_probs,
                                          reduction="none").sum(dim=1)
                    weight = torch.full_like(divergence, distill_weight)
                    if distill_only_right:
                        weight = weight * (taught_logits.argmax(1) == yb).float()
                    loss = (F.cross_entropy(logits, yb, label_smoothing=0.05, reduction="none") * (1.0 - weight)
                            + weight * distill_temperature ** 2 * divergence).mean()
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            scheduler.step()
            loss_sum += loss.item() * len(yb)
            correct += int((logits.argmax(1) == yb).sum())
            total += len(yb)
            if log and step % (50 if on.type == "cpu" else 500) == 0:
                print(f"  epoch {epoch + 1}/{epochs} step {step}/{steps_per_epoch} loss {loss_sum / total:.3f} "
                      f"acc {correct / total:.3f} {time.time() - started:.0f} s", file=log, flush=True)
        record = {"epoch": epoch + 1, "loss": loss_sum / max(total, 1), "train_accuracy": correct / max(total, 1),
                  "seconds": round(time.time() - started, 1)}
        for name, (vx, vy) in (evaluations or {}).items():
            record[name] = accuracy(model, vx, vy)
        for name, (vx, vb) in (box_evaluations or {}).items() if with_boxes else ():
            record[name] = mean_box_iou(model, vx, vb)
        history.append(record)
        if log:
            print("  " + json.dumps(record), file=log, flush=True)
        if hours and time.time() - started > hours * 3600 and epoch + 1 < epochs:
            if log:
                print(f"  stopping after epoch {epoch + 1}: the {hours} h limit is reached", file=log, flush=True)
            break
    return model.cpu(), history


def _run_batches(model, crops: np.ndarray, batch: int, read, columns: int) -> np.ndarray:
    """``read(model, input batch)`` over uint8 crops in batches, in eval mode, without gradients."""
    import torch

    model.eval()
    on = next(model.parameters()).device
    out = []
    with torch.no_grad():
        for start in range(0, len(crops), batch):
            xb = torch.from_numpy(crops[start:start + batch]).to(on).permute(0, 3, 1, 2).float().div_(255.0)
            out.append(read(model, xb).cpu().numpy())
    return np.concatenate(out) if out else np.zeros((0, columns), np.float32)


def predict(model, crops: np.ndarray, batch: int = 512) -> np.ndarray:
    """Class probabilities (N x 44) of uint8 crops with a torch model."""
    import torch

    return _run_batches(model, crops, batch, lambda m, xb: torch.softmax(m(xb), dim=1), model_outputs(model))


def model_outputs(model) -> int:
    """How many classes a network made by ``make_network`` tells apart."""
    head = model.classify if hasattr(model, "classify") else model[-1]
    return int(head.out_features)


def draw_boxes(model, crops: np.ndarray, batch: int = 512) -> np.ndarray:
    """The box (N x 4 shares of the crop) a model with a box head draws in each uint8 crop."""
    return _run_batches(model, crops, batch, lambda m, xb: m.both(xb)[1], 4)


def box_iou_pairs(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU of each row of ``a`` with the same row of ``b`` (N x 4 each, x1 y1 x2 y2)."""
    x1, y1 = np.maximum(a[:, 0], b[:, 0]), np.maximum(a[:, 1], b[:, 1])
    x2, y2 = np.minimum(a[:, 2], b[:, 2]), np.minimum(a[:, 3], b[:, 3])
    inter = np.clip(x2 - x1, 0, None) * np.clip(y2 - y1, 0, None)
    area = lambda r: np.clip(r[:, 2] - r[:, 0], 0, None) * np.clip(r[:, 3] - r[:, 1], 0, None)  # noqa: E731
    return inter / (area(a) + area(b) - inter + 1e-9)


def mean_box_iou(model, crops: np.ndarray, boxes: np.ndarray) -> dict[str, float]:
    """How well the box head draws the true boxes of jittered crops: mean IoU of the drawn boxes and of the
    crops' own boxes (what the localiser gave), both in the crop's shares."""
    from vision.crops import MARGIN

    tiles = ~np.isnan(boxes[:, 0])
    if not tiles.any():
        return {"drawn": float("nan"), "given": float("nan")}
    drawn = draw_boxes(model, crops[tiles])
    inner = MARGIN / (1 + 2 * MARGIN)  # the box a crop was cut around, in its shares
    given = np.tile(np.array([inner, inner, 1 - inner, 1 - inner], np.float32), (int(tiles.sum()), 1))
    return {"drawn": round(float(box_iou_pairs(drawn, boxes[tiles]).mean()), 4),
            "given": round(float(box_iou_pairs(given, boxes[tiles]).mean()), 4)}


def accuracy(model, crops: np.ndarray, labels: np.ndarray) -> float:
    if not len(crops):
        return float("nan")
    return float((predict(model, crops).argmax(1) == labels).mean())


def export_onnx(model, path: str | os.PathLike[str], *, metadata: dict[str, str] | None = None,
                boxes: bool = True, names: Sequence[str] = CLASSIFIER_NAMES,
                crop_size: tuple[int, int] = (CROP_WIDTH, CROP_HEIGHT), softmax: bool = True,
                features: bool = False) -> Path:
    """Export with a softmax at the end: input ``crops`` N x 3 x 64 x 48 (0..1; ``crop_size`` = width, height),
    output ``probs`` N x 44 (``names`` in the metadata), and with a box head also ``boxes`` N x 4 (the tile's box
    as shares of the crop), unless ``boxes`` is False. Without ``softmax`` the outputs are the network's own
    (a regression's). With ``features`` (a network without a box head) a second output, ``features`` N x 256 at
    width 32: what the last layer reads, which ``vision.sibling_readings`` compares between the tiles of a photo."""
    import onnx
    import torch

    with_boxes = boxes and hasattr(model, "both")
    with_features = features and not hasattr(model, "both")

    class WithSoftmax(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, x):
            if with_boxes:
                logits, boxes = self.inner.both(x)
                return torch.softmax(logits, dim=1), boxes
            if with_features:
                seen = self.inner[:-1](x)
                return torch.softmax(self.inner[-1](seen), dim=1), seen
            return torch.softmax(self.inner(x), dim=1) if softmax else self.inner(x)

    model.eval()
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    dummy = torch.zeros(1, 3, crop_size[1], crop_size[0])
    outputs = ["probs", "boxes"] if with_boxes else ["probs", "features"] if with_features else ["probs"]
    torch.onnx.export(WithSoftmax(model), dummy, str(target), input_names=["crops"], output_names=outputs,
                      dynamic_axes={"crops": {0: "n"}, **{name: {0: "n"} for name in outputs}}, opset_version=17,
                      dynamo=False)
    proto = onnx.load(str(target))
    entries = {"names": json.dumps(list(names)), "crop": f"{crop_size[0]}x{crop_size[1]}",
               **(metadata or {})}
    for key, value in entries.items():
        item = proto.metadata_props.add()
        item.key, item.value = key, value
    onnx.save(proto, str(target))
    return target


def folders_of(paths: Iterable[str | os.PathLike[str]], root: Path) -> list[Path]:
    out = []
    for p in paths:
        folder = (root / p).resolve()
        if not folder.is_dir():
            raise FileNotFoundError(f"The photo folder '{folder}' is missing.")
        out.append(folder)
    return out
