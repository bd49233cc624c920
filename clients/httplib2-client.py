#!/usr/bin/env python3
"""authmock adapter for httplib2 (Debian's python3-httplib2, run by /usr/bin/python3).

Usage: /usr/bin/python3 clients/httplib2-client.py
Inputs come from the AUTHMOCK_* environment variables (README, "The client contract").
This file only maps those inputs onto httplib2's own API, as its documentation teaches
(https://httplib2.readthedocs.io/en/latest/libhttplib2.html): `Http(ca_certs=, proxy_info=, timeout=)`,
`add_credentials(name, password)` (httplib2 answers a 401 with the strongest scheme it knows, Digest
before Basic), `add_certificate(key, cert, domain)`. Challenges, retries, redirects and TLS checks are
left to httplib2 (and http.client and ssl underneath).
"""
import http.client
import threading
from urllib.parse import urlsplit

import httplib2
from httplib2 import socks

from adapter_support import env, exit_with, in_threads, read_body, report


def proxy_info(proxy_url, user, password):
    """A static ProxyInfo for the case's proxy: an HTTP proxy (the type the ProxyInfo docstring and
    proxy_info_from_url use) or SOCKS5 for a socks5h:// URL (rdns=True: the proxy resolves the name)."""
    parts = urlsplit(proxy_url)
    kind = socks.PROXY_TYPE_SOCKS5 if parts.scheme.startswith("socks5") else socks.PROXY_TYPE_HTTP
    return httplib2.ProxyInfo(kind, parts.hostname, parts.port, proxy_rdns=True,
                              proxy_user=user, proxy_pass=password)


def main():
    url = env("AUTHMOCK_URL")
    method = env("AUTHMOCK_METHOD", "GET")
    repeat = int(env("AUTHMOCK_REPEAT", "1"))
    parallel = int(env("AUTHMOCK_PARALLEL", "1"))
    timeout = float(env("AUTHMOCK_TIMEOUT")) if env("AUTHMOCK_TIMEOUT") else None

    proxy = env("AUTHMOCK_PROXY") or env("AUTHMOCK_SOCKS_PROXY")
    if env("AUTHMOCK_PROXY"):
        info = proxy_info(proxy, env("AUTHMOCK_PROXY_USER"), env("AUTHMOCK_PROXY_PASSWORD"))
    elif env("AUTHMOCK_SOCKS_PROXY"):
        info = proxy_info(proxy, env("AUTHMOCK_SOCKS_USER"), env("AUTHMOCK_SOCKS_PASSWORD"))
    else:
        # None, not the default (proxy_info_from_environment): only the case's proxy is used.
        info = None

    def client():
        # Http is not thread-safe (it keeps one connection per host in a dict): one per thread.
        h = httplib2.Http(timeout=timeout, proxy_info=info, ca_certs=env("AUTHMOCK_CA_FILE"))
        if env("AUTHMOCK_USER") is not None:
            h.add_credentials(env("AUTHMOCK_USER"), env("AUTHMOCK_PASSWORD", ""))
        if env("AUTHMOCK_CLIENT_CERT"):
            # domain "" : the key and certificate apply to every host.
            h.add_certificate(env("AUTHMOCK_CLIENT_KEY"), env("AUTHMOCK_CLIENT_CERT"), "")
        return h

    # A header the application sets itself: request(headers=...). httplib2 reads no netrc, and the
    # URL's userinfo is whatever httplib2 makes of it.
    headers = {}
    if env("AUTHMOCK_HEADER_NAME"):
        headers[env("AUTHMOCK_HEADER_NAME")] = env("AUTHMOCK_HEADER_VALUE", "")
    body = read_body()

    clients = {}

    def fetch():
        h = clients.get(threading.get_ident())
        if h is None:
            h = clients[threading.get_ident()] = client()
        # httplib2 follows redirects by itself (GET/HEAD, and 303/308 for any method), up to 5.
        response, _ = h.request(url, method=method, body=body, headers=dict(headers))
        return response.status

    codes = in_threads(fetch, repeat, parallel)

    if env("AUTHMOCK_URL2"):
        # The case's second transfer on the same Http (its connections): the credentials are swapped
        # with clear_credentials() + add_credentials(), the documented way to change them.
        h = next(iter(clients.values()))
        h.clear_credentials()
        if env("AUTHMOCK_USER2") is not None:
            h.add_credentials(env("AUTHMOCK_USER2"), env("AUTHMOCK_PASSWORD2", ""))
        if env("AUTHMOCK_PROXY") and env("AUTHMOCK_PROXY_USER2") is not None:
            h.proxy_info = proxy_info(env("AUTHMOCK_PROXY"), env("AUTHMOCK_PROXY_USER2"), env("AUTHMOCK_PROXY_PASSWORD2"))
        response, _ = h.request(env("AUTHMOCK_URL2"), method="GET")
        codes.append(response.status)

    return report(codes)


if __name__ == "__main__":
    # A clean failure: httplib2's own errors (all derive from HttpLib2Error, its docs' "Exceptions"),
    # the proxy errors of its bundled socks module (httplib2.socks.ProxyError: a refused CONNECT or
    # SOCKS5 login), and what httplib2 lets through from the layers beneath by design: socket and ssl
    # errors (OSError: refused connection, timeout, certificate) and http.client's HTTPException,
    # which `Http._conn_request` re-raises after closing the connection. Anything else is a crash.
    exit_with(main, errors=(httplib2.HttpLib2Error, socks.ProxyError, OSError, http.client.HTTPException))
