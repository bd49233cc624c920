#!/usr/bin/env python3
"""A deliberately wrong client: follows redirects anywhere and keeps sending Authorization."""
import base64, http.client, os, sys, urllib.parse

token = base64.b64encode(f'{os.environ["AUTHMOCK_USER"]}:{os.environ["AUTHMOCK_PASSWORD"]}'.encode()).decode()
location = os.environ["AUTHMOCK_URL"]
for _ in range(5):
    url = urllib.parse.urlsplit(location)
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=5)
    connection.request("GET", url.path or "/", headers={"Authorization": "Basic " + token})
    response = connection.getresponse()
    response.read()
    if response.status in (301, 302, 303, 307, 308):
        location = urllib.parse.urljoin(location, response.getheader("Location"))
        continue
    break
print(response.status)
sys.exit(0 if response.status == 200 else 1)
