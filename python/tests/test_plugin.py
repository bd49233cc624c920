"""The authmock_server fixture: lifecycle, dict scenarios, take_request, the control-token contract, and
failures that show the server's diagnostics."""

import base64
import json
import os
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

import authmock
from authmock.server import AuthMockError, find_binary

HERE = Path(__file__).resolve().parent
FAKE = HERE / "fake_authmock.py"
PACKAGE_PARENT = str(Path(authmock.__file__).resolve().parents[1])


def get(url, auth=None):
    request = urllib.request.Request(url)
    if auth:
        request.add_header("Authorization", "Basic " + base64.b64encode(auth.encode()).decode())
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


@pytest.fixture
def inner(pytester, monkeypatch):
    """Runs an inner pytest session (a subprocess) that has this plugin, and only it, as `-p`."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [PACKAGE_PARENT, os.environ.get("PYTHONPATH")])))
    monkeypatch.setenv("AUTHMOCK_BIN", str(find_binary()))

    def run(source, *args):
        pytester.makepyfile(source)
        return pytester.runpytest_subprocess("-p", "authmock.pytest_plugin", "-p", "no:cacheprovider", *args)
    return run


FAKE_SCENARIO = {"version": 1, "name": "fake", "realm": "r", "users": [{"name": "alice", "password": "old"}],
                 "challenges": [{"scheme": "Basic"}]}


def fake_binary(tmp_path, monkeypatch, exit_status=0):
    """An executable that runs fake_authmock.py with this Python; returns the file its requests are logged in."""
    script = tmp_path / "authmock"
    script.write_text(f"#!/bin/sh\nexec {sys.executable} {FAKE} \"$@\"\n")
    script.chmod(0o755)
    log = tmp_path / "control.log"
    monkeypatch.setenv("AUTHMOCK_BIN", str(script))
    monkeypatch.setenv("FAKE_LOG", str(log))
    monkeypatch.setenv("FAKE_EXIT", str(exit_status))
    return log


def test_servers_run_during_the_test_and_stop_with_sigterm_after_it(inner):
    result = inner("""
        servers = []

        def test_start(authmock_server):
            servers.append(authmock_server("scenarios/basic.yaml"))
            servers.append(authmock_server("scenarios/digest.yaml"))
            assert all(server.process.poll() is None for server in servers)
            assert servers[0].port != servers[1].port

        def test_both_stopped_cleanly_at_teardown():
            assert [server.process.returncode for server in servers] == [0, 0]
    """)
    result.assert_outcomes(passed=2)


def test_a_relative_path_is_taken_from_the_rootdir_before_the_shipped_scenarios(inner, pytester):
    (pytester.path / "scenarios").mkdir()
    (pytester.path / "scenarios" / "digest.yaml").write_text(json.dumps(
        {"version": 1, "name": "local-digest", "realm": "r", "users": [{"name": "u", "password": "p"}],
         "challenges": [{"scheme": "Basic"}]}))
    result = inner("""
        from authmock.server import find_binary, find_share

        def test_local(authmock_server):
            assert authmock_server("scenarios/digest.yaml").scenario == "local-digest"

        def test_shipped(authmock_server):
            server = authmock_server("scenarios/basic.yaml")   # not in the rootdir: the shipped one
            assert server.scenario == "basic"
            assert server.scenario_path == find_share(find_binary()) / "scenarios" / "basic.yaml"
    """)
    result.assert_outcomes(passed=2)


def test_a_dict_scenario_is_written_as_json_and_served(authmock_server):
    scenario = {"version": 1, "name": "dict-scenario", "realm": "r",
                "users": [{"name": "u", "password": "p"}], "challenges": [{"scheme": "Basic"}],
                "resources": [{"path": "/", "body": "ok\n"}]}
    server = authmock_server(scenario)
    assert json.loads(server.scenario_path.read_text()) == scenario
    assert server.scenario_path.suffix == ".yaml"
    assert get(server.url, "u:p") == 200 and get(server.url, "u:x") == 401
    assert [server.take_request()["verdict"] for _ in range(2)] == ["basic.ok", "basic.bad-password"]
    assert server.live_url == server.url + "_authmock/" == server.info["live"]


def test_take_request_waits_for_a_request_and_skips_other_entries(authmock_server):
    server = authmock_server("scenarios/basic.yaml")
    server.set_password("alice", "new")  # a journal entry without a method
    threading.Timer(0.3, get, args=(server.url, "alice:new")).start()
    started = time.monotonic()
    entry = server.take_request(timeout=10)
    assert time.monotonic() - started >= 0.25
    assert (entry["method"], entry["verdict"]) == ("GET", "basic.ok")
    with pytest.raises(AuthMockError, match="no request reached"):
        server.take_request(timeout=0.2)
    server.reset()  # the journal starts again: so does take_request
    get(server.url, "alice:wonderland")
    assert server.take_request()["verdict"] == "basic.ok"


def test_the_real_server_off_loopback_takes_the_fixtures_control_requests(authmock_server):
    # Bound to every address, the server refuses control requests without its token (401) and POSTs without
    # a JSON content type (415): the fixture's journal, password change and reset must still go through,
    # and a request without the token must not.
    server = authmock_server("scenarios/basic.yaml", "--host", "0.0.0.0", "--control-token", "fixture-token")
    assert server.control_token == "fixture-token"
    server.set_password("alice", "changed")
    assert get(server.url, "alice:changed") == 200
    server.reset()
    assert [entry["verdict"] for entry in server.journal()] == []
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.build_opener(urllib.request.ProxyHandler({})).open(server.url + "_authmock/journal")
    assert refused.value.code == 401


def test_control_requests_carry_the_token_and_a_json_content_type(authmock_server, tmp_path, monkeypatch):
    log = fake_binary(tmp_path, monkeypatch)
    server = authmock_server(FAKE_SCENARIO)
    assert server.control_token == "t0k3n"
    server.journal()
    server.set_password("alice", "new")
    server.reset()
    requests = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(r["method"], r["path"]) for r in requests] == [
        ("GET", "/_authmock/journal"), ("POST", "/_authmock/users/alice"), ("POST", "/_authmock/reset")]
    assert {r["authorization"] for r in requests} == {"Bearer t0k3n"}
    assert [r["content_type"] for r in requests] == [None, "application/json", "application/json"]
    assert json.loads(requests[1]["body"]) == {"password": "new"}


def test_a_missing_binary_fails_the_test_saying_so(inner, monkeypatch):
    monkeypatch.setenv("AUTHMOCK_BIN", "/nonexistent/authmock")
    result = inner("""
        def test_it(authmock_server):
            authmock_server("scenarios/basic.yaml")
    """)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*no authmock binary at /nonexistent/authmock (from AUTHMOCK_BIN)*"])


def test_an_invalid_scenario_fails_the_test_with_the_servers_diagnostics(inner):
    result = inner("""
        def test_it(authmock_server):
            authmock_server({"version": 1, "name": "bad", "realm": "r",
                             "users": [{"name": "a", "pasword": "x"}], "challenges": [{"scheme": "Basic"}]})
    """)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*exited before it was ready (exit status 2)*",
                                 "*unknown key 'pasword' in a user*"])


def test_a_missing_scenario_file_names_where_it_looked(inner):
    result = inner("""
        def test_it(authmock_server):
            authmock_server("scenarios/no-such.yaml")
    """)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*no scenario 'scenarios/no-such.yaml': tried *"])


def test_a_server_that_does_not_exit_0_on_sigterm_errors_at_teardown(inner, tmp_path, monkeypatch):
    fake_binary(tmp_path, monkeypatch, exit_status=3)
    result = inner(f"""
        def test_it(authmock_server):
            authmock_server({FAKE_SCENARIO!r})
    """)
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*authmock did not stop cleanly*", "*fake: exit status 3*"])


def test_the_console_script_execs_the_bundled_binary(tmp_path):
    # A package whose _data holds a stand-in binary that prints its arguments and AUTHMOCK_SHARE (unset: the
    # binary finds _data/share/authmock beside its bin/ itself, so a checkout's binary keeps its checkout's).
    data = tmp_path / "_data"
    (data / "bin").mkdir(parents=True)
    (data / "share" / "authmock").mkdir(parents=True)
    (data / "bin" / "authmock").write_text('#!/bin/sh\necho "$0|$*|$AUTHMOCK_SHARE"\n')
    (data / "bin" / "authmock").chmod(0o644)  # made executable on the way
    code = ("import sys, pathlib, authmock, authmock._cli as cli;"
            f"authmock.data_dir = lambda: pathlib.Path({str(data)!r});"
            "sys.exit(cli.main(['check', '--client', 'a b']))")
    env = {k: v for k, v in os.environ.items() if k != "AUTHMOCK_SHARE"}
    env["PYTHONPATH"] = PACKAGE_PARENT
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True).stdout
    assert out == f"{data}/bin/authmock|check --client a b|\n"


@pytest.mark.skipif(authmock.bundled_binary() is None, reason="the source tree carries no binary (wheel only)")
def test_the_installed_console_script_runs_the_binary():
    out = subprocess.run([sys.executable, "-m", "authmock", "--version"], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == authmock.__version__


def test_a_bearer_scenario_gives_its_tokens_and_its_token_endpoint(authmock_server):
    server = authmock_server("scenarios/oauth-refresh.yaml")
    assert server.token_url == server.url + "oauth/token"
    assert server.oauth["clients"] == [{"id": "app", "secret": "app-secret"}]
    token = server.fetch_token("password", username="alice", password=server.password("alice"))
    assert token["token_type"] == "Bearer" and token["refresh_token"].startswith("rt_")

    def bearer(access):
        request = urllib.request.Request(server.url, headers={"Authorization": "Bearer " + access})
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status
        except urllib.error.HTTPError as error:
            return error.code

    assert [bearer(token["access_token"]) for _ in range(3)] == [200, 200, 401]  # two uses, then expired
    renewed = server.fetch_token("refresh_token", refresh_token=token["refresh_token"])
    assert bearer(renewed["access_token"]) == 200
    with pytest.raises(AuthMockError, match="invalid_grant"):
        server.fetch_token("refresh_token", refresh_token=token["refresh_token"])  # rotated: a reuse
    assert [e["verdict"] for e in server.journal()][-2:] == ["bearer.ok", "oauth.refresh-reused"]
    static = authmock_server("scenarios/bearer.yaml")
    assert static.token("alice") == "alice-static-token" and static.token_url.endswith("/oauth/token")
