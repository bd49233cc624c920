#!/usr/bin/env python3
"""authmock adapter for the standard library's urllib.request.

Usage: python3 clients/python-urllib.py
Inputs come from the AUTHMOCK_* environment variables. The adapter only builds an opener
from urllib's own handlers: which scheme to answer, how often to retry, redirects and TLS
checks are all urllib's (and the ssl module's) decisions.
Version: python3 -c 'import sys, urllib.request; print(urllib.request.__version__, sys.version.split()[0])'
"""
import http.client
import http.cookiejar
import ssl
import urllib.error
import urllib.request

from adapter_support import env, exit_with, in_threads, read_body, report


def main():
    url = env("AUTHMOCK_URL")
    method = env("AUTHMOCK_METHOD", "GET")
    repeat = int(env("AUTHMOCK_REPEAT", "1"))
    parallel = int(env("AUTHMOCK_PARALLEL", "1"))

    handlers = []

    user = env("AUTHMOCK_USER")
    if user is not None:
        # One password manager, realm-agnostic, shared by the Basic and the Digest handler:
        # urllib itself decides which one answers a 401 (Digest is ordered before Basic).
        passwords = urllib.request.HTTPPasswordMgrWithDefaultRealm()
        passwords.add_password(None, url, user, env("AUTHMOCK_PASSWORD", ""))
        handlers += [urllib.request.HTTPBasicAuthHandler(passwords),
                     urllib.request.HTTPDigestAuthHandler(passwords)]
    # urllib has no NTLM handler and no public-key pinning: AUTHMOCK_DOMAIN and
    # AUTHMOCK_PIN_SHA256 are ignored.

    proxy = env("AUTHMOCK_PROXY")
    if proxy:
        # Route both schemes through the given proxy (https goes through CONNECT). Passing
        # the dict also stops urllib from reading *_proxy variables from the environment.
        handlers.append(urllib.request.ProxyHandler({"http": proxy, "https": proxy}))
        if env("AUTHMOCK_PROXY_USER") is not None:
            # Proxy credentials live in their own manager, keyed by the proxy's address,
            # and are answered to 407 by urllib's proxy handlers.
            proxy_passwords = urllib.request.HTTPPasswordMgrWithDefaultRealm()
            proxy_passwords.add_password(None, proxy, env("AUTHMOCK_PROXY_USER"),
                                         env("AUTHMOCK_PROXY_PASSWORD", ""))
            handlers += [urllib.request.ProxyBasicAuthHandler(proxy_passwords),
                         urllib.request.ProxyDigestAuthHandler(proxy_passwords)]
    else:
        # No proxy for this case: an empty mapping disables environment proxies.
        handlers.append(urllib.request.ProxyHandler({}))

    if url.startswith("https:") or env("AUTHMOCK_CA_FILE"):
        # With cafile, create_default_context trusts only that bundle (no system CAs);
        # without it, the system store. Hostname checking stays on (the default). Given a CA
        # for an http:// URL, it is for where a redirect leads (redirect.http-to-https).
        context = ssl.create_default_context(cafile=env("AUTHMOCK_CA_FILE"))
        if env("AUTHMOCK_CLIENT_CERT"):
            # Client certificate and key for mutual TLS.
            context.load_cert_chain(env("AUTHMOCK_CLIENT_CERT"), env("AUTHMOCK_CLIENT_KEY"))
        handlers.append(urllib.request.HTTPSHandler(context=context))

    if env("AUTHMOCK_COOKIE_JAR"):
        # The cookie cases: urllib keeps no cookies unless given an HTTPCookieProcessor over a
        # CookieJar (its documentation's way; http.cookiejar decides what goes where).
        handlers.append(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

    # build_opener adds the defaults too, HTTPRedirectHandler among them (redirects followed).
    opener = urllib.request.build_opener(*handlers)

    # AUTHMOCK_TIMEOUT bounds each blocking socket operation; without it urllib waits forever.
    timeout = float(env("AUTHMOCK_TIMEOUT")) if env("AUTHMOCK_TIMEOUT") else None

    body = read_body()
    # A header the application sets itself: Request's `headers=` (urllib has no netrc support).
    headers = {env("AUTHMOCK_HEADER_NAME"): env("AUTHMOCK_HEADER_VALUE", "")} if env("AUTHMOCK_HEADER_NAME") else {}

    def fetch():
        request = urllib.request.Request(url, data=body, headers=headers, method=method)
        try:
            with opener.open(request, timeout=timeout) as response:
                response.read()
                return response.status
        except urllib.error.HTTPError as e:
            # urllib reports a final non-2xx status as HTTPError; its code is the status.
            return e.code

    # PARALLEL threads share the one opener, each doing REPEAT sequential fetches.
    return report(in_threads(fetch, repeat, parallel))


if __name__ == "__main__":
    # A clean failure is what urllib documents raising: URLError "on protocol errors" (a subclass
    # of OSError, https://docs.python.org/3.11/library/urllib.request.html#urllib.request.urlopen,
    # https://docs.python.org/3.11/library/urllib.error.html), the OSError family for socket, TLS
    # and timeout errors and http.client.HTTPException (IncompleteRead, RemoteDisconnected...)
    # from the http.client underneath (https://docs.python.org/3.11/library/http.client.html), and
    # the ValueError its auth handlers raise "when presented with a wrong Authentication scheme"
    # (https://docs.python.org/3.11/library/urllib.request.html#urllib.request.HTTPBasicAuthHandler,
    # .HTTPDigestAuthHandler); the Digest handler's unsupported algorithm or qop is that
    # ValueError too. Anything else is a crash (traceback, exit 70).
    exit_with(main, errors=(urllib.error.URLError, OSError, http.client.HTTPException, ValueError))
