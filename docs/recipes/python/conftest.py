"""A pytest fixture that runs `authmock serve` for the duration of a test.

    AUTHMOCK_BIN=/path/to/authmock python3 -m pytest -q docs/recipes/python

Copy this file into your own test suite (stdlib + pytest only). The fixture relies on the CLI contract
described in docs/recipes/README.md:

* `authmock serve SCENARIO --port 0` picks a free port, prints a banner to stderr and, once it accepts
  connections, exactly one JSON line to stdout (url, port, users, journal, tls…);
* SIGTERM stops it: it finishes in-flight responses and exits 0;
* `GET {url}_authmock/journal` returns `{"entries": [...], "evicted": N}`, and
  `POST {url}_authmock/users/NAME` with `{"password": "new"}` changes a password.

Usage:

    def test_login(authmock):
        server = authmock("scenarios/basic.yaml")     # relative paths are taken from the repo root
        ...
        assert [e["verdict"] for e in server.journal()] == ["no-credentials", "basic.ok"]
"""

import json
import os
import queue
import signal
import ssl
import subprocess
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

# docs/recipes/python/conftest.py -> the repository root. Adjust when you copy this file elsewhere.
REPO_ROOT = Path(__file__).resolve().parents[3]
DEFAULT_BIN = REPO_ROOT / ".build" / "release" / "authmock"

READY_TIMEOUT = float(os.environ.get("AUTHMOCK_READY_TIMEOUT", "30"))
# The server waits up to 10 s for in-flight responses after SIGTERM; give it a little more.
STOP_TIMEOUT = 15.0


class AuthMock:
    """One running `authmock serve` process, described by its ready line."""

    def __init__(self, process, info, stderr_lines):
        self.process = process
        self.info = info                      # the whole ready line, as parsed JSON
        self.url = info["url"]                # e.g. "http://127.0.0.1:40123/" (always ends in "/")
        self.port = info["port"]
        self.scenario = info["scenario"]
        # [{"name": ..., "password": ..., "domain": ...?}]; kept current by set_password().
        self.users = [dict(user) for user in info["users"]]
        self.journal_url = info["journal"]
        tls = info.get("tls")
        self.tls = tls
        # The PEM file clients should trust (HTTPS scenarios only), else None.
        self.ca = tls["ca_file"] if tls else None
        # Control requests to an HTTPS server must trust the same CA as the client under test, and
        # with `client-certificate: required` present a client certificate too (any user's will do).
        self.ssl_context = ssl.create_default_context(cafile=self.ca) if self.ca else None
        if tls and tls.get("client_certs"):
            _, files = sorted(tls["client_certs"].items())[0]
            self.ssl_context.load_cert_chain(files["cert_file"], files["key_file"])
        self._stderr_lines = stderr_lines

    # -- what tests use -------------------------------------------------------------------------

    def password(self, name):
        """The current password of `name` (as far as this fixture changed it); None for a user from an
        htpasswd or htdigest file, whose password the server knows only as a hash."""
        return next(user.get("password") for user in self.users if user["name"] == name)

    def journal(self, since=0):
        """The journal entries newer than seq `since`, oldest first.

        Every request the server judged is there (with `verdict`, `status`, `method`, `credentials`…),
        and so are user changes (`user.password-changed`, no `method`) and, for HTTPS, one entry per TLS
        connection (`tls.ok`, `tls.handshake-failed`…, also without `method`), written when it closes.
        """
        page = self._control("GET", self.journal_url + (f"?since={since}" if since else ""))
        return page["entries"]

    def wait_for_journal(self, predicate, timeout=5.0):
        """Polls the journal until `predicate(entries)` is true; returns the entries.

        Useful for TLS connection entries, which are written when the connection closes, a moment
        after the client has its response.
        """
        deadline = time.monotonic() + timeout
        while True:
            entries = self.journal()
            if predicate(entries):
                return entries
            if time.monotonic() > deadline:
                pytest.fail(f"the journal never satisfied the condition; it holds:\n{json.dumps(entries, indent=2)}")
            time.sleep(0.05)

    def set_password(self, user, password):
        """Changes a user's password; the old one is then answered `credential.stale-password`."""
        status = self._control("POST", self._control_url("users/" + urllib.parse.quote(user, safe="")), {"password": password})
        for entry in self.users:
            if entry["name"] == user:
                entry["password"] = password
        return status  # {"name", "password", "enabled", "removed", "password_changes", "successes"}

    def set_enabled(self, user, enabled):
        """Locks (`False`: valid credentials get 403 `credential.locked`) or unlocks a user."""
        return self._control("POST", self._control_url("users/" + urllib.parse.quote(user, safe="")), {"enabled": enabled})

    def reset(self):
        """Clears the journal and nonces, restores the scenario's users and restarts its timeline."""
        self._control("POST", self._control_url("reset"))
        self.users = [dict(user) for user in self.info["users"]]

    @property
    def stderr(self):
        """What the server wrote to stderr so far (the banner, log lines)."""
        return "".join(self._stderr_lines)

    # -- plumbing ---------------------------------------------------------------------------------

    def _control_url(self, endpoint):
        return self.url + "_authmock/" + endpoint

    def _control(self, method, url, body=None):
        data = json.dumps(body).encode() if body is not None else (b"" if method == "POST" else None)
        request = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10, context=self.ssl_context) as response:
            return json.loads(response.read())

    def stop(self, timeout=STOP_TIMEOUT):
        """SIGTERM, then wait; kills it after `timeout` seconds. Returns the exit status."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
                pytest.fail(f"authmock did not stop within {timeout} s of SIGTERM; killed it. stderr:\n{self.stderr}")
        return self.process.returncode


def _drain(stream, sink):
    """Copies a pipe line by line into `sink` (a list or a queue), so the child never blocks writing."""
    for line in iter(stream.readline, ""):
        sink.append(line) if isinstance(sink, list) else sink.put(line)
    if not isinstance(sink, list):
        sink.put(None)  # EOF: the process closed stdout (it exited)


def start_authmock(scenario, *extra_args, binary=None, ready_timeout=READY_TIMEOUT):
    """Starts `authmock serve SCENARIO --port 0 [extra_args]` and waits for its ready line."""
    binary = Path(binary or os.environ.get("AUTHMOCK_BIN") or DEFAULT_BIN)
    if not binary.exists():
        pytest.fail(f"no authmock binary at {binary}: build it (swift build -c release) or set AUTHMOCK_BIN")
    scenario = Path(scenario)
    if not scenario.is_absolute():
        scenario = REPO_ROOT / scenario

    process = subprocess.Popen(
        [str(binary), "serve", str(scenario), "--port", "0", *extra_args],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, encoding="utf-8",
    )
    # One thread per pipe: stdout lines go to a queue we wait on; stderr is kept for error messages.
    stdout_lines = queue.Queue()
    stderr_lines = []
    for stream, sink in ((process.stdout, stdout_lines), (process.stderr, stderr_lines)):
        threading.Thread(target=_drain, args=(stream, sink), daemon=True).start()

    def failure(why):
        if process.poll() is None:
            process.kill()
        process.wait()
        time.sleep(0.05)  # let the stderr thread catch the last lines
        return f"authmock serve {scenario.name}: {why} (exit status {process.returncode}). stderr:\n{''.join(stderr_lines)}"

    try:
        line = stdout_lines.get(timeout=ready_timeout)
    except queue.Empty:
        pytest.fail(failure(f"no ready line within {ready_timeout} s"))
    if line is None:
        pytest.fail(failure("exited before it was ready"))
    try:
        info = json.loads(line)
    except json.JSONDecodeError:
        pytest.fail(failure(f"the first stdout line is not JSON: {line!r}"))
    return AuthMock(process, info, stderr_lines)


@pytest.fixture
def authmock():
    """A factory: `authmock("scenarios/x.yaml", *extra_serve_args)` starts a server for this test.

    Every server it started is stopped at teardown with SIGTERM, and must exit 0.
    """
    servers = []

    def start(scenario, *extra_args, **kwargs):
        server = start_authmock(scenario, *extra_args, **kwargs)
        servers.append(server)
        return server

    yield start

    failures = []
    for server in servers:
        status = server.stop()
        if status != 0:
            failures.append(f"{server.scenario}: exit status {status}; stderr:\n{server.stderr}")
    assert not failures, "authmock did not stop cleanly:\n" + "\n".join(failures)
