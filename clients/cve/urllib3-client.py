#!/usr/bin/env python3
"""authmock adapter for urllib3 on its own (no requests), for the CVE replay (ci/cve-replay).

Usage: python3 clients/cve/urllib3-client.py [--send authorization|proxy-authorization|cookie|header]

One PoolManager, one request, redirects followed by urllib3 itself (`redirect=True`, the default of
PoolManager.request). urllib3 answers no challenge: its documented way to authenticate is to build the
header with `urllib3.util.make_headers` and pass it in `headers=`, which is what users do and what the
redirect CVEs are about. `--send` picks which header carries AUTHMOCK_USER/AUTHMOCK_PASSWORD:

  authorization        `make_headers(basic_auth=...)` → Authorization (the default; CVE-2018-20060)
  proxy-authorization  `make_headers(proxy_basic_auth=...)` → Proxy-Authorization set as an ordinary
                       header, with no proxy configured (the precondition of CVE-2024-37891)
  cookie               `Cookie: authmock-session=<password>`, a session cookie set by hand (urllib3 has
                       no cookie jar; CVE-2023-43804)
  header               the header the case gives (AUTHMOCK_HEADER_NAME/VALUE, `credentials-in: header`)

A clean failure is what urllib3 documents raising: its exceptions all derive from
urllib3.exceptions.HTTPError (https://urllib3.readthedocs.io/en/stable/reference/urllib3.exceptions.html);
anything else is a crash (adapter_support.exit_with: the traceback, exit 70).
Version: python -c 'import urllib3; print(urllib3.__version__)'
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # clients/, for adapter_support

import urllib3
from urllib3.util import make_headers

from adapter_support import env, exit_with, read_body, report


def main(send):
    url = env("AUTHMOCK_URL")
    method = env("AUTHMOCK_METHOD", "GET")
    user, password = env("AUTHMOCK_USER"), env("AUTHMOCK_PASSWORD", "")

    headers = {}
    if send == "header":
        if env("AUTHMOCK_HEADER_NAME"):
            headers[env("AUTHMOCK_HEADER_NAME")] = env("AUTHMOCK_HEADER_VALUE", "")
    elif user is not None:
        if send == "authorization":
            headers.update(make_headers(basic_auth=f"{user}:{password}"))
        elif send == "proxy-authorization":
            headers.update(make_headers(proxy_basic_auth=f"{user}:{password}"))
        else:
            headers["Cookie"] = f"authmock-session={password}"

    pool_args = {}
    if env("AUTHMOCK_CA_FILE"):
        pool_args.update(cert_reqs="CERT_REQUIRED", ca_certs=env("AUTHMOCK_CA_FILE"))
    http = urllib3.PoolManager(**pool_args)

    timeout = float(env("AUTHMOCK_TIMEOUT")) if env("AUTHMOCK_TIMEOUT") else None
    extra = {"timeout": timeout} if timeout is not None else {}
    response = http.request(method, url, headers=headers, body=read_body(), **extra)
    return report([response.status])


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--send", choices=["authorization", "proxy-authorization", "cookie", "header"], default="authorization")
    send = parser.parse_args().send
    exit_with(lambda: main(send), errors=(urllib3.exceptions.HTTPError,))
