#!/usr/bin/python3
"""Runs HTTPie's `http` command with the profile's arguments, plus the one thing the profile's `when:` blocks
cannot build: the `--proxy` URL with the proxy's credentials in its userinfo, percent-encoded, which is
HTTPie's only way to authenticate to a proxy ("Proxies": `--proxy=http:http://user:pass@host:port`,
https://httpie.io/docs/cli/proxies). Nothing else: it then calls what /usr/bin/http calls, HTTPie's
console entry point `httpie.__main__:main`, with `http` as argv[0], and HTTPie does the rest; so the
profile's warm process (clients/warm.py) can import HTTPie once instead of two interpreters per case.
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

if __name__ == "__main__":
    from httpie.__main__ import main
    sys.argv = ["http"] + proxies + sys.argv[1:]
    sys.exit(main())
