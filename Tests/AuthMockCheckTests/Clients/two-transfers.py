#!/usr/bin/env python3
"""Two transfers in one run, as a client with a connection pool and a credentials cache makes them: the first
to AUTHMOCK_URL as AUTHMOCK_USER, the second to AUTHMOCK_URL2 as AUTHMOCK_USER2 (without credentials when it
is unset), through AUTHMOCK_PROXY when given: a tunnel to an https origin (the proxy's Basic, up front), or, to
a plain-http origin, requests to the proxy that authenticate there with --scheme as AUTHMOCK_PROXY_USER, then
AUTHMOCK_PROXY_USER2. --scheme basic|digest|ntlm|negotiate.

Right by default: each transfer authenticates for itself, on a connection (or tunnel) of its own when the
credentials differ. The wrong ones:
  --reuse   the second transfer goes over the first's connection or tunnel without authenticating again, as if
            the connection's authentication were the transfer's (curl CVE-2014-0015, CVE-2015-3143,
            CVE-2026-1965, CVE-2026-3784);
  --carry   the second transfer starts with the first one's Authorization header, whatever its host and user
            (a credentials cache keyed by nothing)."""
import argparse, base64, ctypes, ctypes.util, hashlib, hmac, http.client, os, struct, sys, urllib.parse

parser = argparse.ArgumentParser()
parser.add_argument("--scheme", choices=["basic", "digest", "ntlm", "negotiate"], default="basic")
parser.add_argument("--reuse", action="store_true")
parser.add_argument("--carry", action="store_true")
options = parser.parse_args()
env = lambda name: os.environ.get("AUTHMOCK_" + name) or None
domain = env("DOMAIN") or ""
# Plain HTTP through the proxy: absolute-form targets, and the scheme is the proxy's.
proxied = bool(env("PROXY")) and env("URL").startswith("http:")
ask, answer_header, challenge_header = (407, "Proxy-Authorization", "Proxy-Authenticate") if proxied \
    else (401, "Authorization", "WWW-Authenticate")


def connect(url, proxy_user, proxy_password):
    parts = urllib.parse.urlsplit(url)
    if parts.scheme == "https":
        import ssl
        context = ssl.create_default_context(cafile=env("CA_FILE"))
        if env("PROXY"):
            proxy = urllib.parse.urlsplit(env("PROXY"))
            connection = http.client.HTTPSConnection(proxy.hostname, proxy.port, timeout=5, context=context)
            token = base64.b64encode(f"{proxy_user}:{proxy_password}".encode()).decode()
            connection.set_tunnel(parts.hostname, parts.port, headers={"Proxy-Authorization": "Basic " + token})
            return connection
        return http.client.HTTPSConnection(parts.hostname, parts.port, timeout=5, context=context)
    server = urllib.parse.urlsplit(env("PROXY")) if proxied else parts
    return http.client.HTTPConnection(server.hostname, server.port, timeout=5)


def send(connection, url, header=None):
    parts = urllib.parse.urlsplit(url)
    target = url if proxied else parts.path + (("?" + parts.query) if parts.query else "")
    connection.request("GET", target, headers={answer_header: header} if header else {})
    response = connection.getresponse()
    response.read()
    return response.status, response.getheader(challenge_header) or ""


def md4(data):
    out = ctypes.create_string_buffer(16)
    ctypes.CDLL(ctypes.util.find_library("crypto")).MD4(data, len(data), out)
    return out.raw


def ntlm_authenticate(challenge, user, password):
    server_challenge = challenge[24:32]
    length, offset = struct.unpack("<H", challenge[40:42])[0], struct.unpack("<I", challenge[44:48])[0]
    key = hmac.new(md4(password.encode("utf-16-le")), (user.upper() + domain).encode("utf-16-le"), "md5").digest()
    blob = b"\1\1\0\0\0\0\0\0" + b"\0" * 8 + os.urandom(8) + b"\0" * 4 + challenge[offset:offset + length] + b"\0" * 4
    proof = hmac.new(key, server_challenge + blob, "md5").digest()
    payload = [b"\0" * 24, proof + blob, domain.encode("utf-16-le"), user.encode("utf-16-le"),
               "WS".encode("utf-16-le"), b""]
    fields, at = b"", 64
    for item in payload:
        fields += struct.pack("<HHI", len(item), len(item), at)
        at += len(item)
    return b"NTLMSSP\0" + struct.pack("<I", 3) + fields + struct.pack("<I", 0x00888205) + b"".join(payload)


def digest(challenge, user, password, url):
    params = dict((k, v.strip('"')) for k, v in
                  (p.strip().split("=", 1) for p in challenge[len("Digest "):].split(",") if "=" in p))
    uri = urllib.parse.urlsplit(url).path
    h = lambda text: hashlib.md5(text.encode()).hexdigest()
    cnonce = os.urandom(8).hex()
    realm, nonce = params["realm"], params["nonce"]
    ha1, ha2 = h(f"{user}:{realm}:{password}"), h("GET:" + uri)
    answer = h(f"{ha1}:{nonce}:00000001:{cnonce}:auth:{ha2}")
    return (f'Digest username="{user}", realm="{realm}", nonce="{nonce}", uri="{uri}", '
            f'response="{answer}", qop=auth, nc=00000001, cnonce="{cnonce}"'
            + (f', opaque="{params["opaque"]}"' if "opaque" in params else ""))


def transfer(connection, url, user, password):
    """One transfer on `connection`: its status and the Authorization header that got it."""
    scheme = options.scheme
    if user is None:
        return send(connection, url)[0], None
    if scheme == "basic":
        header = "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()
        return send(connection, url, header)[0], header
    if scheme == "digest":
        status, challenge = send(connection, url)
        if status != ask or not challenge.startswith("Digest"):
            return status, None
        header = digest(challenge, user, password, url)
        return send(connection, url, header)[0], header
    token = "Negotiate" if scheme == "negotiate" else "NTLM"
    negotiate = b"NTLMSSP\0" + struct.pack("<II", 1, 0x00888207) + b"\0" * 16
    status, answer = send(connection, url, token + " " + base64.b64encode(negotiate).decode())
    raw = base64.b64decode(answer.split()[1]) if answer.startswith(token + " ") else b""
    challenge = raw[raw.find(b"NTLMSSP\0"):] if b"NTLMSSP\0" in raw else b""
    if status != ask or not challenge:
        return status, None
    header = token + " " + base64.b64encode(ntlm_authenticate(challenge, user, password)).decode()
    return send(connection, url, header)[0], header


first = connect(env("URL"), env("PROXY_USER"), env("PROXY_PASSWORD"))
who1, who2 = ("PROXY_USER", "PROXY_PASSWORD"), ("PROXY_USER2", "PROXY_PASSWORD2")
if not proxied:
    who1, who2 = ("USER", "PASSWORD"), ("USER2", "PASSWORD2")
status1, header1 = transfer(first, env("URL"), env(who1[0]), env(who1[1]))
if options.reuse:
    second = first
    status2 = send(second, env("URL2"))[0]
elif options.carry and header1:
    second = connect(env("URL2"), env("PROXY_USER2"), env("PROXY_PASSWORD2"))
    status2 = send(second, env("URL2"), header1)[0]
else:
    second = connect(env("URL2"), env("PROXY_USER2"), env("PROXY_PASSWORD2"))
    status2, _ = transfer(second, env("URL2"), env(who2[0]), env(who2[1]))
print(status1, status2)
sys.exit(0 if status1 == 200 and status2 == 200 else 1)
