"""The pytest plugin of the authmock wheel (entry point `pytest11`): the `authmock_server` fixture.

    def test_login(authmock_server):
        server = authmock_server("scenarios/basic.yaml")   # under the rootdir, else a shipped scenario
        ...  # your client against server.url, with server.users / server.password("alice")
        assert server.take_request()["verdict"] == "no-credentials"
        assert [e["verdict"] for e in server.journal()] == ["no-credentials", "basic.ok"]

`authmock_server(SCENARIO, *extra_serve_args)` starts `authmock serve SCENARIO --port 0` and returns an
`authmock.server.AuthMockServer` (`url`, `port`, `users`, `password(name)`, `ca`, `tls`, `journal(since=0)`,
`take_request(timeout=5)`, `wait_for_journal(predicate)`, `set_password(name, pw)`, `set_enabled(name, flag)`,
`reset()`). SCENARIO is a path — relative to the test's rootdir, or to the shipped scenarios
(`scenarios/digest.yaml`) — or a scenario dict, written as JSON (which is YAML) into a temporary .yaml file.
Every server it started is stopped with SIGTERM at teardown and must exit 0. A server that cannot start fails
the test with its diagnostics (stderr). The binary is $AUTHMOCK_BIN, else the one the wheel carries.
"""

import pytest

from .server import AuthMockError, AuthMockServer, start

__all__ = ["AuthMockServer", "authmock_server"]


@pytest.fixture
def authmock_server(request, tmp_path_factory):
    """A factory: `authmock_server("scenarios/x.yaml" or {...}, *extra_serve_args)` starts a server for this
    test; all are stopped (SIGTERM, exit status 0 expected) at teardown."""
    servers = []
    search_dirs = [request.config.rootpath]

    def start_server(scenario, *extra_args, **kwargs):
        kwargs.setdefault("search_dirs", search_dirs)
        if isinstance(scenario, dict):
            kwargs.setdefault("tmp_dir", tmp_path_factory.mktemp("authmock"))
        try:
            server = start(scenario, *extra_args, **kwargs)
        except AuthMockError as error:
            why = str(error)
        else:
            servers.append(server)
            return server
        pytest.fail(why, pytrace=False)  # outside the except: no "During handling…" chain in the report

    yield start_server

    failures = []
    for server in servers:
        try:
            status = server.stop()
        except AuthMockError as error:
            failures.append(str(error))
            continue
        if status != 0:
            failures.append(f"{server.scenario}: exit status {status}; stderr:\n{server.stderr}")
    if failures:
        pytest.fail("authmock did not stop cleanly:\n" + "\n".join(failures), pytrace=False)
