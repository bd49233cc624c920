#!/usr/bin/env python3
"""A small Bearer and OAuth 2 client (stdlib only) for the bearer.* and oauth.* cases: right by default,
with one rule broken per flag.

With AUTHMOCK_TOKEN it sends that token (RFC 6750 §2.1); with AUTHMOCK_TOKEN_URL it gets a token with the
password grant (Basic client authentication) and, on a 401 error="invalid_token", refreshes once (one
refresh at a time for all threads: a thread whose token was renewed meanwhile takes the new one), keeps the
rotated refresh token and retries once. It follows redirects itself, keeping Authorization only on the same
origin. It fetches AUTHMOCK_URL AUTHMOCK_REPEAT times in a row in AUTHMOCK_PARALLEL threads.

Wrong on purpose:
  --token-in-query        the token goes in ?access_token= instead of the header
  --retry-401 N           re-sends the refused token N times (no renewal)
  --retry-403 N           re-sends a token refused for its scope N times
  --keep-auth-on-redirect Authorization follows every redirect
  --send-refresh-token    sends the refresh token to the resource as if it were the access token
  --no-refresh            gives up on invalid_token
  --no-single-flight      every thread that meets invalid_token refreshes
  --refresh-loop N        refreshes up to N times while the refresh is refused
  --keep-old-refresh      ignores the rotated refresh token and presents the first one again
  --refresh-on-any-401    refreshes on a 401 whatever its challenge says (informational, not wrong)
"""
import base64, http.client, json, os, ssl, sys, threading, urllib.parse

args = sys.argv[1:]


def flag(name):
    return name in args


def number(name, default):
    return int(args[args.index(name) + 1]) if name in args else default


context = ssl.create_default_context(cafile=os.environ.get("AUTHMOCK_CA_FILE"))


def send(method, url, headers, body=None):
    parts = urllib.parse.urlsplit(url)
    if parts.scheme == "https":
        connection = http.client.HTTPSConnection(parts.hostname, parts.port, timeout=5, context=context)
    else:
        connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=5)
    target = parts.path or "/"
    if parts.query:
        target += "?" + parts.query
    connection.request(method, target, body=body, headers=headers)
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, dict((k.lower(), v) for k, v in response.getheaders()), data


class Tokens:
    def __init__(self):
        self.lock = threading.Lock()
        self.access = os.environ.get("AUTHMOCK_TOKEN")
        self.refresh = None
        self.first_refresh = None
        self.generation = 0
        self.endpoint = os.environ.get("AUTHMOCK_TOKEN_URL")
        client = f'{os.environ.get("AUTHMOCK_CLIENT_ID", "")}:{os.environ.get("AUTHMOCK_CLIENT_SECRET", "")}'
        self.client = "Basic " + base64.b64encode(client.encode()).decode()

    def grant(self, form):
        status, _, data = send("POST", self.endpoint, {
            "Authorization": self.client, "Content-Type": "application/x-www-form-urlencoded",
        }, urllib.parse.urlencode(form))
        if status != 200:
            return False
        answer = json.loads(data)
        self.access = answer["access_token"]
        if "refresh_token" in answer and not (flag("--keep-old-refresh") and self.refresh):
            self.refresh = answer["refresh_token"]
        self.first_refresh = self.first_refresh or self.refresh
        self.generation += 1
        return True

    def login(self):
        if self.endpoint:
            self.grant({"grant_type": "password", "username": os.environ["AUTHMOCK_USER"],
                        "password": os.environ["AUTHMOCK_PASSWORD"]})

    def renew(self, seen):
        """A new access token after `seen` was refused; False when the refresh was refused."""
        with self.lock:
            if self.generation != seen and not flag("--no-single-flight"):
                return True
            for _ in range(number("--refresh-loop", 1)):
                if self.refresh and self.grant({"grant_type": "refresh_token", "refresh_token": self.refresh}):
                    return True
            return False


def fetch(tokens, url, first=None):
    """One fetch; `first` is the (generation, access token) to start with, taken before the threads' start."""
    tries, scope_tries = number("--retry-401", 0), number("--retry-403", 0)
    renewed = False
    origin = urllib.parse.urlsplit(url)[:2]
    while True:
        generation, token = first or (tokens.generation, tokens.access)
        first = None
        if flag("--send-refresh-token") and tokens.refresh:
            token = tokens.refresh
        headers, target = {}, url
        same = urllib.parse.urlsplit(url)[:2] == origin
        if token and (same or flag("--keep-auth-on-redirect")):
            if flag("--token-in-query"):
                target += ("&" if "?" in url else "?") + "access_token=" + urllib.parse.quote(token)
            else:
                headers["Authorization"] = "Bearer " + token
        status, response_headers, _ = send("GET", target, headers)
        if status in (301, 302, 303, 307, 308) and "location" in response_headers:
            url = urllib.parse.urljoin(url, response_headers["location"])
            continue
        challenge = response_headers.get("www-authenticate", "")
        if status == 401 and tries > 0:
            tries -= 1
            continue
        if status == 403 and scope_tries > 0:
            scope_tries -= 1
            continue
        expired = 'error="invalid_token"' in challenge or flag("--refresh-on-any-401")
        if status == 401 and expired and tokens.endpoint and not renewed \
                and not flag("--no-refresh"):
            renewed = True
            if tokens.renew(generation):
                continue
        return status


def main():
    tokens = Tokens()
    tokens.login()
    url = os.environ["AUTHMOCK_URL"]
    codes, lock = [], threading.Lock()

    parallel = int(os.environ.get("AUTHMOCK_PARALLEL", "1"))
    start = threading.Barrier(parallel)

    def worker():
        # Every thread's first request carries the token it held when they started, as requests already in
        # flight do: parallel requests meet an expired token at once whatever the scheduling.
        first = (tokens.generation, tokens.access)
        start.wait()
        for _ in range(int(os.environ.get("AUTHMOCK_REPEAT", "1"))):
            status = fetch(tokens, url, first)
            first = None
            with lock:
                codes.append(status)

    threads = [threading.Thread(target=worker) for _ in range(parallel)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print(" ".join(map(str, codes)))
    return 0 if codes and all(200 <= code < 300 for code in codes) else 1


sys.exit(main())
