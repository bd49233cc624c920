"""`serve`'s live page (`GET /_authmock/`) driven in headless Chromium (the `browser` fixture of conftest.py):
where it is announced, what it shows before the first request, what it does when the server stops, its
filter, pause and clear, its cursor and its cap, dark mode, the numbering of the client's connections, and
axe-core's verdict. With `AUTHMOCK_SCREENSHOTS=DIR` it also saves live-empty.png, live-entries.png and
live-stopped.png there (docs/screenshots/ holds the committed ones).

    AUTHMOCK_BIN=.build/debug/authmock python3 -m pytest -q -p no:cacheprovider Tests/browser
"""
import base64
import json
import os
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = os.environ.get("AUTHMOCK_BIN", str(ROOT / ".build" / "debug" / "authmock"))
STOPPED = "The server stopped answering \u2014 retrying in "


class Serve:
    """`authmock serve scenarios/basic.yaml`: its ready line, its banner, and a way to stop it."""

    def __init__(self, port=0):
        self.banner_file = tempfile.TemporaryFile(mode="w+")
        self.process = subprocess.Popen([BIN, "serve", str(ROOT / "scenarios" / "basic.yaml"), "--port", str(port)],
                                        stdout=subprocess.PIPE, stderr=self.banner_file, text=True)
        self.ready = json.loads(self.process.stdout.readline())
        self.url = self.ready["url"]
        self.live = self.url + "_authmock/"

    def banner(self):
        self.banner_file.seek(0)
        return self.banner_file.read()

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(timeout=15)

    def request(self, user=None, password=None):
        """One GET / on a connection of its own; the status code."""
        host, port = self.url.split("//")[1].split("/")[0].split(":")
        head = f"GET / HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: close\r\n"
        if user is not None:
            head += "Authorization: Basic " + base64.b64encode(f"{user}:{password}".encode()).decode() + "\r\n"
        with socket.create_connection((host, int(port)), timeout=5) as connection:
            connection.sendall((head + "\r\n").encode())
            return int(connection.recv(65536).split(b" ")[1])

    def three_exchanges(self):
        """A 401 challenge, refused credentials, and a 200."""
        assert self.request() == 401
        assert self.request("alice", "not-the-password") == 401
        assert self.request("alice", "wonderland") == 200

    def journal(self):
        with urllib.request.urlopen(self.url + "_authmock/journal", timeout=5) as answer:
            return json.load(answer)["entries"]


@pytest.fixture()
def serve():
    server = Serve()
    try:
        yield server
    finally:
        server.stop()


def wait_for(condition, timeout=10, every=0.1):
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s: {condition.__doc__ or condition}")
        time.sleep(every)


def live_state(browser):
    return browser.js("return document.documentElement.dataset.live || ''")


def items(browser):
    """The seq of every entry in the list, top first, and whether it is shown."""
    return browser.js("return Array.from(document.querySelectorAll('#journal > li'))"
                      ".map(function (li) { return [parseInt(li.dataset.seq, 10), !li.hidden]; })")


def refused_fetches(messages):
    return [m for m in messages if m["level"] == "SEVERE" and "ERR_CONNECTION_REFUSED" in m["message"]]


def screenshot(browser, name):
    directory = os.environ.get("AUTHMOCK_SCREENSHOTS")
    if directory:
        browser.screenshot(Path(directory) / name)


def test_the_banner_and_the_ready_line_name_the_live_page(serve):
    assert serve.ready["live"] == serve.url + "_authmock/"
    serve.stop()
    assert f"\n  live page  {serve.live}  " in serve.banner()


def test_an_empty_journal_shows_the_try_commands(browser, serve):
    browser.open(serve.live)
    wait_for(lambda: live_state(browser) == "polling")
    empty = browser.driver.find_element("id", "empty")
    assert empty.is_displayed()
    assert f"curl --basic -u alice:wonderland {serve.url}" in empty.text
    assert browser.js("return document.querySelectorAll('#journal > li').length") == 0
    screenshot(browser, "live-empty.png")
    # The first exchange replaces the hint.
    assert serve.request("alice", "wonderland") == 200
    wait_for(lambda: items(browser) == [[1, True]], timeout=5)
    assert not empty.is_displayed()


def test_a_stopped_server_is_shown_and_retried_with_backoff(browser, serve):
    serve.three_exchanges()
    browser.open(serve.live)
    wait_for(lambda: live_state(browser) == "polling")
    status = browser.driver.find_element("id", "status")
    assert status.text.startswith("Live")
    screenshot(browser, "live-entries.png")
    serve.stop()
    wait_for(lambda: live_state(browser) == "stopped", timeout=5)
    assert status.text.startswith(STOPPED) and status.text.endswith(" s."), status.text
    assert status.is_displayed()
    screenshot(browser, "live-stopped.png")
    browser.console()
    time.sleep(6)
    # Every second that would be 6; backing off (2, 4, 8 s…) it is at most 3.
    refused = refused_fetches(browser.console())
    assert len(refused) <= 3, refused
    assert live_state(browser) == "stopped"
    assert items(browser)[0] == [3, True], "what was shown stays"


def test_the_page_polls_again_when_the_server_is_back(browser, serve):
    browser.open(serve.live)
    wait_for(lambda: live_state(browser) == "polling")
    port = serve.ready["port"]
    serve.stop()
    wait_for(lambda: live_state(browser) == "stopped", timeout=5)
    again = Serve(port=port)
    try:
        wait_for(lambda: live_state(browser) == "polling", timeout=6)
        assert browser.driver.find_element("id", "status").text.startswith("Live")
        assert again.request("alice", "wonderland") == 200
        wait_for(lambda: [1, True] in items(browser), timeout=5)
    finally:
        again.stop()


def test_filter_pause_and_clear_work_from_the_keyboard(browser, serve):
    from selenium.webdriver.common.keys import Keys

    serve.three_exchanges()
    browser.open(serve.live)
    wait_for(lambda: live_state(browser) == "polling")
    assert items(browser) == [[3, True], [2, True], [1, True]]
    driver = browser.driver
    # Each control is labelled, and reached with Tab.
    assert browser.js("return document.getElementById('filter').labels[0].textContent") == "Filter"
    driver.find_element("tag name", "body").click()
    seen = []
    for _ in range(12):
        driver.switch_to.active_element.send_keys(Keys.TAB)
        seen.append(driver.switch_to.active_element.get_attribute("id"))
    assert {"filter", "pause", "clear"} <= set(seen), seen

    search = driver.find_element("id", "filter")
    search.send_keys("basic.ok")
    wait_for(lambda: items(browser) == [[3, True], [2, False], [1, False]])
    assert driver.find_element("id", "shown").text == "1 of 3 shown"
    search.send_keys(Keys.CONTROL, "a")
    search.send_keys(Keys.BACKSPACE)
    wait_for(lambda: items(browser) == [[3, True], [2, True], [1, True]])

    pause = driver.find_element("id", "pause")
    pause.send_keys(Keys.SPACE)
    assert pause.get_attribute("aria-pressed") == "true" and pause.text == "Resume"
    assert live_state(browser) == "paused"
    assert serve.request() == 401
    time.sleep(2.5)
    assert [seq for seq, _ in items(browser)] == [3, 2, 1], "paused: nothing new"
    pause.send_keys(Keys.ENTER)
    assert pause.get_attribute("aria-pressed") == "false"
    wait_for(lambda: [seq for seq, _ in items(browser)] == [4, 3, 2, 1], timeout=5)

    driver.find_element("id", "clear").send_keys(Keys.ENTER)
    assert items(browser) == []
    assert serve.request("alice", "wonderland") == 200
    wait_for(lambda: items(browser) == [[5, True]], timeout=5)


def test_the_after_cursor_and_the_list_cap(browser, serve):
    for _ in range(250):
        serve.request()
    with urllib.request.urlopen(serve.live + "?after=248", timeout=5) as answer:
        fragment = answer.read().decode()
    assert 'id="e250"' in fragment and 'id="e249"' in fragment and 'id="e248"' not in fragment
    assert fragment.index('id="e250"') < fragment.index('id="e249"')
    with urllib.request.urlopen(serve.live + "?since=249", timeout=5) as answer:
        assert 'id="e250"' in answer.read().decode()

    browser.open(serve.live)
    wait_for(lambda: live_state(browser) == "polling")
    shown = [seq for seq, _ in items(browser)]
    assert shown == list(range(250, 50, -1)), "the first page: the newest 200"
    older = browser.driver.find_element("id", "older").text
    assert "50 older ones are in /_authmock/journal" in older, older
    for _ in range(400):
        serve.request()
    wait_for(lambda: items(browser)[0][0] == 650, timeout=10)
    shown = [seq for seq, _ in items(browser)]
    assert shown == list(range(650, 150, -1)), "at most 500 in the list, the newest"


def test_dark_mode_takes_the_stylesheets_dark_colours(browser, serve):
    background = "return getComputedStyle(document.body).backgroundColor"
    browser.open(serve.live, dark=True)
    wait_for(lambda: live_state(browser) == "polling")
    assert browser.js(background) == "rgb(21, 24, 27)"          # --bg in the dark: #15181b
    assert browser.js("return getComputedStyle(document.body).color") == "rgb(230, 233, 236)"
    browser.open(serve.live)
    wait_for(lambda: live_state(browser) == "polling")
    assert browser.js(background) == "rgb(255, 255, 255)"
    assert not [m for m in browser.console() if m["level"] == "SEVERE"], "no CSP refusal, no failed load"


def test_the_first_client_connection_is_number_one_with_the_page_open(browser, serve):
    browser.open(serve.live)
    wait_for(lambda: live_state(browser) == "polling")
    time.sleep(2.5)  # a few polls
    serve.three_exchanges()
    assert [(e["connection"], e["exchange"]) for e in serve.journal()] == [(1, 1), (2, 1), (3, 1)]
    wait_for(lambda: len(items(browser)) == 3, timeout=5)
    assert "connection 1, exchange 1" in browser.driver.find_element("id", "e1").text


def test_axe_finds_no_serious_violation_with_and_without_entries(browser, serve):
    browser.open(serve.live)
    wait_for(lambda: live_state(browser) == "polling")
    assert browser.js("return document.getElementById('filter').labels.length") == 1
    assert browser.serious_violations() == []
    serve.three_exchanges()
    wait_for(lambda: len(items(browser)) == 3, timeout=5)
    assert browser.serious_violations() == []
    browser.open(serve.live, dark=True)
    wait_for(lambda: live_state(browser) == "polling")
    assert browser.serious_violations() == []
