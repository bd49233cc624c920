#!/usr/bin/env python3
"""Sends Basic credentials to the first host and follows redirects by hand. It drops Authorization when a
redirect leaves that host; with --restore it puts it back on a later same-host hop, as Go did before
CVE-2024-45336 was fixed (the header was dropped for the hop, not for the chain)."""
import base64, http.client, os, sys, urllib.parse

token = base64.b64encode(f'{os.environ["AUTHMOCK_USER"]}:{os.environ["AUTHMOCK_PASSWORD"]}'.encode()).decode()
current = urllib.parse.urlsplit(os.environ["AUTHMOCK_URL"])
origin = current.netloc
previous = None
for _ in range(10):
    same_as_previous = previous is not None and current.netloc == previous
    send = current.netloc == origin or ("--restore" in sys.argv and same_as_previous)
    connection = http.client.HTTPConnection(current.hostname, current.port, timeout=5)
    connection.request("GET", current.path or "/", headers={"Authorization": "Basic " + token} if send else {})
    response = connection.getresponse()
    response.read()
    if response.status not in (301, 302, 303, 307, 308):
        break
    previous = current.netloc
    current = urllib.parse.urlsplit(urllib.parse.urljoin(current.geturl(), response.getheader("Location")))
print(response.status)
sys.exit(0 if response.status == 200 else 1)
