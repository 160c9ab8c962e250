"""Training the bonus reader (``mjscan train --config configs/bonus-reader.yaml``; ``vision.bonus_reader``).

The data are crops of labelled photos, cut at the reader's size (``READER_SIZE``) from the photo itself:
- every flower and season, ``copies`` times with its edges jittered (as the localiser's boxes are);
- ``others_per_image`` other tiles a photo, labelled "other": the reader must also say when a box is no
  bonus tile at all;
- with ``hard_others`` (the tile classifier's ONNX file), every other tile that the tile classifier takes
  for a bonus tile (``bonus_share`` >= ``TRIGGER``): the very boxes the reader is asked about and must pass on.

The network is the tile classifier's (``vision.classifier_training.make_network``) with nine outputs; it may
start from the tile classifier's weights (``init``), its bonus rows and the mean of its other rows becoming the
reader's head, so that it starts from the classifier's reading at the larger size and learns the small marks.
``init`` may also name a reader's ONNX export (the shipped ``models/bonus.onnx``, whose ``.pt`` was not kept):
``vision.classifier_training.state_from_onnx`` gives the network that computes it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Sequence

import numpy as np
from PIL import Image, ImageOps

from vision.bonus_reader import BONUS_CLASS_IDS, READER_NAMES, READER_SIZE, TRIGGER, bonus_share
from vision.classes import NUM_CLASSES
from vision.classifier_training import (PHOTO_SUFFIXES, gather_crops, jitter_box, photo_paths, read_yolo_labels,
                                       read_state, sidecar_axes)
from vision.crops import tile_crop, tile_crops, upright_crops

OTHER_ID = len(READER_NAMES) - 1
"""The reader's "another tile" label (8)."""
_READER_LABEL = {cls: i for i, cls in enumerate(BONUS_CLASS_IDS)}


def photo_crops(path: Path, rng: np.random.Generator, *, copies: int, others_per_image: int, jitter: float,
                size: tuple[int, int] = READER_SIZE, classifier: Any = None, upright_copies: int = 0,
                axis_noise: float = 4.0) -> tuple[list[np.ndarray], list[int]]:
    """The reader's crops and labels (0-7 the bonus faces, 8 another tile) of one labelled photo (``photo_crops``
    of the module doc; ``classifier``: a ``vision.classifier.TileClassifier`` for the hard others).

    ``upright_copies`` more crops of each box, turned so that its face stands upright (``vision.crops.upright_crops``)
    by the face's axis from the rendered photo's sidecar, give or take ``axis_noise`` degrees: the reader reads each
    box that way too (``vision.bonus_reader.BonusReader.reread``). A photo without a sidecar (a real one) gets none."""
    image = ImageOps.exif_transpose(Image.open(path)).convert("RGB")
    boxes, classes = read_yolo_labels(path.parent.parent / "labels" / (path.stem + ".txt"), image.width, image.height)
    crops: list[np.ndarray] = []
    labels: list[int] = []
    axes = sidecar_axes(path, boxes) if upright_copies else np.full(len(boxes), np.nan)

    def turned(i: int, label: int) -> None:  # the box's upright copies, where its axis is known
        for _ in range(upright_copies if np.isfinite(axes[i]) else 0):
            cut = jitter_box(boxes[i], rng, jitter) if jitter else boxes[i]
            crops.append(upright_crops(image, cut[None], np.array([axes[i] + rng.normal(0.0, axis_noise)]),
                                       size=size)[0][0])
            labels.append(label)

    for i, (box, cls) in enumerate(zip(boxes, classes)):
        if int(cls) in _READER_LABEL:
            for _ in range(copies):
                crops.append(tile_crop(image, jitter_box(box, rng, jitter) if jitter else box, size=size))
                labels.append(_READER_LABEL[int(cls)])
            turned(i, _READER_LABEL[int(cls)])
    others = np.flatnonzero([int(c) not in _READER_LABEL for c in classes])
    chosen: set[int] = set()
    if len(others) and others_per_image:
        chosen.update(int(i) for i in rng.choice(others, size=min(others_per_image, len(others)), replace=False))
    if classifier is not None and len(others):
        probs = classifier.probabilities(tile_crops(image, boxes[others]))
        chosen.update(int(i) for i in others[bonus_share(probs) >= TRIGGER])
    for i in sorted(chosen):
        crops.append(tile_crop(image, jitter_box(boxes[i], rng, jitter) if jitter else boxes[i], size=size))
        labels.append(OTHER_ID)
        turned(i, OTHER_ID)
    return crops, labels


def build_crops(folders: Sequence[Path], *, copies: int, others_per_image: int, jitter: float, seed: int,
                size: tuple[int, int] = READER_SIZE, classifier: Any = None, limit: int | None = None,
                progress: bool = True, workers: int = 0, upright_copies: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """All the reader's crops (N x H x W x 3 uint8) and labels of the photos in ``folders`` (``photo_crops``).

    ``workers`` > 1 cuts the photos in that many processes, photo ``i`` with its own generator (``seed``, ``i``), as
    ``vision.classifier_training.build_crops`` does; ``classifier`` is then the tile classifier's ONNX path, which each
    process opens itself (a forked onnxruntime session is not to be shared). One process keeps one generator for all
    photos, so the CPU recipes cut the crops they always cut."""
    parallel = workers > 1
    rng = np.random.default_rng(seed)
    opened: dict[str, Any] = {}

    def reader_classifier():
        if classifier is None or not isinstance(classifier, (str, Path)):
            return classifier
        if "classifier" not in opened:  # once a process
            from vision.classifier import TileClassifier

            opened["classifier"] = TileClassifier(classifier, threads=1 if parallel else None)
        return opened["classifier"]

    def cut(item):
        index, path = item
        return photo_crops(path, np.random.default_rng((seed, index)) if parallel else rng, copies=copies,
                           others_per_image=others_per_image, jitter=jitter, size=size,
                           classifier=reader_classifier(), upright_copies=upright_copies)

    return gather_crops(list(enumerate(photo_paths(folders, limit))), cut, crop_shape=(size[1], size[0]),
                        progress=progress, workers=workers if parallel else 0)


def reader_start(state: dict) -> dict:
    """Starting weights for the reader from a tile classifier's (``make_network()``, 44 outputs): the body as
    it is; the head's rows of the eight bonus faces, and for "other" the mean of its other tile rows. A reader's
    own weights (nine outputs) are answered as they are."""
    import torch

    head = [key for key, value in state.items() if key.endswith("weight") and value.dim() == 2]
    if not head:
        raise ValueError("The starting weights have no classification head.")
    weight_key = head[-1]
    bias_key = weight_key[:-len("weight")] + "bias"
    weight, bias = state[weight_key], state[bias_key]
    if weight.shape[0] == len(READER_NAMES):
        return dict(state)
    if weight.shape[0] != NUM_CLASSES + 1:
        raise ValueError(f"The starting weights' head has {weight.shape[0]} outputs: neither the tile "
                         f"classifier's {NUM_CLASSES + 1} nor the reader's {len(READER_NAMES)}.")
    rest = [i for i in range(NUM_CLASSES) if i not in _READER_LABEL]
    out = dict(state)
    out[weight_key] = torch.cat([weight[list(BONUS_CLASS_IDS)], weight[rest].mean(dim=0, keepdim=True)])
    out[bias_key] = torch.cat([bias[list(BONUS_CLASS_IDS)], bias[rest].mean().reshape(1)])
    return out


def train_recipe(config: dict[str, Any], root: Path, *, epochs: int | None = None, hours: float | None = None,
                 fraction: float | None = None) -> Path:
    """``task: bonus-reader``: the reader's crops of the recipe's photos (``data`` as the tile classifier's
    recipe names them), the network, its weights in the run folder and its ONNX export (``export.onnx``)."""
    from vision.training import TrainingError, _check_device, crop_copies, training_sources

    try:
        import onnx  # noqa: F401
        import torch
    except ImportError as error:
        raise TrainingError(f"Training the bonus reader needs torch and onnx ({error}): "
                            "pip install -e '.[train]'") from None
    from vision.classifier_training import export_onnx, model_outputs, predict, train_classifier

    data = config["data"]
    crops = config.get("crops", {})
    copies, real_copies = crop_copies(crops, 3)  # refused before any photo is rendered
    device = str(config.get("device", "cpu"))  # "cuda" on the lent GPU (the crops then live on it too)
    _check_device(device, str(config.get("_path", "the recipe")))
    workers = int(config.get("workers", 0))  # processes cutting crops (the GPU machine: 16)
    sources, _ = training_sources(root, data)
    if not sources:
        raise TrainingError("The bonus reader's recipe names no training photos (data.real_train, data.synthetic).")
    size = tuple(int(v) for v in crops.get("size", READER_SIZE))
    classifier = None
    if crops.get("hard_others"):
        from vision.classifier import TileClassifier

        path = root / crops["hard_others"]
        if not path.is_file():
            raise TrainingError(f"The tile classifier '{path}' that picks the hard others is missing.")
        # several processes each open it themselves (build_crops); one process opens it once here
        classifier = path if workers > 1 else TileClassifier(path)
    seed = int(crops.get("seed", 1))
    real = (root / data["real_train"]).resolve() if data.get("real_train") else None
    parts = []
    for i, folder in enumerate(sources):
        count = len([p for p in folder.iterdir() if p.suffix.lower() in PHOTO_SUFFIXES])
        limit = max(1, int(count * fraction)) if fraction else None
        print(f"mjscan train: cutting the bonus reader's crops from {folder}", file=sys.stderr)
        parts.append(build_crops([folder], copies=real_copies if folder == real else copies,
                                 others_per_image=int(crops.get("others_per_image", 2)),
                                 jitter=float(crops.get("jitter", 0.08)), seed=seed + i, size=size,
                                 classifier=classifier, limit=limit, workers=workers,
                                 upright_copies=int(crops.get("upright_copies", 0))))
    train_x = np.concatenate([x for x, _ in parts])
    train_y = np.concatenate([y for _, y in parts])
    evaluations = {}
    val_crops = None
    if data.get("val"):
        folder = (root / data["val"]).resolve()
        if folder.is_dir():
            count = len(list(folder.iterdir()))
            limit = max(1, int(count * fraction)) if fraction else None
            val_x, val_y = build_crops([folder], copies=1, others_per_image=0, jitter=0.0, seed=0, size=size,
                                       classifier=classifier, limit=limit, progress=False, workers=workers)
            evaluations["val_accuracy"] = (val_x, val_y)
            val_crops = (val_x, val_y)
    init = None
    if config.get("init"):
        path = root / config["init"]
        if not path.is_file():
            raise TrainingError(f"The bonus reader's starting weights '{path}' are missing.")
        if path.suffix.lower() == ".onnx":
            # only the export was kept (models/bonus.onnx): its folded batch norms are put back, their statistics
            # those of a sample of this round's own crops
            from vision.classifier_training import state_from_onnx

            sample = np.random.default_rng(seed).choice(len(train_x), size=min(len(train_x), 4096), replace=False)
            try:
                init = reader_start(state_from_onnx(path, train_x[np.sort(sample)]))
            except ValueError as error:
                raise TrainingError(f"The bonus reader's starting weights: {error}") from None
        else:
            init = reader_start(read_state(path))
    counts = np.bincount(train_y, minlength=len(READER_NAMES)).tolist()
    print(f"mjscan train: {len(train_x)} crops of {size[0]} x {size[1]} ({dict(zip(READER_NAMES, counts))}), "
          f"{len(sources)} sources", file=sys.stderr)
    network = config.get("network", {})
    model, history = train_classifier(
        train_x, train_y, epochs=epochs or int(config.get("epochs", 4)), batch=int(config.get("batch", 128)),
        lr=float(config.get("lr0", 0.002)), width=int(network.get("width", 32)), seed=int(config.get("seed", 0)),
        threads=config.get("threads"), evaluations=evaluations, hours=hours or config.get("hours"), log=sys.stderr,
        init=init, channel_shuffle=float(config.get("augment", {}).get("channel_shuffle", 0.0)),
        blur=float(config.get("augment", {}).get("blur", 0.0)),
        classes=len(READER_NAMES), device=device)
    assert model_outputs(model) == len(READER_NAMES)
    run = config.get("run", {})
    run_dir = root / run.get("project", "runs/bonus") / run.get("name", "train")
    run_dir.mkdir(parents=True, exist_ok=True)
    torch.save(model.state_dict(), run_dir / "reader.pt")
    trained_epochs = len(history)
    if val_crops is not None and len(val_crops[0]):
        read = predict(model, val_crops[0]).argmax(1)
        bonus = val_crops[1] != OTHER_ID
        history.append({"val_bonus_accuracy": round(float((read[bonus] == val_crops[1][bonus]).mean()), 4)
                        if bonus.any() else None,
                        "val_other_accuracy": round(float((read[~bonus] == OTHER_ID).mean()), 4)
                        if (~bonus).any() else None})
    (run_dir / "history.json").write_text(json.dumps(history, indent=1) + "\n")
    target = root / config.get("export", {}).get("onnx", "models/bonus.onnx")
    export_onnx(model, target, metadata={"recipe": str(config.get("_path", "")), "epochs": str(trained_epochs)},
                boxes=False, names=READER_NAMES, crop_size=size)
    print(f"mjscan train: exported the bonus reader -> {target} ({target.stat().st_size / 1e6:.1f} MB)",
          file=sys.stderr)
    return target
