"""Opens a page in Debian's headless Chromium through chromedriver (selenium), the way the
machine's probe does: no sandbox (root), no GPU, no background networking, a fresh profile."""

from __future__ import annotations

import shutil
import tempfile

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


def render(url: str, screenshot: str) -> dict:
    """Loads `url`, saves a screenshot, and returns {"images": [(src-prefix, complete, width, alt)],
    "console": [(level, message)], "title": str, "height": int}."""
    profile = tempfile.mkdtemp(prefix="allocstress-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", f"--user-data-dir={profile}", "--window-size=1280,2000"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        driver.set_page_load_timeout(60)
        driver.get(url)
        images = driver.execute_script(
            "return Array.from(document.images).map(i => [i.src.slice(0, 30), i.complete, i.naturalWidth, i.alt]);")
        height = driver.execute_script("return document.body.scrollHeight;")
        driver.save_screenshot(screenshot)
        console = [(e["level"], e["message"]) for e in driver.get_log("browser")]
        return {"images": images, "console": console, "title": driver.title, "height": height}
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)  # the profile is Chromium's scratch: every run used to leave one in /tmp
