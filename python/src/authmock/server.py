"""Run `authmock serve` as a child process and drive it: the fixture's machinery, usable without pytest.

    from authmock.server import start
    with start("scenarios/basic.yaml") as server:     # a shipped scenario, or a path, or a dict
        ...  # a client against server.url with server.users
        assert server.take_request()["verdict"] == "no-credentials"

Standard library only. It follows the CLI contract of authmock's README ("From any language"):

* `authmock serve SCENARIO --port 0` picks a free port, writes a banner to stderr and, once it accepts
  connections, exactly one JSON line to stdout (url, port, users, journal, control, tls, control_token…);
* SIGTERM stops it: it finishes in-flight responses and exits 0;
* `GET {journal}?since=SEQ` returns `{"entries": [...], "evicted": N}`; `POST {control}users/NAME` with
  `{"password": "new"}` changes a password, `POST {control}reset` resets the run.

Control requests carry `Authorization: Bearer <control_token>` when the ready line gives a token, and every
POST has `Content-Type: application/json` (servers that bind off loopback require both).
"""

import base64
import json
import os
import queue
import shutil
import signal
import ssl
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from . import _ensure_executable, bundled_binary, bundled_share

READY_TIMEOUT = float(os.environ.get("AUTHMOCK_READY_TIMEOUT", "30"))
# The server waits up to 10 s for in-flight responses after SIGTERM; give it a little more.
STOP_TIMEOUT = 15.0


class AuthMockError(Exception):
    """The server could not be found, started, asked or stopped; the message says why (with its stderr)."""


class AuthMockServer:
    """One running `authmock serve` process, described by its ready line."""

    def __init__(self, process, info, stderr_lines, scenario_path):
        self.process = process
        self.info = info                      # the whole ready line, as parsed JSON
        self.scenario_path = scenario_path    # the file served (a temporary one for a dict scenario)
        self.url = info["url"]                # e.g. "http://127.0.0.1:40123/" (always ends in "/")
        self.port = info["port"]
        self.scenario = info["scenario"]      # the scenario's `name:`
        # [{"name": ..., "password": ..., "domain": ...?}]; kept current by set_password() and reset().
        self.users = [dict(user) for user in info["users"]]
        self.journal_url = info["journal"]
        self.control_url = info.get("control") or self.url + "_authmock/"
        self.control_token = info.get("control_token")
        # The live page: the journal in a browser, as it grows (open it while a test is paused).
        self.live_url = info.get("live") or self.control_url
        self.tls = info.get("tls")
        # The PEM file clients should trust (HTTPS scenarios only), else None.
        self.ca = self.tls["ca_file"] if self.tls else None
        # Control requests to an HTTPS server trust the same CA as the client under test, and with
        # `client-certificate: required` present a client certificate too (any user's will do).
        self.ssl_context = ssl.create_default_context(cafile=self.ca) if self.ca else None
        if self.tls and self.tls.get("client_certs"):
            _, files = sorted(self.tls["client_certs"].items())[0]
            self.ssl_context.load_cert_chain(files["cert_file"], files["key_file"])
        # With an `oauth:` section: {"token_url": ..., "clients": [{"id", "secret"}], "grants": [...]}, else None.
        self.oauth = info.get("oauth")
        self.token_url = self.oauth["token_url"] if self.oauth else None
        self._stderr_lines = stderr_lines
        self._taken = 0                       # the seq of the last entry take_request() returned or skipped

    # -- what tests use -------------------------------------------------------------------------

    def password(self, name):
        """The current password of `name` (as far as this object changed it); None for a user from an
        htpasswd or htdigest file, whose password the server knows only as a hash."""
        for user in self.users:
            if user["name"] == name:
                return user.get("password")
        raise KeyError(f"no user {name!r} in scenario {self.scenario!r}: {[u['name'] for u in self.users]}")

    def token(self, name):
        """The static Bearer token of `name` (a user's `token:`), or None when the user has none."""
        for user in self.users:
            if user["name"] == name:
                return user.get("token")
        raise KeyError(f"no user {name!r} in scenario {self.scenario!r}: {[u['name'] for u in self.users]}")

    def fetch_token(self, grant_type="client_credentials", client=None, **form):
        """Asks the token endpoint for a token (RFC 6749), authenticated as the scenario's first OAuth client
        (or `client`, an id) by Basic, and returns its JSON answer: `access_token`, `token_type`, `expires_in`,
        and `refresh_token` for the password grant. `form` adds fields: `username=`, `password=`, `scope=`,
        `refresh_token=`. A refusal raises AuthMockError with the endpoint's error."""
        if not self.oauth:
            raise AuthMockError(f"scenario {self.scenario!r} has no oauth: section, so no token endpoint")
        clients = self.oauth["clients"]
        chosen = next((c for c in clients if c["id"] == client), None) if client else clients[0]
        if chosen is None:
            raise AuthMockError(f"no OAuth client {client!r}: {[c['id'] for c in clients]}")
        body = urllib.parse.urlencode({"grant_type": grant_type, **form}).encode()
        request = urllib.request.Request(self.token_url, data=body, method="POST")
        request.add_header("Content-Type", "application/x-www-form-urlencoded")
        secret = urllib.parse.quote_plus(chosen.get("secret") or "")
        basic = f"{urllib.parse.quote_plus(chosen['id'])}:{secret}".encode()
        request.add_header("Authorization", "Basic " + base64.b64encode(basic).decode())
        try:
            with urllib.request.urlopen(request, timeout=10, context=self.ssl_context) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as error:
            raise AuthMockError(f"the token endpoint refused: {error.code} {error.read().decode(errors='replace')}")

    def journal(self, since=0):
        """The journal entries newer than seq `since`, oldest first.

        Every request the server judged is there (`verdict`, `status`, `method`, `credentials`…), and so are
        user changes (`user.password-changed`, no `method`) and, for HTTPS, one entry per TLS connection
        (`tls.ok`, `tls.handshake-failed`…, also without `method`), written when it closes.
        """
        url = self.journal_url + (f"?since={int(since)}" if since else "")
        return self._control("GET", url)["entries"]

    def wait_for_journal(self, predicate, timeout=5.0):
        """Polls the journal until `predicate(entries)` is true; returns the entries."""
        deadline = time.monotonic() + timeout
        while True:
            entries = self.journal()
            if predicate(entries):
                return entries
            if time.monotonic() > deadline:
                raise AuthMockError("the journal never satisfied the condition within "
                                    f"{timeout} s; it holds:\n{json.dumps(entries, indent=2)}")
            time.sleep(0.05)

    def take_request(self, timeout=5.0):
        """The next HTTP request entry of the journal that no earlier call returned, waiting up to
        `timeout` seconds for it. Entries that are not requests (user changes, TLS connections: no
        `method`) are passed over. Raises AuthMockError when none comes."""
        deadline = time.monotonic() + timeout
        while True:
            for entry in self.journal(since=self._taken):
                self._taken = max(self._taken, entry.get("seq", self._taken))
                if entry.get("method"):
                    return entry
            if time.monotonic() > deadline:
                raise AuthMockError(f"no request reached {self.url} within {timeout} s "
                                    f"(after journal seq {self._taken})")
            time.sleep(0.02)

    def set_password(self, name, password):
        """Changes a user's password; the old one is then answered `credential.stale-password`.
        Returns the server's view of the user (`password_changes`, `successes`, `enabled`…)."""
        status = self._control("POST", self._user_url(name), {"password": password})
        for user in self.users:
            if user["name"] == name:
                user["password"] = password
        return status

    def set_enabled(self, name, enabled):
        """Locks (`False`: valid credentials get 403 `credential.locked`) or unlocks a user."""
        return self._control("POST", self._user_url(name), {"enabled": bool(enabled)})

    def reset(self):
        """Clears the journal and nonces, restores the scenario's users and restarts its timeline."""
        self._control("POST", self.control_url + "reset", {})
        self.users = [dict(user) for user in self.info["users"]]
        self._taken = 0

    @property
    def stderr(self):
        """What the server wrote to stderr so far (the banner, log lines)."""
        return "".join(self._stderr_lines)

    def stop(self, timeout=STOP_TIMEOUT):
        """SIGTERM, then wait; kills it after `timeout` seconds (raising AuthMockError). Returns the
        exit status (0 for a clean stop)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
                raise AuthMockError(f"authmock did not stop within {timeout} s of SIGTERM; killed it. "
                                    f"stderr:\n{self.stderr}") from None
        return self.process.returncode

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()

    # -- plumbing ---------------------------------------------------------------------------------

    def _user_url(self, name):
        return self.control_url + "users/" + urllib.parse.quote(name, safe="")

    def _control(self, method, url, body=None):
        headers = {}
        if self.control_token:
            headers["Authorization"] = "Bearer " + self.control_token
        data = None
        if method not in ("GET", "HEAD"):
            headers["Content-Type"] = "application/json"
            data = json.dumps({} if body is None else body).encode()
        request = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            # No proxy from the environment: control requests (and their token) go straight to the server.
            opener = urllib.request.build_opener(urllib.request.ProxyHandler({}),
                                                 urllib.request.HTTPSHandler(context=self.ssl_context))
            with opener.open(request, timeout=10) as response:
                return json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            detail = error.read().decode("utf-8", "replace").strip()
            raise AuthMockError(f"{method} {url}: {error.code} {error.reason}: {detail}") from None
        except urllib.error.URLError as error:
            raise AuthMockError(f"{method} {url}: {error.reason}; server stderr:\n{self.stderr}") from None


def find_binary(binary=None):
    """The binary to run: `binary`, else $AUTHMOCK_BIN, else the one this package carries, else
    `authmock` on PATH. Raises AuthMockError naming what it tried."""
    tried = []
    for label, candidate in (("argument", binary), ("AUTHMOCK_BIN", os.environ.get("AUTHMOCK_BIN"))):
        if candidate:
            path = Path(candidate)
            if path.is_file():
                return path
            raise AuthMockError(f"no authmock binary at {path} (from {label}): build it "
                                "(swift build) or install the authmock wheel")
    bundled = bundled_binary()
    if bundled is not None:
        try:
            _ensure_executable(bundled)
        except OSError:
            pass
        return bundled
    tried.append("the authmock package's _data/bin/authmock (this installation carries none)")
    on_path = shutil.which("authmock")
    if on_path:
        return Path(on_path)
    tried.append("authmock on PATH")
    raise AuthMockError("no authmock binary: tried AUTHMOCK_BIN (unset), " + ", ".join(tried)
                        + ". Install the authmock wheel, or set AUTHMOCK_BIN=/path/to/authmock")


def find_share(binary):
    """Where the shipped scenarios are, in the binary's own order: $AUTHMOCK_SHARE,
    `<binary dir>/../share/authmock`, the source checkout the binary was built in (`.build/<config>/authmock`:
    the directory holding Package.swift and scenarios/conformance); then this package's share/authmock."""
    candidates = [os.environ.get("AUTHMOCK_SHARE")]
    real = Path(binary).resolve()
    candidates.append(real.parent.parent / "share" / "authmock")
    candidates.extend(parent for parent in real.parents
                      if (parent / "Package.swift").is_file() and (parent / "scenarios" / "conformance").is_dir())
    candidates.append(bundled_share())
    for candidate in candidates:
        if candidate and Path(candidate, "scenarios").is_dir():
            return Path(candidate)
    return None


def resolve_scenario(scenario, search_dirs=(), share=None, tmp_dir=None):
    """A scenario file to serve: an absolute path as is; a relative one under the first of `search_dirs`
    that has it, else under `share` (the shipped scenarios: "scenarios/digest.yaml"); a dict written as JSON
    (which is YAML) into a temporary .yaml file."""
    if isinstance(scenario, dict):
        directory = Path(tmp_dir) if tmp_dir else Path(tempfile.mkdtemp(prefix="authmock-"))
        directory.mkdir(parents=True, exist_ok=True)
        name = str(scenario.get("name") or "scenario")
        safe = "".join(c if c.isalnum() or c in "-_." else "-" for c in name)
        handle, path = tempfile.mkstemp(prefix=safe + "-", suffix=".yaml", dir=directory)
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            json.dump(scenario, file, indent=2, ensure_ascii=False)
            file.write("\n")
        return Path(path)
    path = Path(os.fspath(scenario))
    if path.is_absolute():
        return path
    tried = []
    for base in [*search_dirs, share]:
        if base is None:
            continue
        candidate = Path(base) / path
        if candidate.exists():
            return candidate
        tried.append(str(candidate))
    raise AuthMockError(f"no scenario {str(path)!r}: tried " + (", ".join(tried) or "nothing (no search directory)"))


def _drain(stream, sink):
    """Copies a pipe line by line into `sink` (a list or a queue), so the child never blocks writing."""
    for line in iter(stream.readline, ""):
        sink.append(line) if isinstance(sink, list) else sink.put(line)
    if not isinstance(sink, list):
        sink.put(None)  # EOF: the process closed stdout (it exited)


def start(scenario, *extra_args, binary=None, search_dirs=(), tmp_dir=None, ready_timeout=READY_TIMEOUT,
          env=None):
    """Starts `authmock serve SCENARIO --port 0 [extra_args]` and waits for its ready line.

    `scenario` is a path (relative ones are looked up in `search_dirs`, then in the shipped scenarios) or a
    scenario dict. Raises AuthMockError, with the server's stderr, when it exits or says nothing first.
    """
    binary = find_binary(binary)
    share = find_share(binary)
    path = resolve_scenario(scenario, search_dirs=search_dirs, share=share, tmp_dir=tmp_dir)
    # The binary finds its own files (the same order as find_share): a checkout's build keeps its checkout's.
    child_env = dict(os.environ if env is None else env)
    command = [str(binary), "serve", str(path), "--port", "0", *map(str, extra_args)]
    try:
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True, encoding="utf-8", errors="replace",
                                   env=child_env)
    except OSError as error:
        raise AuthMockError(f"cannot run {binary}: {error}") from None
    # One thread per pipe: stdout lines go to a queue we wait on; stderr is kept for error messages.
    stdout_lines = queue.Queue()
    stderr_lines = []
    threads = []
    for stream, sink in ((process.stdout, stdout_lines), (process.stderr, stderr_lines)):
        thread = threading.Thread(target=_drain, args=(stream, sink), daemon=True)
        thread.start()
        threads.append(thread)

    def failure(why):
        if process.poll() is None:
            process.kill()
        process.wait()
        threads[1].join(timeout=2)  # the last lines of stderr
        return AuthMockError(f"authmock serve {path}: {why} (exit status {process.returncode}). "
                             f"stderr:\n{''.join(stderr_lines)}")

    try:
        line = stdout_lines.get(timeout=ready_timeout)
    except queue.Empty:
        raise failure(f"no ready line within {ready_timeout} s") from None
    if line is None:
        raise failure("exited before it was ready")
    try:
        info = json.loads(line)
    except json.JSONDecodeError:
        raise failure(f"the first stdout line is not JSON: {line!r}") from None
    return AuthMockServer(process, info, stderr_lines, path)
