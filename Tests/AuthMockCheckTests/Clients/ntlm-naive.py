#!/usr/bin/env python3
"""An NTLM client that trusts what it is given, to the origin or (--proxy) to the proxy: it sends NEGOTIATE,
reads nothing of the CHALLENGE it gets back (not even its target-info fields), and answers with an
AUTHENTICATE (dummy responses). With --new-connection it sends the AUTHENTICATE on another connection
than the one that got the CHALLENGE."""
import base64, http.client, os, struct, sys, urllib.parse

proxied = "--proxy" in sys.argv
url = urllib.parse.urlsplit(os.environ["AUTHMOCK_URL"])
server = urllib.parse.urlsplit(os.environ["AUTHMOCK_PROXY"]) if proxied else url
user = os.environ["AUTHMOCK_PROXY_USER" if proxied else "AUTHMOCK_USER"].encode("utf-16-le")
domain = os.environ.get("AUTHMOCK_DOMAIN", "EXAMPLE").encode("utf-16-le")
header = "Proxy-Authorization" if proxied else "Authorization"
method, target = "GET", url.geturl() if proxied else (url.path or "/")
if proxied and url.scheme == "https":
    method, target = "CONNECT", f"{url.hostname}:{url.port}"

negotiate = b"NTLMSSP\0" + struct.pack("<II", 1, 0x00088207) + b"\0" * 16
payload = [b"\0" * 24, b"\1" * 24, domain, user, b"WS".decode().encode("utf-16-le"), b""]
fields, offset = b"", 64
for item in payload:
    fields += struct.pack("<HHI", len(item), len(item), offset)
    offset += len(item)
authenticate = b"NTLMSSP\0" + struct.pack("<I", 3) + fields + struct.pack("<I", 0x00088205) + b"".join(payload)


def fetch(connection, token):
    connection.request(method, target, headers={header: "NTLM " + base64.b64encode(token).decode()})
    response = connection.getresponse()
    if method != "CONNECT" or response.status != 200:
        response.read()
    return response.status


first = http.client.HTTPConnection(server.hostname, server.port, timeout=5)
fetch(first, negotiate)
second = http.client.HTTPConnection(server.hostname, server.port, timeout=5) if "--new-connection" in sys.argv else first
status = fetch(second, authenticate)
print(status)
sys.exit(0 if status == 200 else 1)
