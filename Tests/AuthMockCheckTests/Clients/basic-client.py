#!/usr/bin/env python3
"""A Basic client that sends credentials on every request (preemptively) and follows redirects.
--encoding NAME encodes user and password with that codec (errors replaced: latin-1 turns what it
cannot encode into '?'); UTF-8 by default."""
import base64, http.client, os, sys, urllib.parse

encoding = sys.argv[sys.argv.index("--encoding") + 1] if "--encoding" in sys.argv else "utf-8"
secret = f'{os.environ["AUTHMOCK_USER"]}:{os.environ["AUTHMOCK_PASSWORD"]}'.encode(encoding, errors="replace")
url = urllib.parse.urlsplit(os.environ["AUTHMOCK_URL"])
connection = http.client.HTTPConnection(url.hostname, url.port, timeout=5)
path = url.path or "/"
for _ in range(5):
    connection.request("GET", path, headers={"Authorization": "Basic " + base64.b64encode(secret).decode()})
    response = connection.getresponse()
    response.read()
    if response.status not in (301, 302, 303, 307, 308):
        break
    path = urllib.parse.urlsplit(response.getheader("Location")).path
print(response.status)
sys.exit(0 if response.status == 200 else 1)
