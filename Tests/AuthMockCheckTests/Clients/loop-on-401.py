#!/usr/bin/env python3
"""A deliberately wrong client: re-sends the same Basic credentials after every 401, up to 25 times
(--times N: N times)."""
import base64, http.client, os, sys, urllib.parse

url = urllib.parse.urlsplit(os.environ["AUTHMOCK_URL"])
token = base64.b64encode(f'{os.environ["AUTHMOCK_USER"]}:{os.environ["AUTHMOCK_PASSWORD"]}'.encode()).decode()
connection = http.client.HTTPConnection(url.hostname, url.port, timeout=5)
for _ in range(int(sys.argv[sys.argv.index("--times") + 1]) if "--times" in sys.argv else 25):
    connection.request("GET", url.path or "/", headers={"Authorization": "Basic " + token})
    response = connection.getresponse()
    response.read()
    if response.status != 401:
        break
print(response.status)
sys.exit(0 if response.status == 200 else 1)
