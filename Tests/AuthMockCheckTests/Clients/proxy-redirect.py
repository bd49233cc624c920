#!/usr/bin/env python3
"""Fetches an http:// URL through the proxy with Proxy-Authorization, then follows the redirect to https://
through a CONNECT tunnel. With --leak it also sends Proxy-Authorization to the origin inside the tunnel,
as requests did before CVE-2023-32681 (it re-added the header when rebuilding proxies on a redirect)."""
import base64, http.client, os, ssl, sys, urllib.parse

url = urllib.parse.urlsplit(os.environ["AUTHMOCK_URL"])
proxy = urllib.parse.urlsplit(os.environ["AUTHMOCK_PROXY"])
header = {"Proxy-Authorization": "Basic " + base64.b64encode(f'{os.environ["AUTHMOCK_PROXY_USER"]}:{os.environ["AUTHMOCK_PROXY_PASSWORD"]}'.encode()).decode()}
connection = http.client.HTTPConnection(proxy.hostname, proxy.port, timeout=5)
connection.request("GET", url.geturl(), headers=header)
response = connection.getresponse()
response.read()
if response.status != 302:
    sys.exit(1)
target = urllib.parse.urlsplit(response.getheader("Location"))
context = ssl.create_default_context(cafile=os.environ["AUTHMOCK_CA_FILE"])
tunnel = http.client.HTTPSConnection(proxy.hostname, proxy.port, timeout=5, context=context)
tunnel.set_tunnel(target.hostname, target.port, headers=header)
tunnel.request("GET", target.path, headers=header if "--leak" in sys.argv else {})
response = tunnel.getresponse()
response.read()
print(response.status)
sys.exit(0 if response.status == 200 else 1)
