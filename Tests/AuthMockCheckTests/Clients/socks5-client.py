#!/usr/bin/env python3
"""A SOCKS5 client of a few lines (RFC 1928, RFC 1929) that fetches AUTHMOCK_URL through AUTHMOCK_SOCKS_PROXY.
By default it behaves: it sends the host name for the proxy to resolve, authenticates once, and stops when
the proxy refuses. Each flag makes it wrong in one way:
  --resolve        resolves the host itself and sends the address (a DNS leak under socks5h://)
  --retry          on a refused password or method, reconnects and tries again, ten times
  --leak           sends the SOCKS5 credentials to the origin as Proxy-Authorization
  --no-auth        offers only "no authentication", though it was given a username and password
"""
import base64, os, socket, ssl, sys, urllib.parse

flags = set(sys.argv[1:])
url = urllib.parse.urlsplit(os.environ["AUTHMOCK_URL"])
proxy = urllib.parse.urlsplit(os.environ["AUTHMOCK_SOCKS_PROXY"])
user = os.environ.get("AUTHMOCK_SOCKS_USER", "").encode()
password = os.environ.get("AUTHMOCK_SOCKS_PASSWORD", "").encode()
port = url.port or (443 if url.scheme == "https" else 80)


def read(sock, count):
    data = b""
    while len(data) < count:
        chunk = sock.recv(count - len(data))
        if not chunk:
            raise ConnectionError("the proxy closed the connection")
        data += chunk
    return data


def handshake():
    sock = socket.create_connection((proxy.hostname, proxy.port), timeout=5)
    sock.sendall(b"\x05\x02\x00\x02" if user and "--no-auth" not in flags else b"\x05\x01\x00")
    version, method = read(sock, 2)
    if method == 0xFF:
        raise PermissionError("no acceptable method")
    if method == 0x02:
        sock.sendall(bytes([1, len(user)]) + user + bytes([len(password)]) + password)
        if read(sock, 2)[1] != 0:
            raise PermissionError("the proxy refused the username and password")
    if "--resolve" in flags:
        address = socket.inet_aton(socket.gethostbyname(url.hostname))
        request = b"\x05\x01\x00\x01" + address
    else:
        name = url.hostname.encode()
        request = b"\x05\x01\x00\x03" + bytes([len(name)]) + name
    sock.sendall(request + port.to_bytes(2, "big"))
    reply = read(sock, 10)
    if reply[1] != 0:
        raise ConnectionError(f"the proxy answered {reply[1]}")
    return sock


attempts = 10 if "--retry" in flags else 1
for attempt in range(attempts):
    try:
        sock = handshake()
        break
    except (PermissionError, ConnectionError) as error:
        if attempt == attempts - 1:
            print(f"socks5: {error}", file=sys.stderr)
            sys.exit(1)
if url.scheme == "https":
    context = ssl.create_default_context(cafile=os.environ.get("AUTHMOCK_CA_FILE"))
    sock = context.wrap_socket(sock, server_hostname=url.hostname)
headers = f"Host: {url.hostname}:{port}\r\nConnection: close\r\n"
if "--leak" in flags:
    headers += "Proxy-Authorization: Basic " + base64.b64encode(user + b":" + password).decode() + "\r\n"
sock.sendall(f"GET {url.path or '/'} HTTP/1.1\r\n{headers}\r\n".encode())
answer = b""
while True:
    chunk = sock.recv(4096)
    if not chunk:
        break
    answer += chunk
print(answer.split(b"\r\n", 1)[0].decode())
sys.exit(0 if answer.startswith(b"HTTP/1.1 200") else 1)
