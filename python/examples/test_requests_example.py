"""The authmock_server fixture against requests (HTTPBasicAuth, HTTPDigestAuth).

    pip install authmock pytest requests
    python -m pytest -q test_requests_example.py

"scenarios/basic.yaml" and "scenarios/digest.yaml" are scenarios the wheel ships; a dict is a scenario too.
"""

import requests
from requests.auth import HTTPBasicAuth, HTTPDigestAuth


def test_basic_right_and_wrong_password(authmock_server):
    server = authmock_server("scenarios/basic.yaml")
    password = server.password("alice")

    response = requests.get(server.url, auth=HTTPBasicAuth("alice", password), timeout=10)
    assert (response.status_code, response.text) == (200, "Hello, alice!\n")
    assert requests.get(server.url, auth=HTTPBasicAuth("alice", "wrong"), timeout=10).status_code == 401

    # requests sends Basic credentials up front: one request each, taken from the journal in order.
    first = server.take_request()
    assert first["verdict"] == "basic.ok"
    assert first["credentials"] == {"header": "Authorization", "scheme": "Basic", "user": "alice",
                                    "password": password}
    second = server.take_request()
    assert (second["status"], second["verdict"]) == (401, "basic.bad-password")


def test_digest_answers_the_challenge(authmock_server):
    # SHA-256 and MD5 are offered in two WWW-Authenticate headers; requests answers one of them.
    server = authmock_server("scenarios/digest.yaml")
    response = requests.get(server.url + "search?q=rabbit", auth=HTTPDigestAuth("alice", "wonderland"), timeout=10)
    assert (response.status_code, response.text) == (200, "Results for alice.\n")

    challenged, answered = server.take_request(), server.take_request()
    assert (challenged["status"], challenged["verdict"]) == (401, "no-credentials")
    assert len(challenged["challenges"]) == 2
    assert (answered["status"], answered["verdict"], answered["target"]) == (200, "digest.ok", "/search?q=rabbit")


def test_password_change_and_the_journal(authmock_server):
    server = authmock_server("scenarios/basic.yaml")
    session = requests.Session()
    session.auth = HTTPBasicAuth("alice", server.password("alice"))
    assert session.get(server.url, timeout=10).status_code == 200

    server.set_password("alice", "looking-glass")
    assert session.get(server.url, timeout=10).status_code == 401    # the session's password is now stale
    session.auth = HTTPBasicAuth("alice", server.password("alice"))  # the fixture tracks the change
    assert session.get(server.url, timeout=10).status_code == 200

    assert [entry["verdict"] for entry in server.journal()] == [
        "basic.ok", "user.password-changed", "credential.stale-password", "basic.ok"]
    # take_request passes over the entry that is not a request (the change itself).
    assert [server.take_request()["verdict"] for _ in range(3)] == [
        "basic.ok", "credential.stale-password", "basic.ok"]

    server.reset()  # the journal empties and alice's first password comes back
    assert server.journal() == [] and server.password("alice") == "wonderland"
    assert requests.get(server.url, auth=("alice", "wonderland"), timeout=10).status_code == 200


def test_a_scenario_given_as_a_dict(authmock_server):
    server = authmock_server({
        "version": 1,
        "name": "inline",
        "realm": "inline realm",
        "users": [{"name": "ci", "password": "s3cret"}],
        "challenges": [{"scheme": "Basic"}],
        "resources": [{"path": "/api", "body": "{\"user\": \"{user}\"}\n"}],
    })
    assert server.scenario == "inline" and server.users == [{"name": "ci", "password": "s3cret"}]

    anonymous = requests.get(server.url + "api", timeout=10)
    assert anonymous.status_code == 401
    assert anonymous.headers["WWW-Authenticate"] == 'Basic realm="inline realm"'
    response = requests.get(server.url + "api", auth=("ci", "s3cret"), timeout=10)
    assert response.json() == {"user": "ci"}
