"""Opening the detector's models (vision.onnx_session)."""

from __future__ import annotations

import pytest

from tests.vision.fakes import tiny_localiser
from vision.onnx_session import open_session


class _Broken(Exception):
    pass


def test_a_session_runs_on_the_cpu_with_the_threads_asked_for_and_idle_threads_asleep(tmp_path):
    """The four models of a photo run one after another, each with threads of its own: threads left spinning after
    one model's run would take the cores from the next (stop 45)."""
    pytest.importorskip("onnx")
    session = open_session(tiny_localiser(tmp_path / "tiny.onnx", 320), threads=2, error=_Broken, what="the model")
    options = session.get_session_options()
    assert session.get_providers() == ["CPUExecutionProvider"]
    assert options.intra_op_num_threads == 2
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"


def test_a_broken_model_file_raises_the_callers_error_naming_the_model(tmp_path):
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"not a model")
    with pytest.raises(_Broken, match="Cannot load the bonus reader '.*broken.onnx'"):
        open_session(broken, threads=None, error=_Broken, what="the bonus reader")
