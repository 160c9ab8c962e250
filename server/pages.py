"""The upload page: one server-rendered HTML page; our own JS (static/app.js) does the rest through the API."""

from __future__ import annotations

from flask import Blueprint, current_app, render_template

from scorer.rules import RULE_SETS
from server.api import DEFAULT_RULES, version

bp = Blueprint("pages", __name__)


@bp.get("/")
def index():
    limit = current_app.config.get("MAX_CONTENT_LENGTH") or 0
    return render_template(
        "index.html",
        detector=current_app.config["SCANNER"] is not None,
        rule_sets=[(name, getattr(rule_set, "title", name)) for name, rule_set in RULE_SETS.items()],
        default_rules=DEFAULT_RULES,
        max_upload_mb=round(limit / (1024 * 1024)) if limit else None,
        max_upload_bytes=limit,
        max_megapixels=round(current_app.config["MAX_IMAGE_PIXELS"] / 1e6),
        version=version(),
    )
