"""The page in a real browser (Debian's headless chromium through selenium): upload a photo, see the
score, change a tile through the palette and see the score change; enter a hand by hand without a detector."""

from __future__ import annotations

import pytest

from scorer import format_hand, parse_hand, score
from server import create_app
from tests.server.browser import chromium, console_errors, missing, set_viewport
from tests.server.helpers import PHOTO, PHOTO_HAND, FakeScanner, LiveServer, labelled_detection

reason = missing()
pytestmark = pytest.mark.skipif(reason is not None, reason=f"no browser: {reason}")


def _total(driver):
    """The total shown, or None while there is none."""
    found = driver.find_elements("css selector", "#score-total")
    return int(found[0].get_attribute("data-total")) if found else None


def _wait(driver, condition, timeout=20):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout).until(condition)


def _unlabelled(driver) -> list[str]:
    """The visible controls (drawn by the page's JS too) that have no accessible name."""
    return driver.execute_script("""
        const out = [];
        for (const el of document.querySelectorAll("input, select, textarea, button")) {
          if (el.type === "hidden" || !(el.offsetWidth || el.offsetHeight || el.getClientRects().length)) continue;
          const named = (el.labels && el.labels.length) || el.getAttribute("aria-label") ||
                        el.getAttribute("aria-labelledby") || el.title ||
                        (el.tagName === "BUTTON" && el.textContent.trim());
          if (!named) out.push(el.outerHTML.slice(0, 120));
        }
        return out;""")


def _ready(driver, url):
    driver.get(url)
    _wait(driver, lambda d: d.execute_script("return document.body.dataset.ready") == "true")


def test_upload_a_photo_see_the_score_change_a_tile_see_it_change():
    scanner = FakeScanner(PHOTO_HAND, labelled=True)
    expected = score(parse_hand(PHOTO_HAND), "mcr").total
    changed_hand = parse_hand("456s 666s 555z 666z 7z 3478f +7z")
    changed = score(changed_hand, "mcr").total
    assert changed != expected
    with LiveServer(create_app({"SCANNER": scanner})) as server, chromium(1280, 1000) as driver:
        _ready(driver, server.url + "/")
        driver.find_element("id", "photo-input").send_keys(str(PHOTO))
        assert _wait(driver, lambda d: _total(d) == expected)
        assert scanner.sizes == [(640, 640)]

        # the photo, every detected tile boxed, coloured by its group in the hand
        canvas = driver.find_element("id", "photo-canvas")
        assert canvas.is_displayed()
        assert driver.execute_script("return [arguments[0].width, arguments[0].height]", canvas) == [640, 640]
        legend = driver.find_element("id", "photo-legend").text
        assert "standing tiles" in legend and "winning tile" in legend and "flowers" in legend
        assert "not in the hand" not in legend
        # a box outline: the standing tiles' blue down the left edge of the 3s box
        x1, y1, x2, y2 = next(t["box"] for t in labelled_detection(640, 640)["tiles"] if t["code"] == "3s")
        pixel = driver.execute_script("return Array.from(arguments[0].getContext('2d')"
                                      ".getImageData(arguments[1], arguments[2], 1, 1).data)",
                                      canvas, round(x1), round((y1 + y2) / 2))
        assert pixel[:3] == [0x1e, 0x88, 0xe5], pixel

        # the hand strip: 13 standing tiles + the winning tile + 4 flowers, as tile pictures
        strip = driver.find_elements("css selector", "#hand-strip button.tile")
        assert len(strip) == 18 and all(t.find_elements("css selector", "svg") for t in strip)
        items = driver.find_element("id", "score-items").text
        assert "Little Three Dragons" in items
        assert driver.find_element("id", "settlement").text

        # change the 3s to a 6s through the palette
        driver.find_element("css selector", '#hand-strip button.tile[data-code="3s"]').click()
        _wait(driver, lambda d: d.find_element("id", "tile-dialog").get_attribute("open") is not None)
        driver.find_element("css selector", '#palette button[data-code="6s"]').click()
        assert _wait(driver, lambda d: _total(d) == changed)
        assert driver.find_element("id", "notation").get_attribute("value") == format_hand(changed_hand)
        assert len(driver.find_elements("css selector", '#hand-strip button.tile[data-code="6s"]')) == 4
        assert scanner.sizes == [(640, 640)]  # re-scored through /api/score: the photo was not sent again
        assert console_errors(driver) == []


class _AdvisingScanner(FakeScanner):
    """A FakeScanner whose reading says how the photo falls short (``photo_advice``, vision.photo_advice)."""

    advice: list = []

    def scan(self, image):
        return {**super().scan(image), "photo_advice": list(self.advice)}


def test_the_page_says_how_to_take_a_better_photo_where_the_photo_falls_short():
    """The photo's advice (small, blurred or dark tiles, a tile cut off) is shown under the photo; a photo with none
    shows none, and the score is given either way."""
    scanner = _AdvisingScanner(PHOTO_HAND, labelled=True)
    blurred = "The tiles look blurred: hold the phone still and let it focus on the tiles."
    scanner.advice = [{"kind": "blurred", "measured": 1.4, "limit": 2.0, "message": blurred},
                      {"kind": "cut_off", "measured": 1, "limit": 0, "message": "1 tile touches the photo's edge."}]
    expected = score(parse_hand(PHOTO_HAND), "mcr").total
    with LiveServer(create_app({"SCANNER": scanner})) as server, chromium(1280, 1000) as driver:
        _ready(driver, server.url + "/")
        driver.find_element("id", "photo-input").send_keys(str(PHOTO))
        assert _wait(driver, lambda d: _total(d) == expected)
        box = driver.find_element("id", "photo-advice")
        assert box.is_displayed() and box.text.startswith("A second photo would be read more surely:")
        items = box.find_elements("css selector", "li")
        assert [li.text for li in items] == [blurred, "1 tile touches the photo's edge."]
        assert [li.get_attribute("data-kind") for li in items] == ["blurred", "cut_off"]
        scanner.advice = []
        driver.find_element("id", "photo-input").send_keys(str(PHOTO))
        assert _wait(driver, lambda d: not d.find_element("id", "photo-advice").is_displayed())
        assert _total(driver) == expected and len(scanner.sizes) == 2
        assert console_errors(driver) == []


def test_manual_entry_without_a_detector():
    with LiveServer(create_app({"SCANNER": None})) as server, chromium(600, 900) as driver:
        set_viewport(driver, 375, 800, mobile=True)
        _ready(driver, server.url + "/")
        assert "Photo reading is not available yet" in driver.find_element("id", "no-detector").text
        assert not driver.find_elements("id", "photo-input")

        notation = driver.find_element("id", "notation")
        notation.send_keys("123m 456m 789m 234p 5s +5s")
        assert _wait(driver, lambda d: _total(d) == 21)
        # the context: self-drawn re-scores at once
        driver.find_element("id", "ctx-self_drawn").click()
        assert _wait(driver, lambda d: _total(d) == 23)
        assert notation.get_attribute("value") == "123456789m 234p 5s +5s | self_drawn"

        # no winning tile: 13 tiles, the waits are shown
        from selenium.webdriver.support.ui import Select

        Select(driver.find_element("id", "winning-select")).select_by_value("")
        driver.find_element("css selector", '#hand-strip button.tile[data-code="5s"]').click()
        driver.find_element("xpath", "//dialog[@id='tile-dialog']//button[text()='Remove this tile']").click()
        _wait(driver, lambda d: d.find_elements("css selector", "#wait-tiles .wait"))
        waits = [w.get_attribute("data-code") for w in driver.find_elements("css selector", "#wait-tiles .wait")]
        assert waits == ["5s"]

        # another rule set brings its own context keys, generated from /api/rules
        Select(driver.find_element("id", "rules-select")).select_by_value("jmja1967")
        _wait(driver, lambda d: d.find_elements("id", "ctx-jmja1967_false_calls"))
        assert driver.find_element("id", "ctx-jmja1967_false_calls").get_attribute("type") == "number"
        assert driver.find_element("id", "ctx-jmja1967_rounding").tag_name == "select"
        assert _unlabelled(driver) == []

        # a hand with melds (sideways tiles, a concealed kong) and flowers fits the phone's width too
        driver.find_element("id", "example").click()
        _wait(driver, lambda d: len(d.find_elements("css selector", "#hand-strip .group.meld")) == 3)
        assert driver.execute_script("return document.documentElement.scrollWidth") <= 375

        # an impossible hand: the player's words, not a status code
        notation.clear()
        notation.send_keys("123m 5x")
        error = _wait(driver, lambda d: d.find_element("id", "notation-error").text)
        assert "Could not read" in error
        # nothing is wider than the phone's screen
        assert driver.execute_script("return document.documentElement.scrollWidth") <= 375
        assert console_errors(driver) == []


def test_questions_melds_and_the_palette():
    from selenium.webdriver.support.ui import Select

    from scorer.codec import hand_to_dict

    example = "123m 5s [4'56m] [7'89m] (7777z) 15f +5s"
    question = {"id": "which", "text": "Which hand is on the table?",
                "choices": ["the one read", {"label": "the example hand", "hand": hand_to_dict(parse_hand(example))}]}
    scanner = FakeScanner("123m 456m 789m 234p 5s +5s | self_drawn", questions=[question])
    with LiveServer(create_app({"SCANNER": scanner})) as server, chromium(1280, 1000) as driver:
        _ready(driver, server.url + "/")
        driver.find_element("id", "photo-input").send_keys(str(PHOTO))
        assert _wait(driver, lambda d: _total(d) == 23)
        assert "Which hand is on the table?" in driver.find_element("id", "questions").text

        # the answer carries a hand: it replaces the hand; the player's context (self-drawn) stays
        driver.find_element("css selector", "label[for='q-which-1']").click()
        expected = score(parse_hand(example + " | self_drawn"), "mcr").total
        assert _wait(driver, lambda d: _total(d) == expected)
        groups = driver.find_elements("css selector", "#hand-strip .group.meld")
        assert len(groups) == 3
        assert len(groups[2].find_elements("css selector", 'button[data-code="back"]')) == 2  # concealed kong
        assert len(groups[0].find_elements("css selector", "button.sideways")) == 1  # the claimed 4m
        assert groups[0].find_elements("css selector", "button.tile")[0].get_attribute("data-code") == "4m"

        # a meld: the first chow claimed from the left becomes a pung of 4m claimed from across
        groups[0].find_elements("css selector", "button.tile")[1].click()
        Select(driver.find_element("id", "meld-kind")).select_by_value("pung")
        Select(driver.find_element("id", "meld-from")).select_by_value("across")
        assert _unlabelled(driver) == []  # the meld dialog's controls and the palette too
        driver.find_element("id", "dialog-close").click()
        tiles = driver.find_elements("css selector", "#hand-strip .group.meld")[0].find_elements(
            "css selector", "button.tile")
        assert [t.get_attribute("data-code") for t in tiles] == ["4m", "4m", "4m"]
        assert [("sideways" in t.get_attribute("class")) for t in tiles] == [False, True, False]
        assert _wait(driver, lambda d: "[44'4m]" in d.find_element("id", "notation").get_attribute("value"))

        # add a meld: 18 tiles is a wrong count, in the player's words
        driver.find_element("id", "add-meld").click()
        Select(driver.find_element("id", "new-meld-kind")).select_by_value("pung")
        driver.find_element("css selector", '#palette button[data-code="9p"]').click()
        error = _wait(driver, lambda d: d.find_elements("id", "score-error") and d.find_element("id", "score-error").text)
        assert "Wrong tile count" in error and "Remove 3" in error
        # make it a concealed kong, then remove it
        driver.find_elements("css selector", "#hand-strip .group.meld")[3].find_element("css selector", "button").click()
        Select(driver.find_element("id", "meld-kind")).select_by_value("kong")
        driver.find_element("id", "meld-concealed").click()
        last = driver.find_elements("css selector", "#hand-strip .group.meld")[3]
        assert [t.get_attribute("data-code") for t in last.find_elements("css selector", "button.tile")] == \
            ["back", "9p", "9p", "back"]
        driver.find_element("xpath", "//dialog[@id='tile-dialog']//button[text()='Remove this meld']").click()
        assert len(driver.find_elements("css selector", "#hand-strip .group.meld")) == 3

        # remove a standing tile, then add it back through "Add tile" (it becomes the winning tile: the 14th)
        driver.find_element("css selector", '#hand-strip .group.winning button.tile').click()
        driver.find_element("xpath", "//dialog[@id='tile-dialog']//button[text()='Remove this tile']").click()
        assert _wait(driver, lambda d: d.find_elements("css selector", "#wait-tiles .wait"))
        driver.find_element("id", "add-tile").click()
        driver.find_element("css selector", '#palette button[data-code="5s"]').click()
        driver.find_element("id", "dialog-close").click()
        assert driver.find_element("id", "winning-select").get_attribute("value") == "5s"
        final = parse_hand("123m 5s [44'4m] [7'89m] (7777z) 15f +5s | self_drawn")
        assert _wait(driver, lambda d: _total(d) == score(final, "mcr").total)
        assert driver.find_element("id", "notation").get_attribute("value") == format_hand(final)
        assert console_errors(driver) == []


def test_answers_to_two_questions_add_up_and_going_back_restores_the_hand(tmp_path):
    """The real grouping's questions (tests/server/test_answer.py's photo: a misread 9s, whose choices carry
    whole hands, and an unsure 7f, whose choices are labels): each answer goes to /api/answer with the others,
    so the flower answered first survives the tile answered next, and going back to "7f" puts the 7f back."""
    from server.scanning import VisionScanner
    from tests.server.test_answer import _two_questions
    from vision.grouping import group

    detections, flower = _two_questions()
    scanner = VisionScanner(tmp_path / "detector.onnx")
    scanner._detect, scanner._group = (lambda image: detections), group  # the adapter's path, no model

    def notation(d):
        return d.find_element("id", "notation").get_attribute("value")

    with LiveServer(create_app({"SCANNER": scanner})) as server, chromium(1280, 1000) as driver:
        _ready(driver, server.url + "/")
        driver.find_element("id", "photo-input").send_keys(str(PHOTO))
        _wait(driver, lambda d: "27f" in notation(d) and d.find_elements("css selector", "#questions fieldset"))
        assert len(driver.find_elements("css selector", "#questions fieldset")) == 2
        driver.find_element("css selector", f"label[for='q-{flower}-1']").click()  # 4f
        _wait(driver, lambda d: "24f" in notation(d))
        driver.find_element("css selector", "label[for='q-tile-reading-1']").click()  # 1z read as 6s
        both = format_hand(parse_hand("123m 456p 678s 2z [5'55s] 24f +2z"))  # both answers hold
        assert _wait(driver, lambda d: notation(d) == both)
        driver.find_element("css selector", f"label[for='q-{flower}-0']").click()  # back to 7f, as read
        expected = format_hand(parse_hand("123m 456p 678s 2z [5'55s] 27f +2z"))
        assert _wait(driver, lambda d: notation(d) == expected)
        assert driver.find_element("id", "questions-note").text == ""
        assert console_errors(driver) == []


def test_a_question_no_answer_to_which_changes_the_score_says_so(tmp_path):
    """The page shows, under each question, whether its answer can change the score under the rules chosen (the
    server weighs them, vision.question_stakes), and asks again when the rules change: under MCR both of the
    photo's questions change the score; under the classical rules the misread 9s's two readings pay alike."""
    from selenium.webdriver.support.ui import Select

    from scorer.rules import get_rule_set
    from server.scanning import VisionScanner
    from tests.server.test_answer import _two_questions
    from vision.grouping import group

    detections, flower = _two_questions()
    scanner = VisionScanner(tmp_path / "detector.onnx")
    scanner._detect, scanner._group = (lambda image: detections), group  # the adapter's path, no model

    def hints(d):
        return {e.find_element("css selector", "input").get_attribute("name"): e.find_element(
                    "css selector", ".settled").text for e in d.find_elements("css selector", "#questions fieldset")}

    with LiveServer(create_app({"SCANNER": scanner})) as server, chromium(1280, 1000) as driver:
        _ready(driver, server.url + "/")
        driver.find_element("id", "photo-input").send_keys(str(PHOTO))
        _wait(driver, lambda d: len(d.find_elements("css selector", "#questions fieldset")) == 2)
        assert hints(driver) == {"q-tile-reading": "", f"q-{flower}": ""}
        Select(driver.find_element("id", "rules-select")).select_by_value("classical")
        title = get_rule_set("classical").title
        assert _wait(driver, lambda d: hints(d)["q-tile-reading"] ==
                     f"No answer to this changes the score under {title}: you may leave it.")
        assert hints(driver)[f"q-{flower}"] == ""
        # each choice whose hand is a valid win says what it scores under the rules chosen
        labels = [driver.find_element("css selector", f"label[for='q-tile-reading-{n}']").text for n in (0, 1)]
        total = score(group(detections).answer({"tile-reading": "1"})[0], "classical").total
        assert labels == [f"1z read as 9s \u2014 {total} points", f"1z read as 6s \u2014 {total} points"]
        Select(driver.find_element("id", "rules-select")).select_by_value("mcr")
        assert _wait(driver, lambda d: hints(d) == {"q-tile-reading": "", f"q-{flower}": ""})
        # under MCR the 9s read as 6s leaves the hand under 8 points: no score to show
        assert _wait(driver, lambda d: d.find_element("css selector", "label[for='q-tile-reading-1']").text ==
                     "1z read as 6s")
        assert console_errors(driver) == []


# app.js's box colours (GROUP_COLOURS, MELD_COLOURS)
COLOURS = {"concealed": (0x1e, 0x88, 0xe5), "winning": (0xf9, 0xa8, 0x25), "flowers": (0xd8, 0x1b, 0x60),
           "unmatched": (0x9e, 0x9e, 0x9e), "meld:0": (0x43, 0xa0, 0x47), "meld:1": (0x8e, 0x24, 0xaa),
           "meld:2": (0x00, 0x89, 0x7b)}


def _nearest(pixel) -> str:
    """The group whose colour a canvas pixel shows (box edges at fractional pixels are blended a little)."""
    name, colour = min(COLOURS.items(), key=lambda item: sum((a - b) ** 2 for a, b in zip(item[1], pixel)))
    assert sum((a - b) ** 2 for a, b in zip(colour, pixel)) < 40 ** 2, (pixel, name)
    return name


def test_the_photos_boxes_take_the_groupings_groups():
    """The boxes are coloured by the groups the grouping step tagged (detection ``group``), not by codes:
    a box the grouping left out is grey even where its code would fit a meld, and the meld's own boxes keep
    the meld's colour; the legend names the groups as read."""
    from PIL import Image

    from server.scanning import FixedScanner

    hand = "123m 5s [4'56m] [77'7z] (6666z) 15f +5s"
    reading = FixedScanner(hand).scan(Image.new("RGB", (640, 640)))
    stray = {"code": "7z", "box": [4.0, 4.0, 34.0, 44.0], "confidence": 0.31, "sideways": False}  # no group
    reading["detection"]["tiles"].insert(0, stray)
    scanner = FakeScanner(hand)
    scanner.answer = reading
    with LiveServer(create_app({"SCANNER": scanner})) as server, chromium(1280, 1000) as driver:
        _ready(driver, server.url + "/")
        driver.find_element("id", "photo-input").send_keys(str(PHOTO))
        _wait(driver, lambda d: _total(d) is not None or d.find_elements("id", "score-error"))
        canvas = driver.find_element("id", "photo-canvas")

        def colour_at(box):
            x1, y1, x2, y2 = box
            pixel = driver.execute_script("return Array.from(arguments[0].getContext('2d')"
                                          ".getImageData(arguments[1], arguments[2], 1, 1).data).slice(0, 3)",
                                          canvas, round(x1), round((y1 + y2) / 2))
            return _nearest(pixel)

        _wait(driver, lambda d: d.find_element("id", "photo-legend").text)
        tiles = reading["detection"]["tiles"]
        assert colour_at(stray["box"]) == "unmatched"  # grey: not in the hand
        pung = [t for t in tiles if t.get("group") == "meld:1"]
        assert [t["code"] for t in pung] == ["7z"] * 3
        for tile in pung:
            assert colour_at(tile["box"]) == "meld:1", tile  # the second meld's purple
        assert colour_at(next(t for t in tiles if t.get("group") == "winning")["box"]) == "winning"
        legend = driver.find_element("id", "photo-legend").text
        for name in ("standing tiles", "winning tile", "meld 1", "meld 2", "meld 3", "flowers", "not in the hand"):
            assert name in legend, legend

        # an edit changes the hand, not what the photo was read as: the boxes keep their groups
        driver.find_element("css selector", '#hand-strip .group.standing button.tile[data-code="1m"]').click()
        _wait(driver, lambda d: d.find_element("id", "tile-dialog").get_attribute("open") is not None)
        driver.find_element("css selector", '#palette button[data-code="9p"]').click()
        _wait(driver, lambda d: "9p" in d.find_element("id", "notation").get_attribute("value"))
        for tile in pung:
            assert colour_at(tile["box"]) == "meld:1", tile
        assert console_errors(driver) == []


class _SlowScanner(FakeScanner):
    """Takes its time, so the page's progress indicator can be seen."""

    def scan(self, image):
        import time

        time.sleep(1.5)
        return super().scan(image)


def test_a_photo_dropped_on_a_phone_sized_page():
    """Drag and drop, the progress indicator while it reads, a phone's 375 pixels; a reading without a
    hand starts the hand from the tiles the grouping used (its winning tile included, a stray box left out)."""
    import base64

    from tests.server.helpers import labelled_detection

    detection = labelled_detection(640, 640)
    for tile in detection["tiles"]:
        tile["group"] = "flowers" if tile["code"].endswith("f") else "concealed"
    next(t for t in detection["tiles"] if t["code"] == "7z")["group"] = "winning"
    detection["tiles"].append({"code": "9p", "box": [2.0, 2.0, 30.0, 40.0], "confidence": 0.3, "sideways": False})
    question = {"id": "winning-tile", "text": "Which tile was the winning tile?", "choices": ["7z", "3s"]}
    scanner = _SlowScanner(PHOTO_HAND)
    scanner.answer = {"detection": detection, "hand": None, "questions": [question]}
    expected = score(parse_hand(PHOTO_HAND), "mcr").total
    with LiveServer(create_app({"SCANNER": scanner})) as server, chromium(600, 900) as driver:
        set_viewport(driver, 375, 800, mobile=True)
        _ready(driver, server.url + "/")
        driver.execute_script("""
            const bytes = Uint8Array.from(atob(arguments[0]), (c) => c.charCodeAt(0));
            const file = new File([bytes], "hand.jpg", { type: "image/jpeg" });
            const data = new DataTransfer();
            data.items.add(file);
            const zone = document.getElementById("drop-zone");
            for (const type of ["dragenter", "dragover", "drop"])
              zone.dispatchEvent(new DragEvent(type, { dataTransfer: data, bubbles: true, cancelable: true }));
        """, base64.b64encode(PHOTO.read_bytes()).decode())
        progress = driver.find_element("id", "progress")
        assert _wait(driver, lambda d: progress.is_displayed() and "Reading the tiles" in progress.text)
        assert _wait(driver, lambda d: _total(d) == expected)
        assert not progress.is_displayed()
        assert scanner.sizes == [(640, 640)]
        assert driver.find_element("id", "notation").get_attribute("value") == format_hand(parse_hand(PHOTO_HAND))
        assert "Which tile was the winning tile?" in driver.find_element("id", "questions").text
        assert "not in the hand" in driver.find_element("id", "photo-legend").text
        # nothing is wider than the phone's screen, the photo included
        assert driver.execute_script("return document.documentElement.scrollWidth") <= 375
        assert driver.find_element("id", "photo-canvas").size["width"] <= 375
        assert console_errors(driver) == []


def test_the_screenshot_script_works(tmp_path):
    """tests/server/take_screenshot.py, as docs/server.md runs it (here at a phone's width, with the photo)."""
    from PIL import Image

    from tests.server import take_screenshot

    out = tmp_path / "page.png"
    assert take_screenshot.main(["--out", str(out), "--width", "375", "--photo"]) == 0
    with Image.open(out) as shot:
        assert shot.format == "PNG" and shot.width == 375 and shot.height > 800
    with pytest.raises(SystemExit):
        take_screenshot.main(["--out", str(out), "--detector"])  # --detector needs --photo
    with pytest.raises(SystemExit):
        take_screenshot.main(["--out", str(out), "--answer", "7z"])  # so does --answer


def test_a_newcomer_reads_a_real_photo_with_the_shipped_model():
    """What the README promises, end to end with the shipped detector and grouping (no fake): upload a real
    phone photo, answer the page's question (no tile lies apart, so which was the winning tile), get the
    true hand's score, then fix a tile through the palette and see the score follow."""
    from server.scanning import MODELS_DIR, find_scanner

    scanner = find_scanner()
    if scanner is None or not (MODELS_DIR / "detector.onnx").is_file():
        pytest.skip("no shipped detector in models/")
    expected = score(parse_hand(PHOTO_HAND), "mcr").total
    changed = score(parse_hand("456s 666s 555z 666z 7z 3478f +7z"), "mcr").total
    with LiveServer(create_app({"SCANNER": scanner})) as server, chromium(1280, 1000) as driver:
        _ready(driver, server.url + "/")
        driver.find_element("id", "photo-input").send_keys(str(PHOTO))
        # the first photo loads the models
        question = _wait(driver, lambda d: "winning tile" in d.find_element("id", "questions").text, timeout=120)
        assert question
        # each choice's label, without the score shown beside it ("7z — 92 points")
        choices = {label.text.split(" \u2014 ")[0].strip(): label for label in
                   driver.find_elements("css selector", "#questions label")}
        assert "7z" in choices, sorted(choices)
        assert choices["7z"].text == f"7z \u2014 {expected} points"  # the true hand's score, before it is chosen
        assert "a question open" in driver.find_element("id", "photo-note").text
        # the score says why there is none yet: the question, not a tile to remove
        assert _wait(driver, lambda d: d.find_elements("id", "score-open-question"))
        assert "Questions about the photo" in driver.find_element("id", "score-open-question").text
        choices["7z"].click()
        assert _wait(driver, lambda d: _total(d) == expected)
        assert not driver.find_elements("id", "score-open-question")
        assert driver.find_element("id", "photo-note").text == ""  # the answer completed the hand
        assert driver.find_element("id", "notation").get_attribute("value").split(" |")[0] == \
            format_hand(parse_hand(PHOTO_HAND)).split(" |")[0]
        driver.find_element("css selector", '#hand-strip button.tile[data-code="3s"]').click()
        _wait(driver, lambda d: d.find_element("id", "tile-dialog").get_attribute("open") is not None)
        driver.find_element("css selector", '#palette button[data-code="6s"]').click()
        assert _wait(driver, lambda d: _total(d) == changed)
        assert console_errors(driver) == []
