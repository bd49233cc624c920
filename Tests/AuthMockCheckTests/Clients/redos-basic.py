#!/usr/bin/env python3
"""Reads the Basic realm with the regular expression of urllib's AbstractBasicAuthHandler before
CVE-2021-3733 was fixed (bpo-43075): `[^ \t]+` also eats commas, so a value full of commas takes
quadratic time. The regex is CPython's; the rest is a plain Basic client."""
import base64, http.client, os, re, sys, urllib.parse

rx = re.compile('(?:^|,)[ \t]*([^ \t]+)[ \t]+realm=(["\']?)([^"\']*)\\2', re.I)
url = urllib.parse.urlsplit(os.environ["AUTHMOCK_URL"])
connection = http.client.HTTPConnection(url.hostname, url.port, timeout=5)
connection.request("GET", url.path or "/")
response = connection.getresponse()
response.read()
for value in response.headers.get_all("WWW-Authenticate") or []:
    for match in rx.finditer(value):
        if match.group(1).lower() == "basic":
            token = base64.b64encode(f'{os.environ["AUTHMOCK_USER"]}:{os.environ["AUTHMOCK_PASSWORD"]}'.encode()).decode()
            connection.request("GET", url.path or "/", headers={"Authorization": "Basic " + token})
            response = connection.getresponse()
            response.read()
print(response.status)
sys.exit(0 if response.status == 200 else 1)
