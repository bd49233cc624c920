"""Examples of the `authmock_server` fixture (the authmock wheel's pytest plugin; see conftest.py) with the
standard library's urllib as the client.

    AUTHMOCK_BIN=.build/debug/authmock python3 -m pytest -q docs/recipes/python
"""

import ssl
import urllib.error
import urllib.request

import pytest


def fetch(url, user, password, context=None):
    """GET `url` the way a urllib user would: a Basic auth handler that answers the server's 401.

    Returns (status, body). urllib raises HTTPError for 4xx/5xx; that is a status here, not an error.
    """
    passwords = urllib.request.HTTPPasswordMgrWithDefaultRealm()
    passwords.add_password(None, url, user, password)
    opener = urllib.request.build_opener(
        urllib.request.HTTPBasicAuthHandler(passwords),
        urllib.request.HTTPSHandler(context=context),
    )
    try:
        with opener.open(url, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def requests_only(entries):
    """Journal entries of HTTP requests (user changes and TLS connection records have no method)."""
    return [entry for entry in entries if entry.get("method")]


# basic.yaml has an ASCII user and a UTF-8 one (zoë / pässwörd, with charset="UTF-8" in the challenge).
@pytest.mark.parametrize("name", ["alice", "zoë"])
def test_basic_right_and_wrong_password(authmock_server, name):
    server = authmock_server("scenarios/basic.yaml")
    password = server.password(name)

    assert fetch(server.url, name, password) == (200, f"Hello, {name}!\n")
    status, _ = fetch(server.url, name, password + "-wrong")
    assert status == 401

    # urllib sends no credentials until challenged, answers once, and gives up when the same
    # credentials are refused again: two requests per fetch.
    entries = requests_only(server.journal())
    assert [(entry["status"], entry["verdict"]) for entry in entries] == [
        (401, "no-credentials"),
        (200, "basic.ok"),
        (401, "no-credentials"),
        (401, "basic.bad-password"),
    ]
    # The journal records what was sent, credentials included (the header is marked as one).
    assert entries[1]["credentials"]["user"] == name
    assert entries[3]["credentials"]["password"] == password + "-wrong"
    assert any(header["credential"] for header in entries[3]["headers"] if header["name"].lower() == "authorization")


def test_password_change_makes_the_old_password_stale(authmock_server):
    server = authmock_server("scenarios/basic.yaml")
    old = server.password("alice")
    assert fetch(server.url, "alice", old)[0] == 200

    status = server.set_password("alice", "looking-glass")
    assert status["password"] == "looking-glass" and status["password_changes"] == 1

    assert fetch(server.url, "alice", old)[0] == 401
    assert fetch(server.url, "alice", "looking-glass")[0] == 200

    verdicts = [entry["verdict"] for entry in server.journal()]
    assert verdicts == [
        "no-credentials", "basic.ok",
        "user.password-changed",                        # the change itself is journaled (status 0, no method)
        "no-credentials", "credential.stale-password",  # the old password, recognised as such
        "no-credentials", "basic.ok",
    ]

    # Reset: the journal is cleared and the scenario's users come back.
    server.reset()
    assert server.journal() == []
    assert fetch(server.url, "alice", old)[0] == 200


def test_https_with_the_ca_from_the_ready_line(authmock_server):
    # ca-signed: a generated root signed an intermediate that signed the leaf; ca_file is the root.
    server = authmock_server("scenarios/tls-ca-signed.yaml")
    assert server.url.startswith("https://localhost:")
    assert server.tls["identity"] == "ca-signed"

    context = ssl.create_default_context(cafile=server.ca)
    assert fetch(server.url, "alice", "wonderland", context=context) == (200, "Hello, alice!\n")

    # Without the CA the handshake fails and no request is sent.
    with pytest.raises(urllib.error.URLError) as refused:
        fetch(server.url, "alice", "wonderland", context=ssl.create_default_context())
    assert isinstance(refused.value.reason, ssl.SSLCertVerificationError)

    # TLS connection entries are written when the connection closes, a moment after the response:
    # wait for the refused handshake. (Caveat: the fixture's own control requests over HTTPS, journal
    # polls included, get `tls.ok` connection entries too, so match TLS entries by connection.)
    entries = server.wait_for_journal(lambda entries: any(entry["verdict"] == "tls.handshake-failed" for entry in entries))
    requests = requests_only(entries)
    assert [entry["verdict"] for entry in requests] == ["no-credentials", "basic.ok"]
    assert all(entry["tls"]["version"] in ("TLSv1.2", "TLSv1.3") for entry in requests)
    failed = [entry for entry in entries if entry["verdict"] == "tls.handshake-failed"]
    assert len(failed) == 1 and failed[0]["connection"] not in {entry["connection"] for entry in requests}


def test_mutual_tls_with_a_users_client_certificate(authmock_server):
    # client-certificate: required — the ready line names a certificate and key per user.
    server = authmock_server("scenarios/tls-mtls.yaml")
    files = server.tls["client_certs"]["alice"]
    context = ssl.create_default_context(cafile=server.ca)
    context.load_cert_chain(files["cert_file"], files["key_file"])
    assert fetch(server.url, "alice", server.password("alice"), context=context)[0] == 200

    requests = requests_only(server.journal())  # the fixture presents a certificate for this, too
    assert requests[-1]["verdict"] == "basic.ok"
    assert requests[-1]["tls"]["client_certificate"] == files["subject"]
