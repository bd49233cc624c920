"""Checks scenarios/schema.json, the JSON Schema editors use for scenario files.

The schema describes what ScenarioLoader accepts; these tests keep it honest against the shipped
scenarios (all must validate), against deliberately wrong ones (each must fail), and check that every
shipped file names the schema in its yaml-language-server modeline.

Run: python3 -m pytest -q Tests/schema
"""

import json
import os
import re
import textwrap
from pathlib import Path

import pytest
import yaml
from jsonschema import Draft7Validator

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "scenarios"
SCHEMA_PATH = SCENARIOS / "schema.json"
SHIPPED = sorted(SCENARIOS.glob("*.yaml")) + sorted((SCENARIOS / "conformance").glob("*.yaml"))


def name(path):
    return path.relative_to(ROOT).as_posix()


@pytest.fixture(scope="module")
def schema():
    with open(SCHEMA_PATH, encoding="utf-8") as f:
        return json.load(f)


@pytest.fixture(scope="module")
def validator(schema):
    return Draft7Validator(schema)


def leaves(error):
    """The errors inside a oneOf/anyOf/if error, recursively."""
    if not error.context:
        return [error]
    return [leaf for sub in error.context for leaf in leaves(sub)]


def describe(error):
    """`path: message`; for oneOf/anyOf, also the deepest error of the branches (the likely mistake)."""
    text = "/" + "/".join(map(str, error.absolute_path)) + ": " + error.message
    if error.context:
        best = max(leaves(error), key=lambda e: (len(e.absolute_path), e.validator != "type"))
        text += f" (closest: /{'/'.join(map(str, best.absolute_path))}: {best.message})"
    return text


def errors(validator, document):
    """Every error of `document`, as `path: message`, in path order."""
    found = sorted(validator.iter_errors(document), key=lambda e: (list(map(str, e.absolute_path)), e.message))
    return [describe(e) for e in found]


def test_schema_is_a_valid_draft7_schema(schema):
    assert schema["$schema"] == "http://json-schema.org/draft-07/schema#"
    Draft7Validator.check_schema(schema)


def test_there_are_shipped_scenarios():
    assert len([p for p in SHIPPED if p.parent == SCENARIOS]) >= 6
    assert len([p for p in SHIPPED if p.parent != SCENARIOS]) >= 6


@pytest.mark.parametrize("path", SHIPPED, ids=name)
def test_shipped_scenario_validates(validator, path):
    with open(path, encoding="utf-8") as f:
        document = yaml.safe_load(f)
    problems = errors(validator, document)
    assert not problems, f"{name(path)} does not match scenarios/schema.json:\n" + "\n".join(f"  {name(path)}: {p}" for p in problems)


@pytest.mark.parametrize("path", SHIPPED, ids=name)
def test_shipped_scenario_names_the_schema(path):
    relative = Path(os.path.relpath(SCHEMA_PATH, path.parent)).as_posix()
    expected = f"# yaml-language-server: $schema={relative}"
    with open(path, encoding="utf-8", newline="") as f:
        first = f.readline().rstrip("\r\n")
    assert first == expected, f"{name(path)}: the first line should be `{expected}`, found `{first}`"


def readme_example(heading):
    """The first ```yaml block after `heading` in README.md."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index(heading)
    match = re.compile(r"```yaml\n(.*?)```", re.S).search(text, start)
    assert match, f"no yaml block after {heading!r} in README.md"
    return match.group(1)


@pytest.mark.parametrize("heading", ["A complete example with every key", "A complete case with every key"])
def test_readme_examples_validate(validator, heading):
    problems = errors(validator, yaml.safe_load(readme_example(heading)))
    assert not problems, f"README.md, {heading!r}:\n" + "\n".join(f"  {p}" for p in problems)


MINIMAL = """\
version: 1
name: tiny
users: [{name: alice, password: wonderland}]
challenges: [{scheme: Basic}]
"""

GOOD = {
    "minimal": MINIMAL,
    "users from an htpasswd file": MINIMAL.replace("users: [{name: alice, password: wonderland}]", "users: {htpasswd: users.htpasswd}"),
    "users from an htdigest file": MINIMAL.replace("users: [{name: alice, password: wonderland}]", "users: {htdigest: users.htdigest}"),
    "proxy users from a file": """\
        version: 1
        name: p
        resources: [{path: /, protected: false}]
        proxy:
          users: {htpasswd: proxy.htpasswd}
          challenges: [{scheme: Basic}]
        """,
    "case-insensitive words and scalar text": """\
        version: 1
        name: ci
        realm: 42
        users: [{name: 007, password: 1234}]
        challenges:
          - {scheme: digest, algorithm: sha-256-SESS, qop: [AUTH, auth-int], opaque: fixedvalue, charset: utf-8}
          - {scheme: negotiate, server-challenge: 0123456789ABCDEF, allow-v1: false}
          - {custom: 'Newauth realm="apps", type=1'}
        nonce: {lifetime: 1.5, max-uses: 3}
        tls: {identity: CA-Signed, client-certificate: Optional}
        """,
    "qop none": MINIMAL.replace("[{scheme: Basic}]", "[{scheme: Digest, algorithm: MD5, qop: none}]"),
    "every check rule": """\
        version: 1
        name: checks
        users: [{name: a, password: b}]
        challenges: [{scheme: Basic}]
        case: {title: t, features: [basic]}
        expect:
          checks:
            - {that: s, sequence: [{credentials: none, status: 401}, {credentials: Basic, verdict: basic.ok}]}
            - {that: n, never: {authority: other, credentials: any}, after: {status: [401, 407]}}
            - {that: c, grade: non-strict, at-most: 2, of: {verdict: "digest.*"}}
            - {that: o, observe: request-shape}
            - {that: k, never: {kind: tls, verdict: tls.handshake-failed}}
        """,
}

BAD = {
    "unknown top-level key": MINIMAL + "colour: blue\n",
    "misspelled key in a Digest challenge": MINIMAL.replace("[{scheme: Basic}]", "[{scheme: Digest, algoritm: SHA-256}]"),
    "realm of the wrong type": MINIMAL + "realm: {a: 1}\n",
    "realm piece without times": MINIMAL + "realm: [a, {repeat: b}]\n",
    "raw challenge with a line break": MINIMAL.replace("[{scheme: Basic}]", "[{raw: \"Basic\\nX: 1\"}]"),
    "raw challenge with fields 0": MINIMAL.replace("[{scheme: Basic}]", "[{raw: Basic, fields: 0}]"),
    "raw challenge with a scheme key": MINIMAL.replace("[{scheme: Basic}]", "[{raw: Basic, scheme: Basic}]"),
    "unknown NTLM corruption": MINIMAL.replace("[{scheme: Basic}]", "[{scheme: NTLM, corrupt: everything}]"),
    "nonce shorter than its signed part": MINIMAL + "nonce: {size: 20}\n",
    "resource schemes empty": MINIMAL + "resources: [{path: /, schemes: []}]\n",
    "unknown Digest algorithm": MINIMAL.replace("[{scheme: Basic}]", "[{scheme: Digest, algorithm: SHA-1}]"),
    "users mapping with an unknown key": MINIMAL.replace("users: [{name: alice, password: wonderland}]", "users: {htpassword: users.htpasswd}"),
    "users file naming two files": MINIMAL.replace("users: [{name: alice, password: wonderland}]", "users: {htpasswd: a, htdigest: b}"),
    "users file naming no file": MINIMAL.replace("users: [{name: alice, password: wonderland}]", "users: {}"),
    "no version": MINIMAL.replace("version: 1\n", ""),
    "version 2": MINIMAL.replace("version: 1", "version: 2"),
    "name with a space": MINIMAL.replace("name: tiny", "name: my scenario"),
    "user without a password": MINIMAL.replace("{name: alice, password: wonderland}", "{name: alice}"),
    "user name with a colon": MINIMAL.replace("name: alice", "name: 'al:ice'"),
    "Basic key on a Digest challenge": MINIMAL.replace("[{scheme: Basic}]", "[{scheme: Digest, server: X}]"),
    "Digest key on a Basic challenge": MINIMAL.replace("[{scheme: Basic}]", "[{scheme: Basic, qop: auth}]"),
    "unknown scheme": MINIMAL.replace("[{scheme: Basic}]", "[{scheme: Hoba}]"),
    "Bearer key on a Basic challenge": MINIMAL.replace("[{scheme: Basic}]", "[{scheme: Basic, resource-metadata: true}]"),
    "Bearer token with a space": MINIMAL.replace("password: wonderland}", "token: 'a b'}").replace("[{scheme: Basic}]", "[{scheme: Bearer}]"),
    "custom challenge with a scheme": MINIMAL.replace("[{scheme: Basic}]", "[{custom: 'Newauth realm=x', scheme: Basic}]"),
    "custom challenge that is not a challenge": MINIMAL.replace("[{scheme: Basic}]", "[{custom: 'Newauth a=b c=d'}]"),
    "charset other than UTF-8": MINIMAL.replace("[{scheme: Basic}]", "[{scheme: Basic, charset: latin1}]"),
    "unknown qop": MINIMAL.replace("[{scheme: Basic}]", "[{scheme: Digest, qop: everything}]"),
    "session algorithm without qop": MINIMAL.replace("[{scheme: Basic}]", "[{scheme: Digest, algorithm: MD5-sess, qop: none}]"),
    "server-challenge not 8 bytes": MINIMAL.replace("[{scheme: Basic}]", "[{scheme: NTLM, server-challenge: abc}]"),
    "challenges without users": MINIMAL.replace("users: [{name: alice, password: wonderland}]\n", ""),
    "protected resource without challenges": MINIMAL.replace("challenges: [{scheme: Basic}]\n", ""),
    "duration that is not one": MINIMAL + "nonce: {lifetime: soon}\n",
    "zero duration": MINIMAL + "nonce: {lifetime: 0s}\n",
    "out-of-range max-uses": MINIMAL + "nonce: {max-uses: 0}\n",
    "quoted boolean": MINIMAL + "second-port: 'true'\n",
    "resource path without slash": MINIMAL + "resources: [{path: private}]\n",
    "resource under the control prefix": MINIMAL + "resources: [{path: /_authmock/x}]\n",
    "forbidden header": MINIMAL + "resources: [{path: /, headers: {Content-Length: '5'}}]\n",
    "unknown identity": MINIMAL + "tls: {identity: expird}\n",
    "tls.rotate with an unknown key": MINIMAL + "tls: {rotate: {every: 3}}\n",
    "proxy 407 status 403": MINIMAL + "proxy: {unauthorized: {status: 403}}\n",
    "status on the origin's 401": MINIMAL + "unauthorized: {status: 407}\n",
    "proxy challenges without proxy users": MINIMAL + "proxy: {challenges: [{scheme: Basic}]}\n",
    "timeline step with two triggers": MINIMAL + "timeline: [{after: 5s, at-request: 3, user: alice, lock: true}]\n",
    "timeline step without action": MINIMAL + "timeline: [{after: 5s, user: alice}]\n",
    "timeline lock: false": MINIMAL + "timeline: [{after: 5s, user: alice, lock: false}]\n",
    "case without expect": MINIMAL + "case: {title: t}\n",
    "expect without case": MINIMAL + "expect: {outcome: success}\n",
    "case without title": MINIMAL + "case: {features: [basic]}\nexpect: {outcome: success}\n",
    "unknown feature": MINIMAL + "case: {title: t, features: [digets]}\nexpect: {outcome: success}\n",
    "body and body-bytes": MINIMAL + "case: {title: t, request: {body: x, body-bytes: 5}}\nexpect: {outcome: success}\n",
    "give.ca without tls": MINIMAL + "case: {title: t, give: {ca: false}}\nexpect: {outcome: success}\n",
    "expect nothing": MINIMAL + "case: {title: t}\nexpect: {outcome: any}\n",
    "check with two rules": MINIMAL + "case: {title: t}\nexpect: {checks: [{that: x, never: {}, observe: schemes}]}\n",
    "at-most without of": MINIMAL + "case: {title: t}\nexpect: {checks: [{that: x, at-most: 1}]}\n",
    "grade on an observe check": MINIMAL + "case: {title: t}\nexpect: {checks: [{that: x, observe: schemes, grade: fail}]}\n",
    "unknown verdict": MINIMAL + "case: {title: t}\nexpect: {checks: [{that: x, never: {verdict: digest.okay}}]}\n",
    "HTTP field in a TLS pattern": MINIMAL + "case: {title: t}\nexpect: {checks: [{that: x, never: {kind: tls, status: 200}}]}\n",
    "misspelled pattern key": MINIMAL + "case: {title: t}\nexpect: {checks: [{that: x, never: {credential: any}}]}\n",
}


@pytest.mark.parametrize("text", list(GOOD.values()), ids=list(GOOD))
def test_good_scenario_passes(validator, text):
    problems = errors(validator, yaml.safe_load(textwrap.dedent(text)))
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("text", list(BAD.values()), ids=list(BAD))
def test_wrong_scenario_fails(validator, text):
    document = yaml.safe_load(textwrap.dedent(text))
    assert errors(validator, document), "the schema accepted:\n" + textwrap.dedent(text)
