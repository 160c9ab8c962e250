"""`mjscan serve`: waitress with the app, in-memory request bodies, and a clear message when it cannot listen."""

from __future__ import annotations

import pytest

waitress = pytest.importorskip("waitress", reason="waitress is not installed")


@pytest.fixture
def served(monkeypatch):
    calls = []
    monkeypatch.setattr(waitress, "serve", lambda app, **kwargs: calls.append((app, kwargs)))
    return calls


def test_serve_runs_waitress_on_loopback_port_8000_by_default(cli, served):
    run = cli("serve")
    assert run.status == 0, run.err
    (app, options), = served
    assert options["host"] == "127.0.0.1" and options["port"] == 8000 and options["threads"] == 8
    assert options["max_request_body_size"] == options["inbuf_overflow"] > app.config["MAX_CONTENT_LENGTH"]
    assert app.url_map.bind("localhost").match("/api/health")
    assert "serving on http://127.0.0.1:8000/" in run.err


def test_serve_host_port_threads(cli, served):
    assert cli("serve", "--host", "0.0.0.0", "--port", "8123", "--threads", "3").status == 0
    options = served[0][1]
    assert (options["host"], options["port"], options["threads"]) == ("0.0.0.0", 8123, 3)


def test_serve_says_whether_photos_can_be_read(cli, served):
    import importlib.util

    run = cli("serve")
    if importlib.util.find_spec("vision.detector") is None:
        assert "no detector yet" in run.err


@pytest.mark.parametrize("argv", [("--port", "70000"), ("--threads", "0"), ("--port", "x")])
def test_serve_refuses_bad_options(cli, served, argv):
    assert cli("serve", *argv).status == 2
    assert served == []


def test_serve_reports_a_busy_port(cli, monkeypatch):
    def busy(app, **kwargs):
        raise OSError(98, "Address already in use")

    monkeypatch.setattr(waitress, "serve", busy)
    run = cli("serve", "--port", "8000")
    assert run.status == 2 and "Address already in use" in run.err


def test_serve_is_in_the_help(cli):
    run = cli("serve", "--help")
    assert run.status == 0 and "--host" in run.out and "--port" in run.out
