#!/usr/bin/env python3
"""authmock adapter for python `requests`.

Usage: python3 clients/python-requests.py --auth basic|digest
Inputs come from the AUTHMOCK_* environment variables (see clients/README or the runner).
This file only maps those inputs onto requests' own options: authentication, retries,
redirects and TLS checks are all left to requests (and urllib3 underneath).
Version: python3 -c 'import requests; print(requests.__version__)'
"""
import requests
from requests.auth import HTTPDigestAuth

from adapter_support import auth_option, env, exit_with, in_threads, read_body, report, with_userinfo


def main():
    auth_kind = auth_option()

    url = env("AUTHMOCK_URL")
    method = env("AUTHMOCK_METHOD", "GET")
    repeat = int(env("AUTHMOCK_REPEAT", "1"))
    parallel = int(env("AUTHMOCK_PARALLEL", "1"))

    # One Session for every fetch: shares the connection pool and, for digest, the
    # HTTPDigestAuth object's state (nonce, nc), as a real user with one session would.
    session = requests.Session()

    user, password = env("AUTHMOCK_USER"), env("AUTHMOCK_PASSWORD")
    if user is not None:
        if auth_kind == "digest":
            session.auth = HTTPDigestAuth(user, password or "")
        else:
            # A (user, password) tuple is requests' documented shorthand for HTTPBasicAuth
            # (sent preemptively on the first request).
            session.auth = (user, password or "")

    # A header the application sets itself, in `headers=` as the quickstart teaches ("Custom Headers");
    # with no auth= given, requests falls back on ~/.netrc (HOME is the case's {home}, the profile's env:),
    # as its authentication page says ("netrc Authentication"), and the URL's own userinfo needs nothing.
    headers = {}
    if env("AUTHMOCK_HEADER_NAME"):
        headers[env("AUTHMOCK_HEADER_NAME")] = env("AUTHMOCK_HEADER_VALUE", "")

    # TLS options are passed per request, not set on the Session: with trust_env (the
    # default) a REQUESTS_CA_BUNDLE/CURL_CA_BUNDLE in the environment overrides
    # session.verify (requests issue #3829), but not a per-request verify=.
    tls = {}
    # Trust exactly the given CA bundle instead of certifi's.
    if env("AUTHMOCK_CA_FILE"):
        tls["verify"] = env("AUTHMOCK_CA_FILE")
    # Client certificate for mutual TLS: requests takes a (cert, key) pair of PEM paths.
    if env("AUTHMOCK_CLIENT_CERT"):
        tls["cert"] = (env("AUTHMOCK_CLIENT_CERT"), env("AUTHMOCK_CLIENT_KEY"))
    # requests has no public-key pinning option: AUTHMOCK_PIN_SHA256 is ignored.
    # NTLM is not built in (it needs requests_ntlm): AUTHMOCK_DOMAIN is ignored.

    proxy = env("AUTHMOCK_PROXY")
    if proxy:
        # requests' way of doing proxy auth: credentials in the proxy URL's userinfo
        # (percent-encoded); urllib3 then sends them preemptively as Basic.
        if env("AUTHMOCK_PROXY_USER") is not None:
            proxy = with_userinfo(proxy, env("AUTHMOCK_PROXY_USER"), env("AUTHMOCK_PROXY_PASSWORD", ""))
        session.proxies = {"http": proxy, "https": proxy}
        # Ignore *_PROXY / NO_PROXY from the environment so only the given proxy is used
        # (NO_PROXY often lists 127.0.0.1/localhost, which would bypass the test proxy).
        session.trust_env = False

    # AUTHMOCK_TIMEOUT bounds each connect and each wait for data; without it requests waits forever.
    timeout = float(env("AUTHMOCK_TIMEOUT")) if env("AUTHMOCK_TIMEOUT") else None

    body = read_body()

    def fetch():
        # requests follows redirects by default (allow_redirects=True for every method but HEAD).
        return session.request(method, url, data=body, headers=headers, timeout=timeout, **tls).status_code

    # PARALLEL threads share the one Session, each doing REPEAT sequential fetches.
    return report(in_threads(fetch, repeat, parallel))


if __name__ == "__main__":
    # A clean failure is what requests documents raising: "All exceptions that Requests explicitly
    # raises inherit from requests.exceptions.RequestException"
    # (https://requests.readthedocs.io/en/latest/user/quickstart/#errors-and-exceptions,
    # https://requests.readthedocs.io/en/latest/api/#exceptions). Anything else escaping
    # requests or urllib3 is a crash (traceback, exit 70).
    exit_with(main, errors=(requests.exceptions.RequestException,))
