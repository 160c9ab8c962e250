"""Load on `mjscan serve`: N clients at once on loopback, each POSTing /api/scan (a photo) and /api/score.

    python3 bench/serve_load.py                       # 20 clients x 5 rounds, at most 60 s
    python3 bench/serve_load.py --clients 20 --rounds 10 --seconds 120 --photo my.jpg
    python3 bench/serve_load.py --url http://127.0.0.1:8000   # an already running server

Without --url it starts the app with waitress (as `mjscan serve` does, 8 threads) in a child process on a
free loopback port. The photo reader is the shipped detector when there is one (vision/ + models/), else
(or with --fake) server.scanning.FixedScanner, which answers a fixed hand without looking at the photo:
the load is then the HTTP, upload, decode (Pillow, EXIF) and scoring path, and the output says so.
Each round of a client is one /api/scan with the photo and one /api/score with a hand JSON, on one
keep-alive connection per client. Reports p50 / p95 / max latency per route and the error count
(any non-200 answer or failed connection).
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import socket
import sys
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DEFAULT_PHOTO = ROOT / "tests" / "server" / "data" / "hand.jpg"
HAND = {"concealed": ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "2p", "3p", "4p", "5s", "5s"],
        "winning_tile": "5s", "context": {"self_drawn": True}}
BOUNDARY = "mjscan-bench-boundary"


def _serve(port: int, fake: bool, threads: int) -> None:  # the child process
    import logging

    import waitress

    from server import create_app, waitress_options
    from server.scanning import FixedScanner

    logging.getLogger("waitress").setLevel(logging.ERROR)
    config = {"SCANNER": FixedScanner()} if fake else {}
    app = create_app(config)
    waitress.serve(app, host="127.0.0.1", port=port, threads=threads, **waitress_options(app))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_ready(url: str, timeout: float = 30.0) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url + "/api/health", timeout=2) as response:
                return json.load(response)
        except OSError:
            if time.monotonic() > deadline:
                raise SystemExit(f"the server at {url} did not answer /api/health within {timeout:.0f} s")
            time.sleep(0.1)


def _multipart(photo: bytes, name: str, fields: dict[str, str]) -> bytes:
    parts = [f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode()
             for k, v in fields.items()]
    parts.append(f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="photo"; filename="{name}"\r\n'
                 f"Content-Type: application/octet-stream\r\n\r\n".encode() + photo + b"\r\n")
    return b"".join(parts) + f"--{BOUNDARY}--\r\n".encode()


class Client(threading.Thread):
    def __init__(self, url: str, scan_body: bytes, score_body: bytes, rounds: int, deadline: float,
                 start_gate: threading.Barrier):
        super().__init__(daemon=True)
        parsed = urllib.parse.urlsplit(url)
        self.host, self.port = parsed.hostname, parsed.port or 80
        self.scan_body, self.score_body = scan_body, score_body
        self.rounds, self.deadline, self.gate = rounds, deadline, start_gate
        self.samples: list[tuple[str, float, int]] = []  # (route, seconds, status; -1 = connection failed)
        self.errors: list[str] = []

    def _post(self, connection, path: str, body: bytes, kind: str) -> http.client.HTTPConnection:
        started = time.perf_counter()
        try:
            connection.request("POST", path, body, {"Content-Type": kind})
            response = connection.getresponse()
            response.read()
            status = response.status
            if status != 200:
                self.errors.append(f"{path}: HTTP {status}")
        except (OSError, http.client.HTTPException) as error:
            status = -1
            self.errors.append(f"{path}: {type(error).__name__}: {error}")
            connection.close()
            connection = http.client.HTTPConnection(self.host, self.port, timeout=60)
        self.samples.append((path, time.perf_counter() - started, status))
        return connection

    def run(self) -> None:
        connection = http.client.HTTPConnection(self.host, self.port, timeout=60)
        self.gate.wait()
        for _ in range(self.rounds):
            if time.monotonic() > self.deadline:
                break
            connection = self._post(connection, "/api/scan", self.scan_body, f"multipart/form-data; boundary={BOUNDARY}")
            if time.monotonic() > self.deadline:
                break
            connection = self._post(connection, "/api/score", self.score_body, "application/json")
        connection.close()


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0..100), nearest rank."""
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(q / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, default=20, help="clients at once (default 20)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds per client: one scan + one score (default 5)")
    parser.add_argument("--seconds", type=float, default=60.0, help="stop starting requests after this (default 60)")
    parser.add_argument("--photo", type=Path, default=DEFAULT_PHOTO, help="the photo to upload (default: the tests' one)")
    parser.add_argument("--rules", default="mcr")
    parser.add_argument("--url", help="benchmark this running server instead of starting one")
    parser.add_argument("--fake", action="store_true", help="use the fixed stand-in scanner even if a detector exists")
    parser.add_argument("--threads", type=int, default=8, help="waitress threads of the started server (default 8)")
    args = parser.parse_args(argv)

    photo = args.photo.read_bytes()
    scan_body = _multipart(photo, args.photo.name, {"rules": args.rules, "self_drawn": "true"})
    score_body = json.dumps({"rules": args.rules, "hand": HAND}).encode()

    child = None
    if args.url:
        url = args.url.rstrip("/")
    else:
        from server.scanning import find_scanner

        fake = args.fake or find_scanner() is None
        port = _free_port()
        url = f"http://127.0.0.1:{port}"
        child = multiprocessing.get_context("spawn").Process(target=_serve, args=(port, fake, args.threads), daemon=True)
        child.start()
    try:
        health = _wait_ready(url)
        if args.url:
            reader = "the server's own reader" + ("" if health.get("detector") else " (none: /api/scan will answer 503)")
        elif fake:
            reader = ("FAKE scanner (server.scanning.FixedScanner): " +
                      ("forced by --fake" if args.fake else "there is no detector yet") +
                      "; the load is the HTTP, upload, decode and scoring path, not the model")
        else:
            reader = "the shipped detector (vision.detector + models/*.onnx); grouping as vision/ provides it"
        print(f"mjscan {health.get('version')} at {url}; photo reader: {reader}")
        print(f"{args.clients} clients x {args.rounds} rounds (1 scan + 1 score each), at most {args.seconds:g} s; "
              f"photo {args.photo.name} ({len(photo) / 1024:.0f} KB); CPUs here: {os.cpu_count()}")
        # one warm-up request per route, not counted (imports, first decode)
        warm = Client(url, scan_body, score_body, 1, time.monotonic() + 60, threading.Barrier(1))
        warm.run()

        gate = threading.Barrier(args.clients)
        deadline = time.monotonic() + args.seconds
        clients = [Client(url, scan_body, score_body, args.rounds, deadline, gate) for _ in range(args.clients)]
        started = time.perf_counter()
        for c in clients:
            c.start()
        for c in clients:
            c.join(timeout=args.seconds + 120)
        wall = time.perf_counter() - started
    finally:
        if child is not None:
            child.terminate()
            child.join(timeout=10)

    samples = [s for c in clients for s in c.samples]
    errors = [e for c in clients for e in c.errors]
    print(f"{'route':<11} {'requests':>8} {'errors':>6} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8}")
    for route in ("/api/scan", "/api/score"):
        times = [t for r, t, _ in samples if r == route]
        failed = sum(1 for r, _, status in samples if r == route and status != 200)
        if times:
            print(f"{route:<11} {len(times):>8} {failed:>6} {percentile(times, 50) * 1000:>8.1f} "
                  f"{percentile(times, 95) * 1000:>8.1f} {max(times) * 1000:>8.1f}")
    print(f"total: {len(samples)} requests in {wall:.2f} s ({len(samples) / wall:.1f} requests/s), "
          f"{len(errors)} errors")
    for message in sorted(set(errors))[:5]:
        print(f"  error: {message} (x{errors.count(message)})")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
