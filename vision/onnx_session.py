"""Opening an ONNX model for onnxruntime on the CPU, the same way for every model the detector runs."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np


def open_session(path: str | os.PathLike[str], *, threads: int | None, error: type[Exception], what: str):
    """An onnxruntime session on the CPU for the model at ``path`` (quiet logs; ``threads`` intra-op threads
    where given; idle threads sleep rather than spin). A broken file raises ``error`` with a message naming
    ``what`` the model is."""
    try:
        import onnxruntime as ort
    except ImportError as missing:
        raise error(f"Running {what} needs onnxruntime ({missing}): pip install onnxruntime") from None
    options = ort.SessionOptions()
    options.log_severity_level = 3
    if threads:
        options.intra_op_num_threads = threads
    # a photo goes through four models in turn, each session with threads of its own: threads left spinning after
    # one model's run took the two cores from the next (12 MP: 350 -> 313 ms a photo, stop 45)
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    try:
        return ort.InferenceSession(str(Path(path)), sess_options=options, providers=["CPUExecutionProvider"])
    except Exception as failure:  # onnxruntime raises its own types for a broken file
        raise error(f"Cannot load {what} '{path}': {str(failure).splitlines()[0]}") from None


def read_both_ways(session, input_name: str, crops: np.ndarray, batch: int) -> np.ndarray:
    """The model's first output for N x H x W x 3 uint8 crops (``vision.crops.to_tensor``), each crop also read
    turned a half turn (the same tile: the models are trained on both ways up) and the two readings averaged;
    ``batch`` crops a run."""
    from vision.crops import to_tensor

    both = np.concatenate([crops, crops[:, ::-1, ::-1]])
    out = np.concatenate([session.run(None, {input_name: to_tensor(both[i:i + batch])})[0]
                          for i in range(0, len(both), batch)]).astype(np.float32)
    half = len(out) // 2
    return (out[:half] + out[half:]) / 2
