#!/usr/bin/env python3
"""A certificate-pinning client, deliberately wrong unless run with --check-first: it trusts the CA,
sends the request, reads the answer, and only then compares the leaf's SHA-256 with {cert_sha256} — so a
request has already gone to a server its pin refuses. With --check-first it compares before sending."""
import hashlib, http.client, os, ssl, sys, urllib.parse

check_first = "--check-first" in sys.argv
url = urllib.parse.urlsplit(os.environ["AUTHMOCK_URL"])
pin = os.environ["AUTHMOCK_CERT_SHA256"]
context = ssl.create_default_context(cafile=os.environ["AUTHMOCK_CA_FILE"])

def pinned(certificate):
    return hashlib.sha256(certificate).hexdigest() == pin

for _ in range(int(os.environ.get("AUTHMOCK_REPEAT", "1"))):
    connection = http.client.HTTPSConnection(url.hostname, url.port, context=context, timeout=5)
    connection.connect()
    # Read now: http.client closes the socket once a Connection: close answer is read.
    certificate = connection.sock.getpeercert(binary_form=True)
    if check_first and not pinned(certificate):
        print("pin mismatch before sending", file=sys.stderr)
        sys.exit(1)
    connection.request("GET", url.path or "/")
    response = connection.getresponse()
    response.read()
    if not check_first and not pinned(certificate):
        print("pin mismatch after the answer", file=sys.stderr)
        sys.exit(1)
    connection.close()
    print(response.status)
    if response.status != 200:
        sys.exit(1)
