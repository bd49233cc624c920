#!/usr/bin/env python3
"""A deliberately wrong client: opens a CONNECT tunnel with Proxy-Authorization, then sends the same
Proxy-Authorization to the origin inside the tunnel."""
import base64, os, socket, ssl, sys, urllib.parse

url = urllib.parse.urlsplit(os.environ["AUTHMOCK_URL"])
proxy = urllib.parse.urlsplit(os.environ["AUTHMOCK_PROXY"])
token = base64.b64encode(f'{os.environ["AUTHMOCK_PROXY_USER"]}:{os.environ["AUTHMOCK_PROXY_PASSWORD"]}'.encode()).decode()
sock = socket.create_connection((proxy.hostname, proxy.port), timeout=5)
target = f"{url.hostname}:{url.port}"
sock.sendall(f"CONNECT {target} HTTP/1.1\r\nHost: {target}\r\nProxy-Authorization: Basic {token}\r\n\r\n".encode())
reply = b""
while b"\r\n\r\n" not in reply:
    chunk = sock.recv(4096)
    if not chunk:
        sys.exit(1)
    reply += chunk
if not reply.startswith(b"HTTP/1.1 200"):
    sys.exit(1)
context = ssl.create_default_context(cafile=os.environ["AUTHMOCK_CA_FILE"])
tls = context.wrap_socket(sock, server_hostname=url.hostname)
tls.sendall(f"GET / HTTP/1.1\r\nHost: {target}\r\nProxy-Authorization: Basic {token}\r\nConnection: close\r\n\r\n".encode())
answer = b""
while True:
    chunk = tls.recv(4096)
    if not chunk:
        break
    answer += chunk
print(answer.split(b"\r\n", 1)[0].decode())
sys.exit(0 if answer.startswith(b"HTTP/1.1 200") else 1)
