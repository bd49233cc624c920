#!/usr/bin/env python3
"""authmock adapter for Twisted's HTTP client (twisted.web.client), for the CVE replay (ci/cve-replay).

Usage: python3 clients/cve/twisted-client.py

The client as Twisted's web-client howto writes it (https://docs.twisted.org/en/stable/web/howto/client.html):
an `Agent`, wrapped in a `RedirectAgent` so that redirects are followed, `agent.request(method, url,
Headers(...))`, then `readBody`. twisted.web.client answers no challenge; credentials go in the request's
headers, here `Authorization: Basic` built from AUTHMOCK_USER/AUTHMOCK_PASSWORD (the header
CVE-2022-21712 is about). Plain HTTP only: no CA input.

A clean failure is a failure the howto and the API documentation describe for a request: a connection
error (twisted.internet.error.ConnectError, TimeoutError), ResponseFailed, and twisted.web.error.Error
with its redirect subclasses; anything else is a crash (adapter_support.exit_with: the traceback, exit 70).
Version: python -c 'import twisted; print(twisted.__version__)'
"""
import base64
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # clients/, for adapter_support

from twisted.internet import defer, error, reactor
from twisted.web import error as web_error
from twisted.web.client import Agent, RedirectAgent, ResponseFailed, readBody
from twisted.web.http_headers import Headers

from reactor_support import run_fetch
from adapter_support import env, exit_with

DOCUMENTED = (error.ConnectError, error.TimeoutError, ResponseFailed, web_error.Error,
              web_error.InfiniteRedirection, web_error.RedirectWithNoLocation)


@defer.inlineCallbacks
def fetch():
    url = env("AUTHMOCK_URL")
    method = env("AUTHMOCK_METHOD", "GET")
    headers = Headers()
    if env("AUTHMOCK_USER") is not None:
        token = base64.b64encode(f"{env('AUTHMOCK_USER')}:{env('AUTHMOCK_PASSWORD', '')}".encode()).decode()
        headers.addRawHeader(b"Authorization", f"Basic {token}".encode())
    timeout = float(env("AUTHMOCK_TIMEOUT")) if env("AUTHMOCK_TIMEOUT") else None
    agent = RedirectAgent(Agent(reactor, connectTimeout=timeout))
    response = yield agent.request(method.encode(), url.encode(), headers)
    yield readBody(response)
    return [response.code]


def main():
    return run_fetch(fetch)


if __name__ == "__main__":
    exit_with(main, errors=DOCUMENTED)
