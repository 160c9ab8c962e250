"""Training the tile detector from a config file (``mjscan train --config configs/detector.yaml``).

The recipe lives in the YAML file (model YAML, input size, epochs or a wall-clock limit, batch, seed,
augmentation, data sources); this module only carries it out:

1. renders the synthetic photos with ``mjscan synth`` (fixed seed, skipped when the folder already holds
   that seed and count),
2. writes ``data/detector-train.yaml`` joining them with the real training photos,
3. trains with ultralytics (imported here, lazily: ``pip install -e '.[train]'``),
4. exports the chosen checkpoint to ONNX (fixed input size) at the configured path in ``models/``.

Nothing here is imported by ``vision.detector``: importing ``vision`` never loads torch.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np

from vision.classes import CLASS_NAMES


class TrainingError(Exception):
    """A recipe that cannot be carried out (missing file, missing package): a message for people."""


def repo_root(start: Path) -> Path:
    """The folder holding pyproject.toml at or above ``start`` (else the current folder)."""
    for folder in [start, *start.parents]:
        if (folder / "pyproject.toml").is_file():
            return folder
    return Path.cwd()


DETECTOR_TASK = "detector"
"""A recipe without ``task`` trains the localiser (ultralytics)."""
TASKS = (DETECTOR_TASK, "classifier", "classifier-average", "bonus-reader", "axis-reader")
"""What a recipe's ``task`` may name (``train`` dispatches on it)."""


def load_config(path: str | os.PathLike[str]) -> dict[str, Any]:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise TrainingError(f"Cannot read the config '{path}': {error.strerror or error}.") from None
    try:
        import yaml
    except ImportError:  # pragma: no cover - PyYAML comes with ultralytics
        raise TrainingError("Reading the config needs PyYAML: pip install -e '.[train]'") from None
    try:
        config = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise TrainingError(f"The config '{path}' is not valid YAML: {error}") from None
    if isinstance(config, dict) and config.get("task", DETECTOR_TASK) not in TASKS:
        raise TrainingError(f"The config '{path}' names the task {config['task']!r}: choose one of "
                            f"{', '.join(TASKS)} (none: {DETECTOR_TASK}).")
    if isinstance(config, dict) and config.get("task") == "classifier-average":
        if not isinstance(config.get("average"), list) or len(config["average"]) < 2:
            raise TrainingError(f"The config '{path}' (task: classifier-average) needs 'average': a list of two or "
                                "more classifier weights (.pt) of the same network.")
        return config
    if not isinstance(config, dict) or "data" not in config or (
            "model" not in config and config.get("task") not in ("classifier", "bonus-reader", "axis-reader")):
        raise TrainingError(f"The config '{path}' needs at least 'model' and 'data' keys "
                            "('data' alone with 'task: classifier', 'bonus-reader' or 'axis-reader').")
    if not isinstance(config["data"], dict):  # (its sets, real photos and crops are named under it)
        raise TrainingError(f"The config '{path}' gives 'data' as {config['data']!r}: it must be a mapping of the "
                            "training sets (see configs/).")
    return config


def _yolo():
    """ultralytics' YOLO class, imported lazily, with ultralytics' global patch of ``PIL.Image.open`` undone.

    On import ultralytics replaces ``PIL.Image.open`` process-wide: a file Pillow cannot identify then makes it
    try to pip-install pi-heif (there is no network here) and raise ModuleNotFoundError instead of Pillow's
    UnidentifiedImageError, which is what our photo checks (vision.detector, server.uploads) catch. Our
    training photos are JPEG and PNG, so nothing is lost by restoring Pillow's own."""
    try:
        from ultralytics import YOLO
    except ImportError as error:
        raise TrainingError(f"Training needs ultralytics ({error}): pip install -e '.[train]'") from None
    try:
        from PIL import Image
        from ultralytics.utils import patches

        original = getattr(patches, "_image_open", None)
        if original is not None and Image.open is not original:
            Image.open = original
    except ImportError:  # an ultralytics without the patch
        pass
    return YOLO


def _check_device(device: str, recipe: str) -> None:
    """A recipe made for a CUDA GPU (``device: 0``, the shipped localiser's) says so on a machine without one,
    instead of ultralytics' traceback."""
    if device in ("cpu", "mps"):
        return
    import torch

    if not torch.cuda.is_available():
        raise TrainingError(f"The recipe '{recipe}' trains on a CUDA GPU (device: {device}) and this machine has none. "
                            "Run it on a GPU machine (tools/train-on-gpu.sh), or copy it with 'device: cpu' "
                            "(a localiser round at 640 px takes days on two cores; a classifier round on 900,000 "
                            "crops, hours).")


def _read_results_without_polars() -> None:
    """Let ultralytics save checkpoints where polars is missing (the lent GPU machine has none, and its wheel is
    too big to carry): it only reads its own results.csv back into each checkpoint, which the csv module does."""
    try:
        import polars  # noqa: F401
        return
    except ImportError:
        pass
    import csv

    from ultralytics.engine.trainer import BaseTrainer

    def read_results_csv(trainer) -> dict[str, list[Any]]:
        try:
            with open(trainer.csv, newline="") as handle:
                rows = list(csv.DictReader(handle))
        except OSError:
            return {}
        columns: dict[str, list[Any]] = {}
        for row in rows:
            for key, value in row.items():
                try:
                    columns.setdefault(key.strip(), []).append(float(value))
                except (TypeError, ValueError):
                    columns.setdefault(key.strip(), []).append(value)
        return columns

    BaseTrainer.read_results_csv = read_results_csv


def _made_with(record: Path) -> dict[str, Any]:
    """What a generated set's record (synth.json, stretch.json) says it was made with; {} when it is missing
    or unreadable (the set is then made again)."""
    try:
        done = json.loads(record.read_text())
    except (OSError, ValueError):
        return {}
    return done if isinstance(done, dict) else {}


def render_synthetic(root: Path, spec: dict[str, Any]) -> Path | None:
    """Render the configured synthetic set with ``mjscan synth`` unless it is already there."""
    if not spec or not spec.get("count"):
        return None
    out = root / spec["out"]
    done = _made_with(out / "synth.json")
    if done.get("seed") == spec["seed"] and done.get("count") == spec["count"] and \
            float((done.get("options") or {}).get("clutter", 0.0)) == float(spec.get("clutter", 0.0)):
        return out / "images"
    command = [sys.executable, "-m", "mjscan", "synth", "--count", str(spec["count"]), "--out", str(out),
               "--seed", str(spec["seed"]), "--size", str(spec.get("size", "640")), "--quiet"]
    if spec.get("kinds"):
        command += ["--kinds", *spec["kinds"]]
    if spec.get("clutter"):
        command += ["--clutter", str(spec["clutter"])]
    if spec.get("art"):
        command += ["--art", str(prepare_random_art(root, spec["art"]))]
    print("mjscan train: rendering", " ".join(command[3:]), file=sys.stderr)
    subprocess.run(command, check=True, cwd=root)
    return out / "images"


def prepare_random_art(root: Path, spec: dict[str, Any]) -> Path:
    """The recipe's own art bundle of random painted styles (``{out, random, seed}``, and ``generation``: 1 unless
    given) and of named styles (``styles``: a list of ``datasets.art.prepare.STYLES``, e.g. the opt-in ``xm-real``),
    built unless the folder already holds exactly those styles."""
    from datasets.art.bundle import load_bundle
    from datasets.art.prepare import random_specs

    out = root / spec["out"]
    generation = int(spec.get("generation", 1))
    count = int(spec.get("random", 0))
    named = [str(name) for name in spec.get("styles", [])]
    wanted = {s.name for s in random_specs(count, int(spec.get("seed", 0)), generation)} | set(named)
    try:
        if {style.name for style in load_bundle(out).training_styles()} == wanted:
            return out
    except (ValueError, OSError):
        pass
    command = [sys.executable, "-m", "datasets.art.prepare", "--out", str(out), "--quiet",
               "--random", str(count), "--random-seed", str(spec.get("seed", 0)),
               "--random-generation", str(generation), *[arg for name in named for arg in ("--style", name)]]
    print("mjscan train: painting", count, "random art styles", f"and {', '.join(named)}" if named else "",
          "into", out, file=sys.stderr)
    subprocess.run(command, check=True, cwd=root)
    return out


def generated_sets(root: Path, data: dict[str, Any]) -> list[Path]:
    """The image folders of a recipe's generated data, in this order: ``data.synthetic`` (one rendered set or
    a list of them), then ``data.stretched``; each is made first when it is not there yet."""
    made = [*synthetic_sets(root, data), make_stretched(root, data.get("stretched"))]
    return [folder for folder in made if folder is not None]


def synthetic_specs(data: dict[str, Any]) -> list[dict[str, Any]]:
    """``data.synthetic`` as a list: a recipe may name one rendered set or a list of them."""
    specs = data.get("synthetic") or []
    specs = specs if isinstance(specs, list) else [specs]
    for spec in specs:
        if not isinstance(spec, dict):
            raise TrainingError(f"data.synthetic names a rendered set as a mapping (out, count, seed, ...; see "
                                f"configs/), not {spec!r}.")
    return specs


def synthetic_sets(root: Path, data: dict[str, Any]) -> list[Path]:
    """The image folders of ``data.synthetic``, in its order, each rendered first when it is not there yet."""
    return [render_synthetic(root, spec) for spec in synthetic_specs(data)]


def make_stretched(root: Path, spec: dict[str, Any] | None) -> Path | None:
    """The recipe's ``data.stretched`` set (``datasets.stretch``: bands of labelled photos resized to the whole
    photo), made first unless the folder already holds that source, seed and count."""
    if not spec or not spec.get("count"):
        return None
    from datasets.stretch import write_stretched_set

    source, out = (root / spec["source"]).resolve(), root / spec["out"]
    if _made_with(out / "stretch.json") == {"source": str(source), "count": spec["count"], "seed": spec["seed"]}:
        return out / "images"
    if not (source / "images").is_dir():
        raise TrainingError(f"The photos to stretch '{source}' are missing (images/ and labels/).")
    print(f"mjscan train: stretching {spec['count']} photos from {source} into {out}", file=sys.stderr)
    shutil.rmtree(out, ignore_errors=True)
    return write_stretched_set(source, out, count=int(spec["count"]), seed=int(spec["seed"]))


def write_data_yaml(root: Path, config: dict[str, Any]) -> Path:
    """``data/detector-train.yaml``: every training source as a list, the 43 names in spec order."""
    data = config["data"]
    train = [str(folder) for folder in generated_sets(root, data)]
    if data.get("real_train"):
        folder = (root / data["real_train"]).resolve()
        if not folder.is_dir():
            raise TrainingError(f"The training photos '{folder}' are missing.")
        # ultralytics keeps a folder listed twice twice: the real photos can weigh more than one pass each
        repeat = int(data.get("real_train_repeat", 1))
        if repeat < 1:
            raise TrainingError(f"data.real_train_repeat must be 1 or more, not {repeat}.")
        train.extend([str(folder)] * repeat)
    val = str((root / data["val"]).resolve()) if data.get("val") else train[0]
    target = root / "data" / "detector-train.yaml"
    target.parent.mkdir(parents=True, exist_ok=True)
    lines = ["# written by mjscan train from " + str(config.get("_path", "the config")),
             "train:", *[f"  - {path}" for path in train], f"val: {val}", f"nc: {len(CLASS_NAMES)}",
             "names: [" + ", ".join(CLASS_NAMES) + "]"]
    target.write_text("\n".join(lines) + "\n")
    return target


RELOAD_SECONDS = 75
"""What a classifier round spends besides its epochs when its sets are already rendered, mined and cut once on the
machine: loading and cutting them again, and the export (stop 38, on a lent H200: 59 s for a million crops)."""


def epoch_seconds(log_text: str) -> float | None:
    r"""The mean seconds an epoch took in a classifier round's log (``train_classifier`` prints
    ``{"epoch": N, ..., "seconds": S}`` after each, S counted from the start of training), or None before two epochs.

    >>> epoch_seconds('  {"epoch": 1, "seconds": 16.3}\n  {"epoch": 2, "seconds": 26.1}\n  {"epoch": 3, "seconds": 35.9}')
    9.8
    """
    marks = [json.loads(line)["seconds"] for line in log_text.splitlines()
             if line.strip().startswith('{"epoch"') and '"seconds"' in line]
    if len(marks) < 2:
        return None
    return round((marks[-1] - marks[0]) / (len(marks) - 1), 1)


def epochs_that_fit(seconds_left: float, per_epoch: float | None, wanted: int, *,
                    overhead: float = RELOAD_SECONDS) -> int:
    """How many of a second round's ``wanted`` epochs fit in ``seconds_left`` on the warm machine (its one-cycle
    schedule then spans them all: cutting a run short at a wall-clock limit would stop it before the rate falls);
    0 when the epoch time is unknown.

    >>> epochs_that_fit(166, 9.8, 12)
    9
    >>> epochs_that_fit(600, 9.8, 12), epochs_that_fit(60, 9.8, 12), epochs_that_fit(300, None, 12)
    (12, 0, 0)
    """
    if not per_epoch or per_epoch <= 0:
        return 0
    return max(0, min(wanted, int((seconds_left - overhead) // per_epoch)))


def train(config_path: str | os.PathLike[str], *, epochs: int | None = None, hours: float | None = None,
          fraction: float | None = None) -> Path:
    """Carry out the recipe; answers the exported ONNX file's path. A recipe with ``task: classifier``
    trains the tile classifier (the detector's second stage) instead of the YOLO localiser, one with
    ``task: bonus-reader`` the bonus reader (``vision.bonus_reader``), one with ``task: axis-reader`` the
    face-axis reader (``vision.orientation``)."""
    config = load_config(config_path)
    config["_path"] = str(config_path)
    root = repo_root(Path(config_path).resolve().parent)
    if config.get("task") == "classifier":
        return train_classifier_recipe(config, root, epochs=epochs, hours=hours, fraction=fraction)
    if config.get("task") == "classifier-average":
        return average_classifiers_recipe(config, root)
    if config.get("task") == "bonus-reader":
        from vision.bonus_training import train_recipe

        return train_recipe(config, root, epochs=epochs, hours=hours, fraction=fraction)
    if config.get("task") == "axis-reader":
        from vision.orientation_training import train_recipe as train_axis_reader

        return train_axis_reader(config, root, epochs=epochs, fraction=fraction)
    data_yaml = write_data_yaml(root, config)
    YOLO = _yolo()

    run = config.get("run", {})
    arguments: dict[str, Any] = dict(
        data=str(data_yaml), imgsz=config.get("imgsz", 640), epochs=epochs or config.get("epochs", 100),
        batch=config.get("batch", 16), seed=config.get("seed", 0),
        deterministic=config.get("deterministic", True), workers=config.get("workers", 2),
        device=config.get("device", "cpu"), cache=config.get("cache", False),
        patience=config.get("patience", 100), close_mosaic=config.get("close_mosaic", 10),
        single_cls=bool(config.get("single_cls", False)),
        mosaic=config.get("mosaic", 1.0), fliplr=config.get("fliplr", 0.0),
        val=config.get("val_during_training", True), plots=False,
        # AMP's start-up check downloads a model (there is no network): off unless the recipe turns it on
        amp=bool(config.get("amp", False)),
        # a .pt start (the localiser's) keeps its weights; an architecture file starts from random ones
        pretrained=str(config["model"]).endswith(".pt"),
        project=str(root / run.get("project", "runs/detector")), name=run.get("name", "train"), exist_ok=True)
    limit = hours if hours is not None else config.get("hours")
    if limit and epochs is None:
        arguments["time"] = float(limit)
    if fraction is not None:
        arguments["fraction"] = fraction
    for key in ("degrees", "scale", "translate", "hsv_h", "hsv_s", "hsv_v", "lr0", "optimizer", "cos_lr",
                "warmup_epochs", "flipud", "mixup", "copy_paste", "rect"):
        if key in config:
            arguments[key] = config[key]
    _check_device(str(arguments["device"]), config["_path"])
    model = YOLO(str(root / config["model"]) if config["model"].endswith(".pt") else config["model"])
    _read_results_without_polars()
    model.train(**arguments)
    weights_dir = Path(arguments["project"]) / arguments["name"] / "weights"
    return export(config, root, weights_dir)


def export(config: dict[str, Any], root: Path, weights: Path) -> Path:
    """Export ``weights`` (a .pt, or a weights/ folder: best.pt, else last.pt) to the configured ONNX path."""
    if weights.is_dir():
        candidates = [weights / "best.pt", weights / "last.pt"]
        found = [path for path in candidates if path.is_file()]
        if not found:
            raise TrainingError(f"No checkpoint in '{weights}'.")
        weights = found[0]
    YOLO = _yolo()

    settings = config.get("export", {})
    model = YOLO(str(weights))
    produced = Path(model.export(format="onnx", imgsz=config.get("imgsz", 640), opset=settings.get("opset", 12),
                                 dynamic=bool(settings.get("dynamic", False)), simplify=False, half=False,
                                 device="cpu"))
    target = root / settings.get("onnx", "models/detector.onnx")
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(produced, target)
    print(f"mjscan train: exported {weights} -> {target} ({target.stat().st_size / 1e6:.1f} MB)", file=sys.stderr)
    return target


def average_classifiers_recipe(config: dict[str, Any], root: Path) -> Path:
    """``task: classifier-average``: the mean of the weights of classifier rounds that share a start (a
    "model soup"), exported like a trained round. Round 5 fine-tuned from round 4 reads unseen art styles
    better and the real photos a little worse; their mean keeps most of both (models/README.md). ``weights``, when
    given, are the rounds' shares of the mean (a weighted soup), in the order of ``average``."""
    try:
        import torch  # noqa: F401
    except ImportError as error:
        raise TrainingError(f"Averaging classifiers needs torch ({error}): pip install -e '.[train]'") from None
    from vision.classifier_training import make_network, read_state

    states = []
    for name in config["average"]:
        weights = root / name
        if not weights.is_file():
            raise TrainingError(f"The classifier weights '{weights}' to average are missing: train that round first.")
        states.append(read_state(weights))
    if any(set(state) != set(states[0]) for state in states):
        raise TrainingError("The classifiers to average are not the same network.")
    shares = config.get("weights")  # each round's share of the mean (stop 41); equal shares unless given
    if shares is None:
        shares = [1.0] * len(states)
    if (not isinstance(shares, list) or len(shares) != len(states)
            or not all(isinstance(w, (int, float)) and w >= 0 for w in shares) or sum(shares) <= 0):
        raise TrainingError(f"'weights' must give each of the {len(states)} classifiers a share of 0 or more (not "
                            f"all 0), not {shares!r}.")
    total = float(sum(shares))
    averaged = {key: (sum(w * state[key].double() for w, state in zip(shares, states)) / total).to(states[0][key].dtype)
                if states[0][key].is_floating_point() else states[-1][key] for key in states[0]}
    model = make_network(int(config.get("network", {}).get("width", 32)))
    model.load_state_dict(averaged)
    metadata = {"average": json.dumps(list(config["average"]))}
    if config.get("weights") is not None:
        metadata["weights"] = json.dumps(shares)
    _, target = save_classifier(config, root, model, "average", metadata)
    print(f"mjscan train: averaged {len(states)} classifiers -> {target} ({target.stat().st_size / 1e6:.1f} MB)",
          file=sys.stderr)
    return target


def save_classifier(config: dict[str, Any], root: Path, model, default_name: str,
                    metadata: dict[str, str]) -> tuple[Path, Path]:
    """A classifier recipe's end: its weights in the run folder (``run.project``/``run.name``/classifier.pt) and
    its ONNX export (``export.onnx``, with the box output unless ``export.boxes`` is false, else with the features
    that ``vision.sibling_readings`` compares); answers both paths."""
    import torch

    from vision.classifier_training import export_onnx

    run = config.get("run", {})
    run_dir = root / run.get("project", "runs/classifier") / run.get("name", default_name)
    run_dir.mkdir(parents=True, exist_ok=True)
    torch.save(model.state_dict(), run_dir / "classifier.pt")
    target = root / config.get("export", {}).get("onnx", "models/classifier.onnx")
    export_onnx(model, target, metadata={"recipe": str(config.get("_path", "")), **metadata},
                boxes=bool(config.get("export", {}).get("boxes", True)), features=True)
    return run_dir, target


def training_sources(root: Path, data: dict[str, Any]) -> tuple[list[Path], list[Path]]:
    """A crop recipe's photo folders in their fixed order (``data.real_train``, then ``data.synthetic``, then
    ``data.stretched``; each generated set made first where missing), and the rendered ones among them."""
    sources: list[Path] = []
    if data.get("real_train"):
        folder = (root / data["real_train"]).resolve()
        if not folder.is_dir():
            raise TrainingError(f"The training photos '{folder}' are missing.")
        sources.append(folder)
    rendered = synthetic_sets(root, data)
    stretched = make_stretched(root, data.get("stretched"))
    sources.extend(rendered + ([stretched] if stretched is not None else []))
    return sources, rendered


def crop_copies(crops: dict[str, Any], default: int) -> tuple[int, int]:
    """A crop recipe's ``crops.copies`` (``default`` where not given) and ``crops.real_copies``: the real photos'
    crops cut more often than the rendered ones' (with hundreds of thousands of rendered crops beside them, a
    classifier round otherwise reads the real photos worse: round 13, stop 19; the bonus reader's round 5 took it
    too, stop 26); ``copies`` where not given. Each must be 1 or more."""
    copies = int(crops.get("copies", default))
    real_copies = int(crops.get("real_copies", copies))
    if copies < 1 or real_copies < 1:
        raise TrainingError(f"crops.copies and crops.real_copies must be 1 or more, not {copies} and {real_copies}.")
    return copies, real_copies


def train_classifier_recipe(config: dict[str, Any], root: Path, *, epochs: int | None = None,
                            hours: float | None = None, fraction: float | None = None) -> Path:
    """The tile classifier's recipe: crops of the real and rendered training photos, a small CNN, ONNX.

    The sources are cut in a fixed order (real, then synthetic, then stretched), source ``i`` with crop seed
    ``crops.seed + i``, so that a recipe gives the same crops every time."""
    try:
        import torch  # noqa: F401
        import onnx  # noqa: F401
    except ImportError as error:
        raise TrainingError(f"Training the classifier needs torch and onnx ({error}): pip install -e '.[train]'") from None
    from vision.classifier_training import (DISTILL_TEMPERATURE, DISTILL_WEIGHT, PHOTO_SUFFIXES, build_crops,
                                            train_classifier)

    data = config["data"]
    crops = config.get("crops", {})
    network = config.get("network", {})
    box_head = bool(network.get("box_head", False))
    # refused before any photo is rendered: a GPU recipe on a machine without one, margins out of range, upright
    # crops for a box head (they have no box target)
    margins = tuple(float(m) for m in crops["margins"]) if crops.get("margins") else None
    if margins is not None and (len(margins) != 2 or not 0 <= margins[0] <= margins[1] <= 0.5):
        raise TrainingError(f"crops.margins must be [low, high] within 0..0.5, not {crops['margins']}.")
    upright_copies = int(crops.get("upright_copies", 0))
    if upright_copies and box_head:
        raise TrainingError("crops.upright_copies cannot go with network.box_head: upright crops have no box target.")
    copies, real_copies = crop_copies(crops, 2)
    device = str(config.get("device", "cpu"))
    _check_device(device, str(config.get("_path", "the recipe")))
    distill = config.get("distill") or {}  # {teacher, weight, temperature, only_right}: learning without forgetting (stop 41)
    teacher = None
    if distill:
        if box_head:
            raise TrainingError("distill cannot go with network.box_head: the teacher reads classes only.")
        teacher = root / str(distill.get("teacher", ""))
        if not distill.get("teacher") or not teacher.is_file():
            raise TrainingError(f"The teacher '{distill.get('teacher')}' that distill names is missing.")
    workers = int(config.get("workers", 0))  # processes cutting crops and mining false boxes (the GPU machine: 16)
    sources, rendered = training_sources(root, data)
    if not sources:
        raise TrainingError("The classifier recipe names no training photos (data.real_train, data.synthetic).")
    seed = int(crops.get("seed", 1))
    box_targets: list[np.ndarray] | None = [] if box_head else None
    mining = crops.get("false_boxes")  # {localiser, per_image, min_score, max_iou}: vision/false_boxes.py
    if mining:
        localiser = root / mining["localiser"]
        if not localiser.is_file():
            raise TrainingError(f"The localiser '{localiser}' whose false boxes the recipe mines is missing.")
    # a set whose spec says `mine_false_boxes: false` is not mined: the localiser reads a photo in about a tenth of
    # a second a core, which on a lent machine's short call is worth spending on a few thousand photos, not all
    mined_sets = {folder: spec for folder, spec in zip(rendered, synthetic_specs(data))
                  if spec.get("mine_false_boxes", True)}
    real_folder = (root / data["real_train"]).resolve() if data.get("real_train") else None
    parts = []
    for i, folder in enumerate(sources):
        count = len([p for p in folder.iterdir() if p.suffix.lower() in PHOTO_SUFFIXES])
        limit = max(1, int(count * fraction)) if fraction else None
        mined = None
        if mining and folder in mined_sets:  # rendered photos only: their labels name every visible tile
            print(f"mjscan train: mining the localiser's false boxes in {folder}", file=sys.stderr)
            from vision.false_boxes import mine_folder

            mined = mine_folder(folder, localiser, min_score=float(mining.get("min_score", 0.1)),
                                max_iou=float(mining.get("max_iou", 0.3)), workers=workers)
        print(f"mjscan train: cutting crops from {folder}", file=sys.stderr)
        parts.append(build_crops([folder], copies=real_copies if folder == real_folder else copies,
                                 jitter=float(crops.get("jitter", 0.06)),
                                 none_per_image=int(crops.get("none_per_image", 3)), seed=seed + i, limit=limit,
                                 boxes=box_targets, false_boxes=mined,
                                 # a set's own `false_per_image` (photos with things on the table: many false
                                 # boxes each) over the recipe's
                                 false_per_image=int(mined_sets[folder].get("false_per_image",
                                                                            mining.get("per_image", 4)))
                                 if mined is not None else 0,
                                 bonus_copies=int(crops["bonus_copies"]) if "bonus_copies" in crops else None,
                                 upright_copies=upright_copies, margins=margins,
                                 workers=workers))
    train_x = np.concatenate([x for x, _ in parts])
    train_y = np.concatenate([y for _, y in parts])
    evaluations, box_evaluations = {}, {}
    if data.get("val"):
        folder = (root / data["val"]).resolve()
        if folder.is_dir():
            count = len(list(folder.iterdir()))
            limit = max(1, int(count * fraction)) if fraction else None
            evaluations["val_accuracy"] = build_crops([folder], copies=1, jitter=0.0, none_per_image=0, seed=0,
                                                      limit=limit, progress=False)
            if box_head:  # the box head is judged on crops cut as the localiser's boxes are: jittered
                drawn: list[np.ndarray] = []
                val_x, _ = build_crops([folder], copies=1, jitter=float(crops.get("jitter", 0.06)), none_per_image=0,
                                       seed=0, limit=limit, progress=False, boxes=drawn)
                box_evaluations["val_box_iou"] = (val_x, np.stack(drawn) if drawn else np.zeros((0, 4), np.float32))
    init = None
    if config.get("init"):
        init = root / config["init"]
        if not init.is_file():
            raise TrainingError(f"The classifier's starting weights '{init}' are missing.")
    print(f"mjscan train: {len(train_x)} crops, {len(sources)} sources", file=sys.stderr)
    model, history = train_classifier(
        train_x, train_y, epochs=epochs or int(config.get("epochs", 4)), batch=int(config.get("batch", 256)),
        lr=float(config.get("lr0", 0.003)), width=int(network.get("width", 32)), seed=int(config.get("seed", 0)),
        threads=config.get("threads"), evaluations=evaluations, hours=hours or config.get("hours"), log=sys.stderr,
        init=init, channel_shuffle=float(config.get("augment", {}).get("channel_shuffle", 0.0)),
        blur=float(config.get("augment", {}).get("blur", 0.0)),
        train_boxes=np.stack(box_targets) if box_targets else None, box_weight=float(network.get("box_weight", 5.0)),
        box_evaluations=box_evaluations, device=device, teacher=teacher,
        distill_weight=float(distill.get("weight", DISTILL_WEIGHT)),
        distill_temperature=float(distill.get("temperature", DISTILL_TEMPERATURE)),
        distill_only_right=bool(distill.get("only_right", False)))
    run_dir, target = save_classifier(config, root, model, "train", {"epochs": str(len(history))})
    (run_dir / "history.json").write_text(json.dumps(history, indent=1) + "\n")
    print(f"mjscan train: exported the classifier -> {target} ({target.stat().st_size / 1e6:.1f} MB)", file=sys.stderr)
    return target
