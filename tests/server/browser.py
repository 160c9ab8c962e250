"""Debian's chromium driven by selenium, for the page's browser test and its screenshot.

    with chromium(375, 800) as driver:
        driver.get(url)
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from pathlib import Path
from typing import Iterator

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--force-device-scale-factor=1")


def missing() -> str | None:
    """Why the browser cannot run here, or None when it can."""
    if not CHROMIUM.exists():
        return f"{CHROMIUM} is missing (as root: apt-get install -y chromium chromium-driver; .ci/run does it)"
    if not CHROMEDRIVER.exists():
        return f"{CHROMEDRIVER} is missing (apt-get install -y chromium-driver)"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[test]')"
    return None


@contextlib.contextmanager
def chromium(width: int = 1280, height: int = 900) -> Iterator["object"]:
    """A headless chromium with a new empty profile, its window ``width`` x ``height`` CSS pixels."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="mjscan-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    options.add_argument(f"--window-size={width},{height}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(executable_path=str(CHROMEDRIVER)))
    try:
        driver.set_page_load_timeout(60)
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def set_viewport(driver, width: int, height: int, mobile: bool = False) -> None:
    """Emulate a screen ``width`` x ``height`` CSS pixels (chromium's windows are at least 500 wide)."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})


def console_errors(driver) -> list[str]:
    """The page's console errors so far (uncaught exceptions, failed loads), leaving out the API's 4xx
    answers, which the page expects and shows in words."""
    return [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"
            and "the server responded with a status of 4" not in entry["message"]]


def full_page_screenshot(driver, path: str | Path, width: int, mobile: bool = False) -> tuple[int, int]:
    """A PNG of the whole page at ``width`` CSS pixels, as tall as the page; answers its size."""
    import base64

    set_viewport(driver, width, 800, mobile)
    height = driver.execute_script("return Math.ceil(document.documentElement.scrollHeight)")
    set_viewport(driver, width, height, mobile)
    height = driver.execute_script("return Math.ceil(document.documentElement.scrollHeight)")
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {
        "format": "png", "captureBeyondViewport": True,
        "clip": {"x": 0, "y": 0, "width": width, "height": height, "scale": 1}})
    Path(path).write_bytes(base64.b64decode(shot["data"]))
    return width, height
