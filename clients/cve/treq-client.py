#!/usr/bin/env python3
"""authmock adapter for treq (requests-like HTTP on Twisted), for the CVE replay (ci/cve-replay).

Usage: python3 clients/cve/treq-client.py [--send auth|cookie]

One `treq.request(method, url, …)`, redirects followed by treq itself (`allow_redirects=True`, its default),
then `treq.content`, as treq's documentation writes it (https://treq.readthedocs.io/en/latest/). `--send`
picks how AUTHMOCK_USER/AUTHMOCK_PASSWORD are sent:

  auth    `auth=(user, password)`, treq's HTTP Basic (the default)
  cookie  `cookies={"authmock-session": password}`, the dict form of `cookies=` that treq CVE-2022-23607 is
          about (before 22.1.0 such cookies were bound to no domain and went to every host)

A clean failure is a failure treq documents for a request: a connection error
(twisted.internet.error.ConnectError, TimeoutError), ResponseFailed, and twisted.web.error.Error with its
redirect subclasses; anything else is a crash (adapter_support.exit_with: the traceback, exit 70).
Version: python -c 'import treq; print(treq.__version__)'
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # clients/, for adapter_support

import treq
from twisted.internet import defer, error, reactor
from twisted.web import error as web_error
from twisted.web.client import ResponseFailed

from reactor_support import run_fetch
from adapter_support import env, exit_with, read_body

DOCUMENTED = (error.ConnectError, error.TimeoutError, ResponseFailed, web_error.Error,
              web_error.InfiniteRedirection, web_error.RedirectWithNoLocation)


@defer.inlineCallbacks
def fetch(send):
    options = {}
    user, password = env("AUTHMOCK_USER"), env("AUTHMOCK_PASSWORD", "")
    if user is not None and send == "auth":
        options["auth"] = (user, password)
    elif user is not None:
        options["cookies"] = {"authmock-session": password}
    if env("AUTHMOCK_TIMEOUT"):
        options["timeout"] = float(env("AUTHMOCK_TIMEOUT"))
    response = yield treq.request(env("AUTHMOCK_METHOD", "GET"), env("AUTHMOCK_URL"), data=read_body(), **options)
    yield treq.content(response)
    return [response.code]


def main(send):
    return run_fetch(lambda: fetch(send))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--send", choices=["auth", "cookie"], default="auth")
    send = parser.parse_args().send
    exit_with(lambda: main(send), errors=DOCUMENTED)
