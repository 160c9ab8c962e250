"""Training the face-axis reader (``mjscan train --config configs/axis-reader.yaml``; ``vision.orientation``).

The labels come from the renderer's sidecars (``sidecars/*.json`` beside ``images/``): each labelled tile's
``quad`` is its face's four corners in reading order (top-left, top-right, bottom-right, bottom-left), so its
"up" is the way from the bottom edge's middle to the top edge's. Real photos have no such labels (their boxes
are axis-aligned), so the reader learns from rendered photos alone; a face's print reads the same way in both.

Each labelled box is cut ``copies`` times with its edges jittered (as the localiser's boxes are). Training adds
to the photometric augmentation of the tile classifier (``vision.classifier_training.augment``, whose half turn
keeps an axis) a quarter turn of half the crops, which turns the axis by 90 degrees: (cos 2a, sin 2a) negated.
The loss is the squared distance to the true (cos 2a, sin 2a).
"""

from __future__ import annotations

import json
import math
import sys
import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np
from PIL import Image

from vision.classifier_training import PHOTO_SUFFIXES, gather_crops, jitter_box, photo_paths
from vision.orientation import AXIS_NAMES, AXIS_SIZE, axes_from_outputs, axis_apart, axis_crop


def face_axis(quad: Sequence[Sequence[float]]) -> float:
    """The axis in degrees (0..180, ``vision.orientation``) of a face whose corners are ``quad`` (TL TR BR BL in
    photo pixels, y down).

    >>> face_axis([[10, 0], [20, 0], [20, 15], [10, 15]])      # upright
    90.0
    >>> face_axis([[0, 10], [0, 0], [15, 0], [15, 10]])        # turned a quarter: its top to the left
    0.0
    """
    (tlx, tly), (trx, try_), (brx, bry), (blx, bly) = quad
    up_x = (tlx + trx - blx - brx) / 2
    up_y = (tly + try_ - bly - bry) / 2
    return math.degrees(math.atan2(-up_y, up_x)) % 180.0


def axis_target(axes: np.ndarray) -> np.ndarray:
    """Axes in degrees -> the reader's targets, N x 2 (cos 2a, sin 2a)."""
    doubled = np.radians(2 * np.asarray(axes, dtype=np.float64))
    return np.stack([np.cos(doubled), np.sin(doubled)], axis=1).astype(np.float32)


def photo_crops(path: Path, rng: np.random.Generator, *, copies: int, jitter: float, size: int = AXIS_SIZE
                ) -> tuple[list[np.ndarray], list[float]]:
    """The reader's crops of one rendered photo and each one's face axis (degrees), from its sidecar."""
    sidecar = path.parent.parent / "sidecars" / (path.stem + ".json")
    if not sidecar.is_file():
        return [], []
    tiles = json.loads(sidecar.read_text()).get("tiles", [])
    image = Image.open(path).convert("RGB")
    crops: list[np.ndarray] = []
    axes: list[float] = []
    for tile in tiles:
        if not tile.get("labelled") or not tile.get("box") or not tile.get("quad"):
            continue
        box = np.asarray(tile["box"], dtype=np.float32)
        axis = face_axis(tile["quad"])
        for _ in range(copies):
            crops.append(axis_crop(image, jitter_box(box, rng, jitter) if jitter else box, size=size))
            axes.append(axis)
    return crops, axes


def build_crops(folders: Sequence[Path], *, copies: int, jitter: float, seed: int, size: int = AXIS_SIZE,
                limit: int | None = None, progress: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """All the reader's crops (N x size x size x 3 uint8) and axes (degrees) of the photos in ``folders``."""
    rng = np.random.default_rng(seed)
    return gather_crops(photo_paths(folders, limit),
                        lambda path: photo_crops(path, rng, copies=copies, jitter=jitter, size=size),
                        crop_shape=(size, size), target_dtype=np.float64, progress=progress, every=500)


def axis_errors(model, crops: np.ndarray, axes: np.ndarray) -> np.ndarray:
    """Each crop's error in degrees (0..90) between the axis ``model`` reads and the true one."""
    from vision.classifier_training import _run_batches

    read = axes_from_outputs(_run_batches(model, crops, 512, lambda m, xb: m(xb), 2))
    return axis_apart(read, axes)


def train_reader(crops: np.ndarray, axes: np.ndarray, *, epochs: int, batch: int = 256, lr: float = 0.003,
                 width: int = 16, seed: int = 0, threads: int | None = None,
                 evaluations: dict[str, tuple[np.ndarray, np.ndarray]] | None = None, log: Any = None):
    """Train the network (``make_network(width, 2)``) on crops and their axes; answers (model, history)."""
    import torch

    from vision.classifier_training import augment, make_network

    if threads:
        torch.set_num_threads(threads)
    torch.manual_seed(seed)
    generator = torch.Generator().manual_seed(seed)
    model = make_network(width, len(AXIS_NAMES))
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=5e-4)
    steps = math.ceil(len(crops) / batch)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=lr, total_steps=epochs * steps, pct_start=0.15)
    x_all = torch.from_numpy(crops)
    t_all = torch.from_numpy(axis_target(axes))
    history = []
    started = time.time()
    for epoch in range(epochs):
        model.train()
        order = torch.randperm(len(x_all), generator=generator)
        loss_sum, total = 0.0, 0
        for step in range(steps):
            index = order[step * batch:(step + 1) * batch]
            xb = augment(x_all[index].permute(0, 3, 1, 2).float().div_(255.0), generator)
            tb = t_all[index]
            quarter = torch.rand(len(index), generator=generator) < 0.5  # a quarter turn: the axis turns 90
            xb = torch.where(quarter[:, None, None, None], xb.rot90(1, (2, 3)), xb)
            tb = torch.where(quarter[:, None], -tb, tb)
            loss = torch.nn.functional.mse_loss(model(xb), tb)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            scheduler.step()
            loss_sum += loss.item() * len(index)
            total += len(index)
            if log and step % 100 == 0:
                print(f"  epoch {epoch + 1}/{epochs} step {step}/{steps} loss {loss_sum / total:.4f} "
                      f"{time.time() - started:.0f} s", file=log, flush=True)
        record: dict[str, Any] = {"epoch": epoch + 1, "loss": loss_sum / max(total, 1),
                                  "seconds": round(time.time() - started, 1)}
        for name, (vx, va) in (evaluations or {}).items():
            errors = axis_errors(model, vx, va)
            record[name] = {"median_error_deg": round(float(np.median(errors)), 2),
                            "within_45_deg": round(float((errors < 45).mean()), 4)}
        history.append(record)
        if log:
            print("  " + json.dumps(record), file=log, flush=True)
    return model, history


def train_recipe(config: dict[str, Any], root: Path, *, epochs: int | None = None,
                 fraction: float | None = None) -> Path:
    """``task: axis-reader``: crops of the recipe's rendered sets (``data.synthetic``, rendered first where
    missing), the network, its weights in the run folder and its ONNX export (``export.onnx``). ``data.val``:
    rendered folders whose error is reported after each epoch."""
    from vision.training import TrainingError, synthetic_sets

    try:
        import onnx  # noqa: F401
        import torch
    except ImportError as error:
        raise TrainingError(f"Training the face-axis reader needs torch and onnx ({error}): "
                            "pip install -e '.[train]'") from None
    from vision.classifier_training import export_onnx

    data = config["data"]
    sources = synthetic_sets(root, data)
    if not sources:
        raise TrainingError("The face-axis reader's recipe names no rendered photos (data.synthetic): "
                            "only they have the faces' corners.")
    crops = config.get("crops", {})
    size = int(crops.get("size", AXIS_SIZE))
    parts = []
    for i, folder in enumerate(sources):
        count = len([p for p in folder.iterdir() if p.suffix.lower() in PHOTO_SUFFIXES])
        limit = max(1, int(count * fraction)) if fraction else None
        print(f"mjscan train: cutting the face-axis reader's crops from {folder}", file=sys.stderr)
        parts.append(build_crops([folder], copies=int(crops.get("copies", 1)), jitter=float(crops.get("jitter", 0.08)),
                                 seed=int(crops.get("seed", 1)) + i, size=size, limit=limit))
    train_x = np.concatenate([x for x, _ in parts])
    train_a = np.concatenate([a for _, a in parts])
    if not len(train_x):
        raise TrainingError("The rendered sets have no sidecars with the faces' corners.")
    evaluations = {}
    for name in data.get("val") or []:
        folder = (root / name).resolve()
        if not folder.is_dir():
            raise TrainingError(f"The validation photos '{folder}' are missing.")
        evaluations[Path(name).parent.name or name] = build_crops([folder], copies=1, jitter=float(crops.get("jitter", 0.08)),
                                                                  seed=0, size=size, progress=False)
    print(f"mjscan train: {len(train_x)} crops of {size} x {size}, {len(sources)} sources", file=sys.stderr)
    network = config.get("network", {})
    model, history = train_reader(train_x, train_a, epochs=epochs or int(config.get("epochs", 4)),
                                  batch=int(config.get("batch", 256)), lr=float(config.get("lr0", 0.003)),
                                  width=int(network.get("width", 16)), seed=int(config.get("seed", 0)),
                                  threads=config.get("threads"), evaluations=evaluations, log=sys.stderr)
    run = config.get("run", {})
    run_dir = root / run.get("project", "runs/axis") / run.get("name", "train")
    run_dir.mkdir(parents=True, exist_ok=True)
    torch.save(model.state_dict(), run_dir / "reader.pt")
    (run_dir / "history.json").write_text(json.dumps(history, indent=1) + "\n")
    target = root / config.get("export", {}).get("onnx", "models/axis.onnx")
    export_onnx(model, target, metadata={"recipe": str(config.get("_path", "")), "epochs": str(len(history))},
                boxes=False, names=AXIS_NAMES, crop_size=(size, size), softmax=False)
    print(f"mjscan train: exported the face-axis reader -> {target} ({target.stat().st_size / 1e6:.1f} MB)",
          file=sys.stderr)
    return target
