"""The authmock_server fixture against the standard library's urllib.request
(HTTPBasicAuthHandler, HTTPDigestAuthHandler, HTTPS with the scenario's CA).

    python -m pytest -q test_urllib_example.py
"""

import ssl
import urllib.error
import urllib.request

import pytest


def fetch(url, user, password, handler=urllib.request.HTTPBasicAuthHandler, context=None):
    """GET `url` as a urllib user would: an auth handler that answers the server's 401.
    Returns (status, body); an HTTP error status is a status here, not an exception."""
    passwords = urllib.request.HTTPPasswordMgrWithDefaultRealm()
    passwords.add_password(None, url, user, password)
    opener = urllib.request.build_opener(handler(passwords), urllib.request.HTTPSHandler(context=context))
    try:
        with opener.open(url, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


# urllib.request knows Digest with MD5 and SHA (not SHA-256 before Python 3.14): a scenario offering MD5.
DIGEST_MD5 = {
    "version": 1,
    "name": "digest-md5",
    "realm": "urllib@example.org",
    "users": [{"name": "alice", "password": "wonderland"}],
    "challenges": [{"scheme": "Digest", "algorithm": "MD5", "qop": "auth"}],
    "resources": [{"path": "/", "body": "Hello, {user}!\n"}],
}


@pytest.mark.parametrize("name", ["alice", "zoë"])
def test_basic_with_an_ascii_and_a_utf8_user(authmock_server, name):
    server = authmock_server("scenarios/basic.yaml")
    assert fetch(server.url, name, server.password(name)) == (200, f"Hello, {name}!\n")

    # urllib sends nothing until challenged, then answers the challenge once.
    assert [server.take_request()["verdict"] for _ in range(2)] == ["no-credentials", "basic.ok"]


def test_digest_md5(authmock_server):
    server = authmock_server(DIGEST_MD5)
    assert fetch(server.url, "alice", "wonderland", urllib.request.HTTPDigestAuthHandler) == (200, "Hello, alice!\n")
    assert fetch(server.url, "alice", "wrong", urllib.request.HTTPDigestAuthHandler)[0] == 401

    verdicts = [entry["verdict"] for entry in server.journal()]
    assert verdicts[:3] == ["no-credentials", "digest.ok", "no-credentials"]
    # A wrong password is a response that does not match (the server cannot tell it from a wrong hash);
    # urllib retries the refused Digest answer a few times before it gives up with the 401.
    assert len(verdicts) > 3 and set(verdicts[3:]) == {"digest.bad-response"}


def test_password_change_seen_as_stale(authmock_server):
    server = authmock_server("scenarios/basic.yaml")
    old = server.password("alice")
    assert server.set_password("alice", "looking-glass")["password_changes"] == 1

    assert fetch(server.url, "alice", old)[0] == 401
    assert fetch(server.url, "alice", "looking-glass")[0] == 200
    assert [entry["verdict"] for entry in server.journal()] == [
        "user.password-changed",
        "no-credentials", "credential.stale-password",  # the old password, recognised as such
        "no-credentials", "basic.ok",
    ]


def test_https_trusting_the_scenarios_ca(authmock_server):
    server = authmock_server("scenarios/tls-ca-signed.yaml")
    assert server.url.startswith("https://localhost:")
    context = ssl.create_default_context(cafile=server.ca)
    assert fetch(server.url, "alice", "wonderland", context=context) == (200, "Hello, alice!\n")

    with pytest.raises(urllib.error.URLError) as refused:  # without the CA, no request is sent
        fetch(server.url, "alice", "wonderland", context=ssl.create_default_context())
    assert isinstance(refused.value.reason, ssl.SSLCertVerificationError)
    assert [server.take_request()["verdict"] for _ in range(2)] == ["no-credentials", "basic.ok"]
