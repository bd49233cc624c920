#!/usr/bin/env python3
"""A client that sends Basic, reads the answer, then dies of a bug of its own instead of reporting the 401:
an uncaught IndexError (Python prints a traceback and exits 1, like a refusal), or with --status N an
adapter's reserved crash status."""
import base64, http.client, os, sys, traceback, urllib.parse

url = urllib.parse.urlsplit(os.environ["AUTHMOCK_URL"])
token = base64.b64encode(f'{os.environ["AUTHMOCK_USER"]}:{os.environ["AUTHMOCK_PASSWORD"]}'.encode()).decode()
connection = http.client.HTTPConnection(url.hostname, url.port, timeout=5)
connection.request("GET", url.path or "/", headers={"Authorization": "Basic " + token})
connection.getresponse().read()
try:
    challenges = []
    challenges[0]  # the bug: the parser expected a challenge that is not there
except IndexError:
    if len(sys.argv) > 2 and sys.argv[1] == "--status":
        traceback.print_exc()
        sys.exit(int(sys.argv[2]))
    raise
