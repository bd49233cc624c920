"""The HTML views read in a real browser: headless Chromium loads the conformance report (`authmock matrix
--html`) and the live page of a running `authmock serve`, and these tests read the DOM it built
(`--dump-dom`), not a screenshot. Values a client controls carry markup; in the DOM they must be text.

    AUTHMOCK_BIN=.build/debug/authmock python3 -m pytest -q Tests/browser
"""
import base64
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = os.environ.get("AUTHMOCK_BIN", str(ROOT / ".build" / "debug" / "authmock"))
HOSTILE = "<script>alert(1)</script>"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (Debian package `chromium`; ci/install-deps installs it)"
)


def dump_dom(url):
    """The DOM Chromium built for `url`, after its scripts ran (virtual time lets timers fire)."""
    done = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
         "--user-data-dir=" + str(Path(os.environ.get("TMPDIR", "/tmp")) / f"authmock-chromium-{os.getpid()}"),
         "--virtual-time-budget=3000", "--dump-dom", url],
        capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def text_of(dom):
    """The page's visible text, roughly: tags dropped, entities kept as Chromium serialised them."""
    return re.sub(r"<[^>]+>", " ", dom)


def no_injected_markup(dom):
    assert "<script>alert" not in dom, "a client's <script> became an element"
    assert "<img" not in dom, "a client's <img> became an element"


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """A one-client report site from a real run of two Basic cases by a client that prints markup."""
    work = tmp_path_factory.mktemp("report")
    client = work / "client.py"
    client.write_text(
        "import os, urllib.request, urllib.error\n"
        "print('<img src=x onerror=alert(2)>')\n"
        "request = urllib.request.Request(os.environ['AUTHMOCK_URL'])\n"
        "try:\n    print(urllib.request.urlopen(request).status)\nexcept urllib.error.HTTPError as e:\n    print(e.code); raise SystemExit(1)\n"
    )
    json_report = work / "report.json"
    subprocess.run(
        [BIN, "check", "--suite", str(ROOT / "scenarios" / "conformance"), "--case", "basic.challenge", "--case", "basic.no-challenge",
         "--no-color", "--json", str(json_report), "--", sys.executable, str(client)],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    site = work / "html"
    done = subprocess.run([BIN, "matrix", str(json_report), "--profiles", str(ROOT / "clients"), "--html", str(site)],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return site


def test_the_index_shows_the_matrix_with_a_link_per_cell(report):
    dom = dump_dom((report / "index.html").as_uri())
    assert "basic.challenge" in dom and "basic.no-challenge" in dom
    links = set(re.findall(r'href="(cases/[^"]+\.html)"', dom))
    assert links == {"cases/python3/basic.challenge.html", "cases/python3/basic.no-challenge.html"}, links
    for link in links:
        assert (report / link).is_file(), link
    no_injected_markup(dom)


def test_a_cell_page_shows_the_exchange_and_the_client_output_as_text(report):
    page = next((report / "cases").rglob("basic.challenge.html"))
    dom = dump_dom(page.as_uri())
    text = text_of(dom)
    assert "answers a Basic challenge with credentials" in text        # the case's title
    assert "no-credentials" in text                                    # the journal's first verdict
    assert "&lt;img src=x onerror=alert(2)&gt;" in dom                 # the client's stdout, as text
    no_injected_markup(dom)


@pytest.fixture()
def server():
    process = subprocess.Popen([BIN, "serve", str(ROOT / "scenarios" / "basic.yaml"), "--port", "0"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        info = json.loads(process.stdout.readline())
        yield info
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=15)


def request(url, authorization=None):
    host, port = url.split("//")[1].split("/")[0].split(":")
    with socket.create_connection((host, int(port)), timeout=5) as connection:
        head = f"GET / HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: close\r\n"
        if authorization:
            head += f"Authorization: {authorization}\r\n"
        connection.sendall((head + "\r\n").encode())
        return connection.recv(65536).split(b" ")[1]


def test_the_live_page_shows_the_journal_users_and_facts(server):
    user = server["users"][0]
    assert request(server["url"]) == b"401"
    forged = base64.b64encode(f"{HOSTILE}:x".encode()).decode()
    assert request(server["url"], "Basic " + forged) == b"401"
    assert request(server["url"], "Basic " + base64.b64encode(f"{user['name']}:{user['password']}".encode()).decode()) == b"200"

    dom = dump_dom(server["url"] + "_authmock/")
    text = text_of(dom)
    assert 'data-live="polling"' in dom, "the page's own script ran (its CSP hash matches)"
    # Newest first: the success, then the forged user, then the bare request.
    order = [text.find("basic.ok"), text.find("&lt;script&gt;alert(1)&lt;/script&gt;"), text.find("no-credentials")]
    assert -1 not in order and order == sorted(order), order
    assert user["name"] in text and user["password"] in text           # users and current passwords
    assert server["url"] in text                                       # where it listens
    no_injected_markup(dom)
