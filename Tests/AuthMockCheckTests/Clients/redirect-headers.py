#!/usr/bin/env python3
"""A client of a few lines that follows redirects and decides per header what to keep, to be wrong on purpose.

  --strip-on host     drops Authorization only when the host name changes (requests before 2.20,
                      CVE-2018-18074: a same-host https→http redirect kept it)
  --strip-on origin   drops Authorization when scheme, host or port change (the right rule)
  --header NAME       also sends NAME (Proxy-Authorization or Cookie, with a credential in it) on every
                      request, as an application sets a header, and keeps it across redirects unless
                      --strip-all is given (urllib3 before 1.26.19 kept Proxy-Authorization, before
                      1.26.17 Cookie)
  --strip-all         drops every credential header with Authorization
"""
import argparse, base64, http.client, os, ssl, sys, urllib.parse

parser = argparse.ArgumentParser()
parser.add_argument("--strip-on", choices=["host", "origin"], default="origin")
parser.add_argument("--header", action="append", default=[])
parser.add_argument("--strip-all", action="store_true")
options = parser.parse_args()

token = base64.b64encode(f'{os.environ["AUTHMOCK_USER"]}:{os.environ["AUTHMOCK_PASSWORD"]}'.encode()).decode()
headers = {"Authorization": "Basic " + token}
for name in options.header:
    headers[name] = "Basic " + token if name.lower() == "proxy-authorization" else "session=" + token
context = ssl.create_default_context(cafile=os.environ.get("AUTHMOCK_CA_FILE") or None)

location = os.environ["AUTHMOCK_URL"]
previous = urllib.parse.urlsplit(location)
for _ in range(5):
    url = urllib.parse.urlsplit(location)
    changed = url.hostname != previous.hostname if options.strip_on == "host" else (url.scheme, url.hostname, url.port) != (previous.scheme, previous.hostname, previous.port)
    if changed:
        headers.pop("Authorization", None)
        if options.strip_all:
            headers = {}
    if url.scheme == "https":
        connection = http.client.HTTPSConnection(url.hostname, url.port, timeout=5, context=context)
    else:
        connection = http.client.HTTPConnection(url.hostname, url.port, timeout=5)
    connection.request("GET", url.path or "/", headers=headers)
    response = connection.getresponse()
    response.read()
    previous = url
    if response.status in (301, 302, 303, 307, 308):
        location = urllib.parse.urljoin(location, response.getheader("Location"))
        continue
    break
print(response.status)
sys.exit(0 if response.status == 200 else 1)
