"""Screenshot the page after a hand entered by hand has been scored (headless chromium).

    python3 -m tests.server.take_screenshot --out docs/screenshot-page.png --width 1280
    python3 -m tests.server.take_screenshot --out /tmp/phone.png --width 375 --photo
    python3 -m tests.server.take_screenshot --out docs/screenshot-page.png --photo --detector --answer 7z

With --photo the page first reads a photo (tests/server/data/hand.jpg, or --photo-file) through the
tests' fake scanner, which answers the test photo's labelled boxes, so the photo with its boxes shows
too. With --detector as well it is read by the shipped detector and grouping (models/*.onnx through
server.scanning.find_scanner), exactly as ``mjscan serve`` reads it: use that once a model worth showing
is in models/. --answer LABEL then clicks the choice so labelled in the page's questions (the winning
tile, say), as a player would, and waits for the score.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from server import create_app
from tests.server.browser import chromium, console_errors, full_page_screenshot, missing, set_viewport
from tests.server.helpers import PHOTO, PHOTO_HAND, FakeScanner, LiveServer

HAND = "123m 5s [4'56m] [7'89m] (7777z) 15f +5s | seat=N"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--notation", default=HAND)
    parser.add_argument("--photo", action="store_true", help="read the test photo first (fake scanner)")
    parser.add_argument("--photo-file", default=str(PHOTO), help="the photo --photo reads (default: the test photo)")
    parser.add_argument("--detector", action="store_true",
                        help="with --photo: read it with the shipped detector (models/), not the fake scanner")
    parser.add_argument("--answer", action="append", default=[], metavar="LABEL",
                        help="with --photo: click the question choice labelled LABEL (repeatable)")
    args = parser.parse_args(argv)
    if args.detector and not args.photo:
        parser.error("--detector reads a photo: add --photo")
    if args.answer and not args.photo:
        parser.error("--answer answers the photo's questions: add --photo")
    reason = missing()
    if reason:
        print(f"no browser: {reason}", file=sys.stderr)
        return 2
    from selenium.webdriver.support.ui import WebDriverWait

    scanner = FakeScanner(PHOTO_HAND, labelled=True) if args.photo else None
    if args.detector:
        from server.scanning import find_scanner

        scanner = find_scanner()
        if scanner is None:
            print("no detector: vision.detector and a models/*.onnx are needed for --detector", file=sys.stderr)
            return 2
    with LiveServer(create_app({"SCANNER": scanner})) as server, chromium(max(args.width, 600), 900) as driver:
        mobile = args.width < 600
        set_viewport(driver, args.width, 900, mobile)
        driver.get(server.url + "/")
        wait = WebDriverWait(driver, 20)
        wait.until(lambda d: d.execute_script("return document.body.dataset.ready") == "true")
        if args.photo:
            driver.find_element("id", "photo-input").send_keys(str(Path(args.photo_file).resolve()))
            # a score, the scorer's error, or the grouping's questions (the detector's first photo loads it)
            WebDriverWait(driver, 120).until(lambda d: d.find_elements("css selector", "#score-total, #score-error")
                                             or d.find_element("id", "photo-error").is_displayed())
            for label in args.answer:
                # a choice's label, without the score the page shows beside it ("7z — 92 points")
                choices = {c.text.split(" \u2014 ")[0].strip(): c
                           for c in driver.find_elements("css selector", "#questions label")}
                if label not in choices:
                    print(f"no question choice labelled {label!r}; the choices: {sorted(choices)}", file=sys.stderr)
                    return 2
                choices[label].click()
                wait.until(lambda d: d.find_elements("css selector", "#score-total"))
        else:
            driver.find_element("id", "notation").send_keys(args.notation)
            wait.until(lambda d: d.find_elements("css selector", "#score-total"))
        driver.execute_script("document.activeElement && document.activeElement.blur()")
        size = full_page_screenshot(driver, args.out, args.width, mobile)
        errors = console_errors(driver)
    print(f"{args.out}: {size[0]} x {size[1]}" + (f"; console errors: {errors}" if errors else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
