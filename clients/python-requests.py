#!/usr/bin/env python3
"""authmock adapter for python `requests`.

Usage: python3 clients/python-requests.py --auth basic|digest
Inputs come from the AUTHMOCK_* environment variables (see clients/README or the runner).
This file only maps those inputs onto requests' own options: authentication, retries,
redirects and TLS checks are all left to requests (and urllib3 underneath).
Version: python3 -c 'import requests; print(requests.__version__)'
"""
import argparse
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import quote, urlsplit, urlunsplit

import requests
from requests.auth import HTTPDigestAuth


def env(name, default=None):
    value = os.environ.get(name)
    return value if value else default


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--auth", choices=["basic", "digest"], default="basic")
    args = parser.parse_args()

    url = env("AUTHMOCK_URL")
    method = env("AUTHMOCK_METHOD", "GET")
    repeat = int(env("AUTHMOCK_REPEAT", "1"))
    parallel = int(env("AUTHMOCK_PARALLEL", "1"))

    # One Session for every fetch: shares the connection pool and, for digest, the
    # HTTPDigestAuth object's state (nonce, nc), as a real user with one session would.
    session = requests.Session()

    user, password = env("AUTHMOCK_USER"), env("AUTHMOCK_PASSWORD")
    if user is not None:
        if args.auth == "digest":
            session.auth = HTTPDigestAuth(user, password or "")
        else:
            # A (user, password) tuple is requests' documented shorthand for HTTPBasicAuth
            # (sent preemptively on the first request).
            session.auth = (user, password or "")

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
            parts = urlsplit(proxy)
            userinfo = quote(env("AUTHMOCK_PROXY_USER"), safe="") + ":" + \
                quote(env("AUTHMOCK_PROXY_PASSWORD", ""), safe="")
            proxy = urlunsplit(parts._replace(netloc=userinfo + "@" + parts.netloc))
        session.proxies = {"http": proxy, "https": proxy}
        # Ignore *_PROXY / NO_PROXY from the environment so only the given proxy is used
        # (NO_PROXY often lists 127.0.0.1/localhost, which would bypass the test proxy).
        session.trust_env = False

    # AUTHMOCK_TIMEOUT bounds each connect and each wait for data; without it requests waits forever.
    timeout = float(env("AUTHMOCK_TIMEOUT")) if env("AUTHMOCK_TIMEOUT") else None

    body = None
    if env("AUTHMOCK_BODY_FILE"):
        with open(env("AUTHMOCK_BODY_FILE"), "rb") as f:
            body = f.read()

    def worker(_):
        # REPEAT sequential fetches; requests follows redirects by default
        # (allow_redirects=True for every method but HEAD).
        return [session.request(method, url, data=body, timeout=timeout, **tls).status_code for _ in range(repeat)]

    # PARALLEL workers (threads) share the one Session, each doing REPEAT fetches.
    with ThreadPoolExecutor(max_workers=parallel) as pool:
        codes = [c for batch in pool.map(worker, range(parallel)) for c in batch]

    print(" ".join(str(c) for c in codes))
    return 0 if all(200 <= c < 300 for c in codes) else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception as e:  # report, don't retry
        print(f"{type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(1)
