"""`authmock serve` answers when it runs as a user without privileges, as the container image runs it
(uid 10001) and as CI runners and laptops do. As root this test drops to nobody with setpriv.

It failed before the listener set TCP_NODELAY as an IPPROTO_TCP option: the SOL_SOCKET option of the same
number is SO_DEBUG, which only root may set, and every accepted connection was closed.

Run alone: AUTHMOCK_BIN=.build/debug/authmock python3 -m pytest -q -p no:cacheprovider Tests/container
"""

import base64
import json
import os
import pathlib
import shutil
import subprocess
import tempfile
import urllib.error
import urllib.request

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = pathlib.Path(os.environ.get("AUTHMOCK_BIN", str(ROOT / ".build" / "debug" / "authmock")))
NOBODY = ["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups"]


def unprivileged(command):
    """COMMAND as it runs without privileges: as is for a user, through setpriv for root."""
    if os.geteuid() != 0:
        return command
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv (util-linux) to drop to nobody")
    return NOBODY + command


def reachable_as_nobody(*paths):
    if os.geteuid() != 0:
        return True
    return all(subprocess.run(NOBODY + ["test", "-r", str(path)]).returncode == 0 for path in paths)


def status(url, authorization=None):
    request = urllib.request.Request(url)
    if authorization:
        request.add_header("Authorization", authorization)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def test_serve_answers_as_an_unprivileged_user():
    if not BIN.exists():
        pytest.fail(f"no authmock binary at {BIN}: build it or set AUTHMOCK_BIN")
    with tempfile.TemporaryDirectory() as scratch:
        binary, scenario = BIN, ROOT / "scenarios" / "basic.yaml"
        if not reachable_as_nobody(binary, scenario):  # a checkout under a private directory
            os.chmod(scratch, 0o755)
            binary = pathlib.Path(shutil.copy(binary, scratch))
            scenario = pathlib.Path(shutil.copy(scenario, scratch))
        server = subprocess.Popen(
            unprivileged([str(binary), "serve", str(scenario), "--port", "0"]),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        try:
            line = server.stdout.readline()
            assert line, f"no ready line; stderr:\n{server.stderr.read() if server.poll() is not None else ''}"
            ready = json.loads(line)
            user = ready["users"][0]
            assert status(ready["url"])[0] == 401
            token = base64.b64encode(f"{user['name']}:{user['password']}".encode()).decode()
            assert status(ready["url"], f"Basic {token}") == (200, f"Hello, {user['name']}!\n")
        finally:
            server.terminate()
            assert server.wait(timeout=15) == 0
