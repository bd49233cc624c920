#!/usr/bin/env python3
"""A Basic client that streams its body from standard input (AUTHMOCK_BODY_STDIN is "-"), chunked, as it
reads it: on the 401 it answers with its credentials and streams what is left of its input. Wrong by default:
the input was read once, so the credentialed request goes out with an empty body.

  --buffer    read the whole input first and send it, with a Content-Length, both times (right)
  --give-up   on the 401, report that the body cannot be sent again and exit 1 (right)

Exits 0 on a 2xx."""
import base64, http.client, os, sys, urllib.parse

flags = sys.argv[1:]
assert os.environ.get("AUTHMOCK_BODY_STDIN") == "-", "the body must come on standard input"
url = urllib.parse.urlsplit(os.environ["AUTHMOCK_URL"])
method = os.environ.get("AUTHMOCK_METHOD", "PUT")
token = base64.b64encode(f'{os.environ["AUTHMOCK_USER"]}:{os.environ["AUTHMOCK_PASSWORD"]}'.encode()).decode()
stream = sys.stdin.buffer
body = stream.read() if "--buffer" in flags else None


def chunks():
    while chunk := stream.read(8192):
        yield chunk


def put(headers):
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=10)
    if body is not None:
        connection.request(method, url.path or "/", body=body, headers=headers)
    else:
        connection.request(method, url.path or "/", body=chunks(), headers=headers, encode_chunked=True)
    response = connection.getresponse()
    response.read()
    connection.close()
    return response.status


status = put({})
if status == 401:
    if "--give-up" in flags:
        print("401, and the body came from a stream that cannot be replayed", file=sys.stderr)
        sys.exit(1)
    status = put({"Authorization": "Basic " + token})
print(status)
sys.exit(0 if 200 <= status < 300 else 1)
