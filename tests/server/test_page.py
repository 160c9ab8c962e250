"""The page: server-rendered HTML with labelled controls, our own JS and CSS, nothing from elsewhere."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

STATIC = Path(__file__).resolve().parents[2] / "server" / "static"
TEMPLATES = Path(__file__).resolve().parents[2] / "server" / "templates"


class _Controls(HTMLParser):
    """Form controls, the ids that labels point at, and every tag's attributes."""

    def __init__(self):
        super().__init__()
        self.controls: list[dict] = []
        self.label_for: set[str] = set()
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append((tag, attrs))
        if tag in ("input", "select", "textarea"):
            self.controls.append(attrs)
        if tag == "label" and attrs.get("for"):
            self.label_for.add(attrs["for"])


def parse(html: str) -> _Controls:
    parser = _Controls()
    parser.feed(html)
    return parser


def test_the_page_with_a_detector_offers_the_camera(client):
    response = client.get("/")
    assert response.status_code == 200 and response.mimetype == "text/html"
    html = response.get_data(as_text=True)
    page = parse(html)
    photo = next(c for c in page.controls if c.get("id") == "photo-input")
    assert photo["type"] == "file" and photo["accept"] == "image/*" and photo["capture"] == "environment"
    assert "photo-input" in page.label_for and photo.get("aria-label")
    assert 'id="drop-zone"' in html and 'id="progress"' in html
    assert "not available yet" not in html
    assert 'data-detector="true"' in html


def test_without_a_detector_the_page_says_so_and_offers_manual_entry(bare_client):
    html = bare_client.get("/").get_data(as_text=True)
    assert "Photo reading is not available yet" in html
    assert 'id="photo-input"' not in html
    assert 'id="notation"' in html and 'id="add-tile"' in html
    assert 'data-detector="false"' in html


def test_every_control_has_a_label(client, bare_client):
    for c in (client, bare_client):
        page = parse(c.get("/").get_data(as_text=True))
        for control in page.controls:
            assert control.get("id") in page.label_for or control.get("aria-label"), control
        for tag, attrs in page.tags:
            if tag == "button":
                assert attrs.get("type") == "button"


def test_the_page_is_made_for_phones(client):
    html = client.get("/").get_data(as_text=True)
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in html
    assert '<html lang="en">' in html
    css = (STATIC / "app.css").read_text()
    assert "@media (min-width: 960px)" in css  # one column below, two above


def test_the_rule_sets_are_listed_with_mcr_first_choice(client):
    from scorer.rules import RULE_SETS

    html = client.get("/").get_data(as_text=True)
    for name, rule_set in RULE_SETS.items():
        assert f'<option value="{name}"' in html and rule_set.title in html
    assert '<option value="mcr" selected>' in html


@pytest.mark.parametrize("name, mimetype", [("app.js", "text/javascript"), ("tiles.js", "text/javascript"),
                                            ("groups.js", "text/javascript"), ("app.css", "text/css")])
def test_static_files_are_served(client, name, mimetype):
    response = client.get(f"/static/{name}")
    assert response.status_code == 200 and response.mimetype == mimetype
    assert response.data == (STATIC / name).read_bytes()


def test_nothing_comes_from_another_site():
    """Works offline: no CDN, no web fonts, no remote scripts or images."""
    for path in list(STATIC.iterdir()) + list(TEMPLATES.iterdir()):
        text = path.read_text()
        urls = re.findall(r"https?://[^\s\"')]+", text)
        assert urls == [] or all(u == "http://www.w3.org/2000/svg" for u in urls), (path.name, urls)
        assert "@import" not in text and "url(" not in text


def test_the_page_forbids_other_origins(client):
    response = client.get("/")
    csp = response.headers["Content-Security-Policy"]
    assert "default-src 'self'" in csp and "script-src 'self'" in csp
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert "<script>" not in response.get_data(as_text=True)  # no inline script: the CSP allows none


def test_the_js_draws_every_tile_and_asks_the_api():
    tiles = (STATIC / "tiles.js").read_text()
    for glyph in "東南西北中發萬梅蘭菊竹春夏秋冬":
        assert glyph in tiles
    app = (STATIC / "app.js").read_text()
    for path in ("/api/rules", "/api/score", "/api/scan", "/api/waits"):
        assert f'"{path}"' in app


def test_the_js_is_valid(tmp_path):
    """node --check, where node is installed."""
    import shutil
    import subprocess

    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    for name in ("app.js", "tiles.js", "groups.js"):
        result = subprocess.run([node, "--check", str(STATIC / name)], capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
