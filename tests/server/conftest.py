"""Fixtures for the server: the app with a fake scanner (``app``, ``client``, ``scanner``) and the app as
shipped before the detector exists (``bare_app``, ``bare_client``)."""

from __future__ import annotations

import pytest

from server import create_app
from tests.server.helpers import FakeScanner


@pytest.fixture
def scanner() -> FakeScanner:
    return FakeScanner()


@pytest.fixture
def app(scanner):
    return create_app({"TESTING": True, "SCANNER": scanner})


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def bare_app():
    """The app as shipped before the detector exists: no scanner."""
    return create_app({"TESTING": True, "SCANNER": None})


@pytest.fixture
def bare_client(bare_app):
    return bare_app.test_client()
