"""A real browser for the HTML tests: headless Chromium driven by chromedriver through Selenium (PyPI), so a
test can run the page's script, read the DOM and the console, resize the window, and run axe-core (the
`axe-core-python` package bundles it) for the accessibility check. ci/install-deps installs all three.
"""
import shutil
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")

try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
except ImportError:  # pragma: no cover - ci/install-deps installs it
    webdriver = None

try:
    from axe_core_python.selenium import Axe
except ImportError:  # pragma: no cover
    Axe = None


def _missing():
    if CHROMIUM is None or CHROMEDRIVER is None:
        return "chromium and chromedriver are not installed (Debian: chromium chromium-driver; ci/install-deps)"
    if webdriver is None:
        return "selenium is not installed (pip install selenium; ci/install-deps)"
    return None


class Browser:
    """One headless Chromium; `page(url)` loads a URL and hands back the driver."""

    def __init__(self):
        options = webdriver.ChromeOptions()
        for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                         "--no-first-run", "--window-size=1280,900"):
            options.add_argument(argument)
        options.binary_location = CHROMIUM
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        self.driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
        self.driver.set_page_load_timeout(30)
        self.driver.set_script_timeout(30)

    def open(self, url, width=1280, dark=False):
        """Loads `url` in a viewport `width` CSS pixels wide, in light or dark colour scheme."""
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                    {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": width < 600})
        self.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {
            "features": [{"name": "prefers-color-scheme", "value": "dark" if dark else "light"}]})
        self.console()  # drop what earlier pages logged
        self.driver.get(url)
        return self.driver

    def js(self, script, *args):
        return self.driver.execute_script(script, *args)

    def console(self):
        """The console messages since the last call: [{level, message, source}]."""
        return self.driver.get_log("browser")

    def serious_violations(self):
        """axe-core's violations of impact serious or critical on the loaded page, as `id: help (n nodes)`."""
        if Axe is None:
            pytest.skip("axe-core-python is not installed (pip install axe-core-python; ci/install-deps)")
        result = Axe().run(self.driver)
        return [f"{v['id']}: {v['help']} ({len(v['nodes'])} node(s), e.g. {v['nodes'][0]['html'][:160]})"
                for v in result["violations"] if v.get("impact") in ("serious", "critical")]

    def screenshot(self, path):
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        self.driver.save_screenshot(str(path))

    def quit(self):
        self.driver.quit()


@pytest.fixture(scope="session")
def browser():
    reason = _missing()
    if reason:
        pytest.skip(reason)
    session = Browser()
    try:
        yield session
    finally:
        session.quit()
