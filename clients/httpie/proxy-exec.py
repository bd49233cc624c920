#!/usr/bin/python3
"""Runs HTTPie's `http` with the profile's arguments, plus the one thing the profile's `when:` blocks
cannot build: the `--proxy` URL with the proxy's credentials in its userinfo, percent-encoded, which is
HTTPie's only way to authenticate to a proxy ("Proxies": `--proxy=http:http://user:pass@host:port`,
https://httpie.io/docs/cli/proxies). Nothing else: the process becomes `http` (exec), and HTTPie
does the rest. Standard library only, started with -I (no site-packages, no user paths).
"""
import os
import sys
from urllib.parse import quote, urlsplit, urlunsplit


def with_userinfo(url, user, password):
    parts = urlsplit(url)
    if user is None:
        return url
    userinfo = quote(user, safe="") + ":" + quote(password or "", safe="")
    return urlunsplit(parts._replace(netloc=userinfo + "@" + parts.netloc))


def given(name):
    return os.environ.get(name) or None


proxies = []
for proxy, user, password in (("AUTHMOCK_PROXY", "AUTHMOCK_PROXY_USER", "AUTHMOCK_PROXY_PASSWORD"),
                              ("AUTHMOCK_SOCKS_PROXY", "AUTHMOCK_SOCKS_USER", "AUTHMOCK_SOCKS_PASSWORD")):
    if given(proxy):
        url = with_userinfo(given(proxy), given(user), given(password))
        # The same proxy for http:// and https:// URLs (HTTPie takes one --proxy per scheme).
        proxies += ["--proxy", "http:" + url, "--proxy", "https:" + url]

os.execvp("http", ["http"] + proxies + sys.argv[1:])
