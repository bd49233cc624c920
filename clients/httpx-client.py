#!/usr/bin/env python3
"""authmock adapter for httpx (0.28), through its AsyncClient.

Usage: python3 clients/httpx-client.py --auth basic|digest
Inputs come from the AUTHMOCK_* environment variables. The adapter only maps them onto
httpx's own options: which credentials to send, answering a challenge, redirects and TLS
checks are httpx's (and httpcore's and the ssl module's) decisions.
Version: python3 -c 'import httpx; print(httpx.__version__)'
"""
import asyncio
import ssl

import httpx

from adapter_support import auth_option, env, exit_with, in_tasks, read_body, report, with_userinfo


async def run(auth_kind):
    url = env("AUTHMOCK_URL")
    method = env("AUTHMOCK_METHOD", "GET")
    repeat = int(env("AUTHMOCK_REPEAT", "1"))
    parallel = int(env("AUTHMOCK_PARALLEL", "1"))

    options = {
        # Ignore *_PROXY, NO_PROXY, SSL_CERT_FILE and .netrc from the environment: only
        # the case's inputs count.
        "trust_env": False,
        # httpx does not follow redirects unless asked to (unlike requests). A user who
        # fetches a URL that may redirect turns it on, as httpx's docs show
        # (https://www.python-httpx.org/compatibility/#redirects); from there on which
        # headers survive a redirect is httpx's business (Client._redirect_headers).
        "follow_redirects": True,
    }

    user, password = env("AUTHMOCK_USER"), env("AUTHMOCK_PASSWORD", "")
    if user is not None:
        if auth_kind == "digest":
            # httpx's own challenge-driven Digest: the first request goes out bare, a
            # 401 with a Digest challenge is answered, later requests reuse the challenge.
            options["auth"] = httpx.DigestAuth(user, password)
        else:
            # The documented shorthand for httpx.BasicAuth, sent up front on every request.
            options["auth"] = (user, password)
    elif env("AUTHMOCK_NETRC_FILE"):
        # Credentials from a netrc file: httpx.NetRCAuth, given the file
        # (https://www.python-httpx.org/advanced/authentication/#netrc-authentication).
        options["auth"] = httpx.NetRCAuth(env("AUTHMOCK_NETRC_FILE"))
    # A header the application sets itself, in `headers=` (https://www.python-httpx.org/quickstart/).
    headers = {env("AUTHMOCK_HEADER_NAME"): env("AUTHMOCK_HEADER_VALUE", "")} if env("AUTHMOCK_HEADER_NAME") else {}
    # httpx has no NTLM (AUTHMOCK_DOMAIN is ignored) and no public-key pinning
    # (AUTHMOCK_PIN_SHA256 is ignored).

    proxy = env("AUTHMOCK_PROXY")
    if proxy:
        # httpx's way of proxy authentication: credentials in the proxy URL's userinfo
        # (percent-encoded), sent as Basic up front, on plain requests and on CONNECT.
        if env("AUTHMOCK_PROXY_USER") is not None:
            proxy = with_userinfo(proxy, env("AUTHMOCK_PROXY_USER"), env("AUTHMOCK_PROXY_PASSWORD", ""))
        options["proxy"] = proxy

    if env("AUTHMOCK_CA_FILE") or env("AUTHMOCK_CLIENT_CERT"):
        # httpx 0.28's way (https://www.python-httpx.org/advanced/ssl/): an SSLContext as
        # `verify`. With cafile, create_default_context trusts only that bundle; without
        # it, the system store. Hostname checking stays on (the default).
        context = ssl.create_default_context(cafile=env("AUTHMOCK_CA_FILE"))
        if env("AUTHMOCK_CLIENT_CERT"):
            # Client certificate and key for mutual TLS, on the same context.
            context.load_cert_chain(env("AUTHMOCK_CLIENT_CERT"), env("AUTHMOCK_CLIENT_KEY"))
        options["verify"] = context

    if env("AUTHMOCK_TIMEOUT"):
        # One number bounds connect, read, write and pool waits; without it httpx's
        # default (5 s each) applies.
        options["timeout"] = float(env("AUTHMOCK_TIMEOUT"))

    body = read_body()

    # One AsyncClient for every fetch: one connection pool and one auth object (for
    # Digest: its last challenge and nonce count), as a user with one client would.
    async with httpx.AsyncClient(**options) as client:
        async def fetch():
            # request() reads the whole body before it returns.
            response = await client.request(method, url, content=body, headers=headers)
            return response.status_code

        # PARALLEL concurrent tasks on the one client (httpx's async docs:
        # https://www.python-httpx.org/async/), each doing REPEAT sequential fetches.
        codes = await in_tasks(fetch, repeat, parallel)

    return report(codes)


def main():
    return asyncio.run(run(auth_option()))


if __name__ == "__main__":
    # A clean failure is what httpx documents raising for a request: httpx.HTTPError, the base
    # of RequestError (transport, timeout, TooManyRedirects, ProtocolError...) and HTTPStatusError
    # (https://www.python-httpx.org/exceptions/). Anything else is a crash (traceback, exit 70).
    exit_with(main, errors=(httpx.HTTPError,))
