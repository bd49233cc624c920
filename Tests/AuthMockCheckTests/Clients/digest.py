#!/usr/bin/env python3
"""A minimal Digest client (RFC 7616) that is right by default, with flags for the mistakes clients shipped:

  --sha256-as-sha512-256   hash with SHA-256 and call it SHA-512-256 (curl before pull 12897)
  --no-qop                 answer without qop although the server offered some (an RFC 2069 answer)
  --keep-uri               after a redirect, re-send the answer computed for the first URI (libwww-perl 131)
  --stale-forever          retry on stale=true without a bound (libwww-perl 166)
  --cut N                  keep only N characters of the nonce and realm (curl's 1,023)
  --qop-auth               answer qop=auth whatever was offered (an auth-int-only challenge included)
  --no-stale-retry         take stale=true as a refusal and give up (wget, requests' HTTPDigestAuth)
  --verify-rspauth         check Authentication-Info's rspauth (RFC 7616 §3.5); a wrong one ends the run (exit 1)
  --rspauth-with-method    verify rspauth with the method in A2 ("GET:uri", as in the request's response)
  --ignore-nextnonce       fetch again without credentials instead of with Authentication-Info's nextnonce

It fetches AUTHMOCK_REPEAT times (the next fetch answers with the nextnonce it was given, if any), follows
same-origin redirects and exits 0 when every fetch ends in a 2xx."""
import hashlib, http.client, os, re, sys, urllib.parse

flags = sys.argv[1:]
cut = int(flags[flags.index("--cut") + 1]) if "--cut" in flags else None
hashes = {"MD5": hashlib.md5, "SHA-256": hashlib.sha256, "SHA-512-256": lambda b: hashlib.new("sha512_256", b)}
if "--sha256-as-sha512-256" in flags:
    hashes["SHA-512-256"] = hashlib.sha256
user, password = os.environ["AUTHMOCK_USER"], os.environ["AUTHMOCK_PASSWORD"]
url = urllib.parse.urlsplit(os.environ["AUTHMOCK_URL"])
connection = http.client.HTTPConnection(url.hostname, url.port, timeout=5)


def params(challenge):
    return {k.lower(): v1 if v1 else v2 for k, v1, v2 in re.findall(r'(\w+)=(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))', challenge)}


expected = {}  # the rspauth the last answer should earn


def answer(challenge, uri):
    p = params(challenge)
    algorithm = p.get("algorithm", "MD5")
    nonce, realm = p["nonce"][:cut], p["realm"][:cut]
    h = lambda text: hashes[algorithm](text.encode()).hexdigest()
    ha1, ha2 = h(f"{user}:{realm}:{password}"), h(f"GET:{uri}")
    offered = [q.strip() for q in p.get("qop", "").split(",") if q.strip()]
    fields = f'username="{user}", realm="{realm}", nonce="{nonce}", uri="{uri}", algorithm={algorithm}'
    if offered and "--no-qop" not in flags:
        qop = "auth" if "auth" in offered or "--qop-auth" in flags else "auth-int"
        if qop == "auth-int":
            ha2 = h(f"GET:{uri}:{h('')}")
        response = h(f"{ha1}:{nonce}:00000001:0a4f113b:{qop}:{ha2}")
        fields += f', qop={qop}, nc=00000001, cnonce="0a4f113b"'
        a2 = f"GET:{uri}" if "--rspauth-with-method" in flags else f":{uri}"
        expected["rspauth"] = h(f"{ha1}:{nonce}:00000001:0a4f113b:{qop}:{h(a2)}")
    else:
        response = h(f"{ha1}:{nonce}:{ha2}")
    return f'Digest {fields}, response="{response}"'


def fetch(uri, authorization):
    """One fetch: answers challenges (and stale ones, a bounded number of times); the response and the
    challenge that was answered, with Authentication-Info's nextnonce in place of the nonce when given."""
    stale, challenge = 0, None
    for _ in range(60):
        headers = {"Authorization": authorization} if authorization else {}
        connection.request("GET", uri, headers=headers)
        response = connection.getresponse()
        response.read()
        if response.status in (301, 302, 303, 307, 308):
            uri = urllib.parse.urlsplit(response.getheader("Location")).path or "/"
            if "--keep-uri" not in flags:
                authorization = None
            continue
        if response.status != 401:
            break
        challenge = next((c for c in response.headers.get_all("WWW-Authenticate") or [] if c.lower().startswith("digest")), None)
        if challenge is None:
            break
        if authorization and ("stale=true" not in challenge.lower().replace(" ", "") or "--no-stale-retry" in flags):
            break  # the answer was refused: give up
        if authorization:
            stale += 1
            if stale > 3 and "--stale-forever" not in flags:
                break
        authorization = answer(challenge, uri)
    info = params(response.getheader("Authentication-Info") or "")
    if "--verify-rspauth" in flags and "rspauth" in info and info["rspauth"] != expected.get("rspauth"):
        print("Authentication-Info: the rspauth does not prove the server knows the password", file=sys.stderr)
        sys.exit(1)
    if "nextnonce" in info and "--ignore-nextnonce" not in flags and (challenge or fetch.last):
        fetch.last = re.sub(r'nonce="[^"]*"', f'nonce="{info["nextnonce"]}"', challenge or fetch.last)
    else:
        fetch.last = None
    return response


fetch.last = None
uri, ok = url.path or "/", True
for _ in range(int(os.environ.get("AUTHMOCK_REPEAT") or "1")):
    response = fetch(uri, answer(fetch.last, uri) if fetch.last else None)
    print(response.status)
    ok = ok and 200 <= response.status < 300
sys.exit(0 if ok else 1)
