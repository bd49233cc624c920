#!/usr/bin/env python3
"""An NTLM client that trusts what it is given, to the origin or (--proxy) to the proxy: it sends NEGOTIATE,
takes the CHALLENGE's target-info fields as they say (reading past the message as zeros, the way a
bounds-checked language's copyOfRange pads), and answers with an NTLMv2-shaped AUTHENTICATE carrying
that target info (its proof is a dummy). With --new-connection it sends the AUTHENTICATE on another
connection than the one that got the CHALLENGE."""
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

negotiate = b"NTLMSSP\0" + struct.pack("<II", 1, 0x00888207) + b"\0" * 16


def authenticate(challenge):
    length, offset = struct.unpack("<H", challenge[40:42])[0], struct.unpack("<I", challenge[44:48])[0]
    target_info = challenge[offset:offset + length].ljust(length, b"\0")
    blob = b"\1\1\0\0\0\0\0\0" + b"\0" * 8 + b"\2" * 8 + b"\0" * 4 + target_info + b"\0" * 4
    payload = [b"\0" * 24, b"\1" * 16 + blob, domain, user, "WS".encode("utf-16-le"), b""]
    fields, at = b"", 64
    for item in payload:
        fields += struct.pack("<HHI", len(item), len(item), at)
        at += len(item)
    return b"NTLMSSP\0" + struct.pack("<I", 3) + fields + struct.pack("<I", 0x00888205) + b"".join(payload)


def fetch(connection, token):
    connection.request(method, target, headers={header: "NTLM " + base64.b64encode(token).decode()})
    response = connection.getresponse()
    if method != "CONNECT" or response.status != 200:
        response.read()
    answer = response.getheader("Proxy-Authenticate" if proxied else "WWW-Authenticate") or ""
    return response.status, base64.b64decode(answer.split()[1]) if answer.startswith("NTLM ") else b""


first = http.client.HTTPConnection(server.hostname, server.port, timeout=5)
_, challenge = fetch(first, negotiate)
second = http.client.HTTPConnection(server.hostname, server.port, timeout=5) if "--new-connection" in sys.argv else first
status, _ = fetch(second, authenticate(challenge))
print(status)
sys.exit(0 if status == 200 else 1)
