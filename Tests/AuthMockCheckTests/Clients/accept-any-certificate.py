#!/usr/bin/env python3
"""A deliberately wrong client: trusts any certificate, any name and any protocol version down to TLS 1.0,
and fetches the URL {repeat} times, as `curl -k` with old protocols allowed would."""
import http.client, os, ssl, sys, urllib.parse

url = urllib.parse.urlsplit(os.environ["AUTHMOCK_URL"])
context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
context.check_hostname = False
context.verify_mode = ssl.CERT_NONE
context.minimum_version = ssl.TLSVersion.TLSv1
context.set_ciphers("ALL:@SECLEVEL=0")
status = 0
for _ in range(int(os.environ.get("AUTHMOCK_REPEAT", "1"))):
    connection = http.client.HTTPSConnection(url.hostname, url.port, context=context, timeout=5)
    connection.request("GET", url.path or "/")
    response = connection.getresponse()
    response.read()
    connection.close()
    status = response.status
    print(status)
sys.exit(0 if status == 200 else 1)
