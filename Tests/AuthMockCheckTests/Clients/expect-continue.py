#!/usr/bin/env python3
"""A Basic client that sends its body (AUTHMOCK_BODY_FILE) with Expect: 100-continue over raw sockets, right
by default: when the server answers 401 instead of 100 Continue it does not send the body it held back, closes
the connection (the server still expects the body it announced) and answers the challenge on a new one.

  --send-body-anyway   after the early 401, send the announced body on the same connection, then reuse it
                       (also right: RFC 9110 §10.1.1 lets a client send the body anyway)
  --reuse-without-body send the next request on the same connection without the announced body: the server
                       reads that request as the body, and the connection is out of step (wrong)

Exits 0 on a 2xx."""
import base64, os, socket, sys, urllib.parse

flags = sys.argv[1:]
url = urllib.parse.urlsplit(os.environ["AUTHMOCK_URL"])
method = os.environ.get("AUTHMOCK_METHOD", "PUT")
body = open(os.environ["AUTHMOCK_BODY_FILE"], "rb").read()
token = base64.b64encode(f'{os.environ["AUTHMOCK_USER"]}:{os.environ["AUTHMOCK_PASSWORD"]}'.encode()).decode()


def connect():
    sock = socket.create_connection((url.hostname, url.port), timeout=5)
    return sock, sock.makefile("rb")


def response(reader):
    """The next response: status, headers (lower-case names), body."""
    status = int(reader.readline().split()[1])
    headers = {}
    while (line := reader.readline()) not in (b"\r\n", b"\n", b""):
        name, _, value = line.decode().partition(":")
        headers[name.strip().lower()] = value.strip()
    return status, headers, reader.read(int(headers.get("content-length", "0")))


def send(sock, reader, authorization=None):
    """Sends the head, waits for 100 Continue or a final answer (1 s at most, as curl does), then the body."""
    head = f"{method} {url.path or '/'} HTTP/1.1\r\nHost: {url.netloc}\r\nContent-Length: {len(body)}\r\n"
    head += "Expect: 100-continue\r\n" + (f"Authorization: {authorization}\r\n" if authorization else "") + "\r\n"
    sock.sendall(head.encode())
    sock.settimeout(1)
    try:
        status, headers, content = response(reader)
    except (socket.timeout, TimeoutError):
        status = 100
    sock.settimeout(5)
    if status == 100:
        sock.sendall(body)
        status, headers, content = response(reader)
        return status, headers, True
    return status, headers, False


sock, reader = connect()
status, headers, sent = send(sock, reader)
if status == 401 and not sent:
    if "--send-body-anyway" in flags and headers.get("connection", "").lower() != "close":
        sock.sendall(body)
    elif "--reuse-without-body" not in flags:
        sock.close()
        sock, reader = connect()
if status == 401:
    status, headers, sent = send(sock, reader, "Basic " + token)
print(status)
sys.exit(0 if 200 <= status < 300 else 1)
