#!/usr/bin/env python3
"""A client with a fixed table of 1,000 challenges that overruns it, as a C client would: on a 401 with
more WWW-Authenticate challenges than that, it dies of SIGSEGV."""
import http.client, os, signal, sys, urllib.parse

url = urllib.parse.urlsplit(os.environ["AUTHMOCK_URL"])
connection = http.client.HTTPConnection(url.hostname, url.port, timeout=5)
http.client._MAXHEADERS = 100_000  # read them all, as a C client without a limit would
connection.request("GET", url.path or "/")
response = connection.getresponse()
challenges = sum(value.count("realm=") for value in response.headers.get_all("WWW-Authenticate") or [])
if challenges > 1000:
    os.kill(os.getpid(), signal.SIGSEGV)
sys.exit(1)
