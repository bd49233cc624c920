#!/usr/bin/env python3
"""An NTLMv2 client (MS-NLMP §3.3.2, MD4 in Python: OpenSSL 3 has none) that sends its body
(AUTHMOCK_BODY_FILE) with Expect: 100-continue on every leg, over one raw socket. Right by default: when a
leg is answered before 100 Continue on a connection that stays open, it sends the announced body anyway (the
connection must stay in step: NTLM authenticates this connection), and the AUTHENTICATE leg carries the body.

  --empty-after-challenge   the AUTHENTICATE leg carries no body, as if the one sent on the NEGOTIATE leg
                            had done (a stream read once, not rewound): wrong

Exits 0 on a 2xx."""
import base64, hashlib, hmac, os, socket, struct, sys, urllib.parse

flags = sys.argv[1:]
url = urllib.parse.urlsplit(os.environ["AUTHMOCK_URL"])
method = os.environ.get("AUTHMOCK_METHOD", "PUT")
body = open(os.environ["AUTHMOCK_BODY_FILE"], "rb").read()
user, password = os.environ["AUTHMOCK_USER"], os.environ["AUTHMOCK_PASSWORD"]
domain = os.environ.get("AUTHMOCK_DOMAIN", "")


def md4(data):
    rol = lambda x, n: ((x << n) | (x >> (32 - n))) & 0xFFFFFFFF
    h = [0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476]
    data = data + b"\x80" + b"\0" * ((55 - len(data)) % 64) + struct.pack("<Q", len(data) * 8)
    for chunk in range(0, len(data), 64):
        x, (a, b, c, d) = struct.unpack("<16I", data[chunk:chunk + 64]), h
        for i in range(16):
            a, b, c, d = d, rol((a + ((b & c) | (~b & d)) + x[i]) & 0xFFFFFFFF, (3, 7, 11, 19)[i % 4]), b, c
        for i in range(16):
            k = (i % 4) * 4 + i // 4
            a, b, c, d = d, rol((a + ((b & c) | (b & d) | (c & d)) + x[k] + 0x5A827999) & 0xFFFFFFFF, (3, 5, 9, 13)[i % 4]), b, c
        for i in range(16):
            k = (0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15)[i]
            a, b, c, d = d, rol((a + (b ^ c ^ d) + x[k] + 0x6ED9EBA1) & 0xFFFFFFFF, (3, 9, 11, 15)[i % 4]), b, c
        h = [(v + w) & 0xFFFFFFFF for v, w in zip(h, (a, b, c, d))]
    return struct.pack("<4I", *h)


def authenticate(challenge):
    server_challenge = challenge[24:32]
    length, offset = struct.unpack("<H", challenge[40:42])[0], struct.unpack("<I", challenge[44:48])[0]
    key = hmac.new(md4(password.encode("utf-16-le")), (user.upper() + domain).encode("utf-16-le"), hashlib.md5).digest()
    client = b"\x11" * 8
    blob = b"\1\1\0\0\0\0\0\0" + b"\0" * 8 + client + b"\0" * 4 + challenge[offset:offset + length] + b"\0" * 4
    nt = hmac.new(key, server_challenge + blob, hashlib.md5).digest() + blob
    lm = hmac.new(key, server_challenge + client, hashlib.md5).digest() + client
    payload = [lm, nt, domain.encode("utf-16-le"), user.encode("utf-16-le"), "WS".encode("utf-16-le"), b""]
    fields, at = b"", 64
    for item in payload:
        fields += struct.pack("<HHI", len(item), len(item), at)
        at += len(item)
    return b"NTLMSSP\0" + struct.pack("<I", 3) + fields + struct.pack("<I", 0x00888205) + b"".join(payload)


sock = socket.create_connection((url.hostname, url.port), timeout=5)
reader = sock.makefile("rb")


def response():
    status = int(reader.readline().split()[1])
    headers = {}
    while (line := reader.readline()) not in (b"\r\n", b"\n", b""):
        name, _, value = line.decode().partition(":")
        headers[name.strip().lower()] = value.strip()
    reader.read(int(headers.get("content-length", "0")))
    return status, headers


def leg(token, content):
    head = f"{method} {url.path or '/'} HTTP/1.1\r\nHost: {url.netloc}\r\nContent-Length: {len(content)}\r\n"
    head += f"Authorization: NTLM {base64.b64encode(token).decode()}\r\n"
    sock.sendall((head + ("Expect: 100-continue\r\n" if content else "") + "\r\n").encode())
    status, headers = response() if content else (100, {})
    sock.sendall(content)  # after 100 Continue, or after an early answer on a connection kept open
    if status == 100:
        status, headers = response()
    return status, headers


negotiate = b"NTLMSSP\0" + struct.pack("<II", 1, 0x00888207) + b"\0" * 16
status, headers = leg(negotiate, body)
challenge = base64.b64decode(headers.get("www-authenticate", "NTLM ").split()[-1])
status, _ = leg(authenticate(challenge), b"" if "--empty-after-challenge" in flags else body)
print(status)
sys.exit(0 if 200 <= status < 300 else 1)
