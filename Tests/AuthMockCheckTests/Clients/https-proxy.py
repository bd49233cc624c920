#!/usr/bin/env python3
"""An HTTPS-proxy client on the standard library, right by default (TLS to the proxy, verified with
AUTHMOCK_PROXY_CA_FILE or the system's CAs; Basic proxy credentials up front; absolute-form for http://,
CONNECT and TLS inside the proxy's TLS for https://), wrong in one way per flag:
  --cleartext  speaks plain HTTP to the https:// proxy (its Proxy-Authorization in the clear)
  --insecure   does not verify the proxy's certificate
  --no-hostname  verifies the proxy's chain but not that it names the proxy's host
  --leak       also sends Proxy-Authorization to the origin, inside the tunnel"""
import argparse, base64, os, socket, ssl, sys, urllib.parse

parser = argparse.ArgumentParser()
for flag in ("--cleartext", "--insecure", "--leak", "--no-hostname"):
    parser.add_argument(flag, action="store_true")
args = parser.parse_args()
url = urllib.parse.urlsplit(os.environ["AUTHMOCK_URL"])
proxy = urllib.parse.urlsplit(os.environ["AUTHMOCK_PROXY"])
credentials = f'{os.environ["AUTHMOCK_PROXY_USER"]}:{os.environ["AUTHMOCK_PROXY_PASSWORD"]}'
auth = "Proxy-Authorization: Basic " + base64.b64encode(credentials.encode()).decode() + "\r\n"
target = f"{url.hostname}:{url.port}"


class Pipe:
    """TLS over any byte stream (the proxy's TLS socket): ssl's memory BIOs, which nest."""

    def __init__(self, stream, context, hostname):
        self.stream, self.incoming, self.outgoing = stream, ssl.MemoryBIO(), ssl.MemoryBIO()
        self.tls = context.wrap_bio(self.incoming, self.outgoing, server_hostname=hostname)
        self.run(self.tls.do_handshake)

    def run(self, operation):
        while True:
            try:
                result = operation()
            except ssl.SSLWantReadError:
                self.flush()
                data = self.stream.recv(65536)
                if not data:
                    raise ConnectionError("closed during TLS")
                self.incoming.write(data)
                continue
            self.flush()
            return result

    def flush(self):
        if self.outgoing.pending:
            self.stream.sendall(self.outgoing.read())

    def sendall(self, data):
        self.run(lambda: self.tls.write(data))

    def recv(self, size):
        try:
            return self.run(lambda: self.tls.read(size))
        except (ssl.SSLZeroReturnError, ConnectionError):
            return b""


def head(stream):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = stream.recv(4096)
        if not chunk:
            break
        data += chunk
    return data


try:
    stream = socket.create_connection((proxy.hostname, proxy.port), timeout=5)
    if not args.cleartext:
        context = ssl.create_default_context(cafile=os.environ.get("AUTHMOCK_PROXY_CA_FILE") or None)
        if args.insecure:
            context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
        if args.no_hostname:
            context.check_hostname = False
        stream = context.wrap_socket(stream, server_hostname=proxy.hostname)
    if url.scheme == "http":
        stream.sendall(f"GET {url.geturl()} HTTP/1.1\r\nHost: {target}\r\n{auth}Connection: close\r\n\r\n".encode())
    else:
        stream.sendall(f"CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n{auth}\r\n".encode())
        if not head(stream).startswith(b"HTTP/1.1 200"):
            sys.exit(1)
        stream = Pipe(stream, ssl.create_default_context(cafile=os.environ["AUTHMOCK_CA_FILE"]), url.hostname)
        leaked = auth if args.leak else ""
        stream.sendall(f"GET {url.path or '/'} HTTP/1.1\r\nHost: {target}\r\n{leaked}Connection: close\r\n\r\n".encode())
    answer = head(stream)
except (OSError, ssl.SSLError) as error:
    print(f"{type(error).__name__}: {error}", file=sys.stderr)
    sys.exit(1)
print(answer.split(b"\r\n", 1)[0].decode(errors="replace"))
sys.exit(0 if answer.startswith(b"HTTP/1.1 200") else 1)
