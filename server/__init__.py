"""mjscan's server stage: the Flask upload page and the JSON API (``/api/scan``, ``/api/score``).

It converts HTTP requests to the scorer's and vision's types and their results back to the shared JSON
formats; it holds no scoring or vision logic of its own. ``mjscan serve`` runs it (with waitress).

    app = create_app()                                   # the shipped detector, if there is one
    app = create_app({"SCANNER": FixedScanner()})        # any object with scan(image) -> reading
"""

from __future__ import annotations

import logging
from typing import Any, Mapping

from flask import Flask, request
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge

MAX_UPLOAD_BYTES = 20 * 1024 * 1024

log = logging.getLogger(__name__)

_CSP = ("default-src 'self'; img-src 'self' blob: data:; style-src 'self'; script-src 'self'; "
        "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """The web app: ``/`` (the page) and ``/api/...``.

    Config keys beyond Flask's: ``SCANNER`` (the photo reader; default: ``find_scanner()``, None when no
    detector is installed), ``MAX_IMAGE_PIXELS`` (default 50 megapixels). ``MAX_CONTENT_LENGTH``
    defaults to 20 MB."""
    from server import api, pages
    from server.scanning import find_scanner
    from server.uploads import MAX_PIXELS, InMemoryRequest, limit_pixels

    app = Flask(__name__)
    app.request_class = InMemoryRequest
    app.config.update(MAX_CONTENT_LENGTH=MAX_UPLOAD_BYTES, MAX_IMAGE_PIXELS=MAX_PIXELS, JSON_SORT_KEYS=False)
    app.json.sort_keys = False
    if config:
        app.config.update(config)
    if "SCANNER" not in app.config:
        app.config["SCANNER"] = find_scanner()
    limit_pixels(app.config["MAX_IMAGE_PIXELS"])

    app.register_blueprint(api.bp)
    app.register_blueprint(pages.bp)

    @app.after_request
    def _headers(response):
        response.headers.setdefault("Content-Security-Policy", _CSP)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        return response

    @app.errorhandler(HTTPException)
    def _http_error(error: HTTPException):
        if not _wants_json():
            return error
        code = {404: "not_found", 405: "method_not_allowed", 413: "too_large"}.get(
            error.code, (error.name or "error").lower().replace(" ", "_"))
        message = _HTTP_MESSAGES.get(error.code) or error.description or error.name
        if isinstance(error, RequestEntityTooLarge):
            limit = app.config.get("MAX_CONTENT_LENGTH") or MAX_UPLOAD_BYTES
            message = (f"The upload is too large: mjscan takes photos up to {_size(limit)}. Send a smaller copy "
                       "(most phones can share a photo at a reduced size).")
        return api.error_response(code, message, error.code or 500)

    @app.errorhandler(Exception)
    def _internal_error(error: Exception):
        log.exception("mjscan failed on %s %s", request.method, request.path)
        return api.error_response(
            "internal_error", "Something went wrong inside mjscan while answering this request; it has been "
                              "logged. Please try again, or enter the hand by hand.", 500)

    return app


def waitress_options(app: Flask) -> dict[str, Any]:
    """waitress settings for ``app``: request bodies stay in memory up to the upload limit (no temporary
    files), and waitress itself refuses anything a megabyte beyond it (Flask answers JSON 413 in between)."""
    limit = (app.config.get("MAX_CONTENT_LENGTH") or MAX_UPLOAD_BYTES) + 1024 * 1024
    return {"ident": "mjscan", "max_request_body_size": limit, "inbuf_overflow": limit}


_HTTP_MESSAGES = {
    404: "There is no such address in mjscan's API: see GET /api/health and docs/server.md.",
    405: "This address does not take that method: the API reads with GET and scores with POST.",
}


def _wants_json() -> bool:
    return request.path.startswith("/api/") or request.path == "/api"


def _size(n: int) -> str:
    return f"{n / (1024 * 1024):g} MB" if n >= 1024 * 1024 else f"{n / 1024:g} KB" if n >= 1024 else f"{n} bytes"
