#!/usr/bin/env python3
"""A cookie engine of a few lines (RFC 6265 §5.3 and §5.4) that follows redirects by hand. It connects to
127.0.0.1 whatever the URL's host and sends that host in `Host`, so that *.localhost needs no resolver. Each
flag breaks one rule of the cookie cases:
  --any-host              sends every cookie to every host (a jar that keys on nothing)
  --host-only-as-domain   sends a host-only cookie to the subdomains of its host, as if it had a Domain
  --ignore-secure         sends a Secure cookie over http://
  --prefix-path           path-matches as a string prefix (Path=/account reaches /accounting)
  --ports                 keeps a cookie to the port that set it (not wrong: RFC 6265 §8.5 does not)
  --basic                 sends Basic to the first host, up front; --basic-subdomains also to its subdomains
                          (the rule Go's net/http documents)"""
import base64, http.client, os, ssl, sys, urllib.parse

flags = set(sys.argv[1:])
jar = []


def default_path(path):
    return "/" if path.count("/") <= 1 else path[: path.rindex("/")]


def store(field, url, path):
    name, _, value = field.split(";")[0].partition("=")
    cookie = {"name": name.strip(), "value": value.strip(), "host": url.hostname, "port": url.port,
              "domain": None, "path": default_path(path), "secure": False}
    for attribute in field.split(";")[1:]:
        key, _, argument = attribute.strip().partition("=")
        if key.lower() == "domain" and argument:
            cookie["domain"] = argument.lstrip(".").lower()
        elif key.lower() == "path" and argument.startswith("/"):
            cookie["path"] = argument
        elif key.lower() == "secure":
            cookie["secure"] = True
    jar.append(cookie)


def domain_match(host, domain):
    return host == domain or host.endswith("." + domain)


def path_match(path, cookie_path):
    if path == cookie_path or "--prefix-path" in flags and path.startswith(cookie_path):
        return True
    return path.startswith(cookie_path) and (cookie_path.endswith("/") or path[len(cookie_path)] == "/")


def sends(cookie, url, path):
    host = url.hostname
    if "--any-host" not in flags:
        if cookie["domain"] is not None and not domain_match(host, cookie["domain"]):
            return False
        if cookie["domain"] is None and "--host-only-as-domain" in flags and not domain_match(host, cookie["host"]):
            return False
        if cookie["domain"] is None and "--host-only-as-domain" not in flags and host != cookie["host"]:
            return False
    if "--ports" in flags and url.port != cookie["port"]:
        return False
    if cookie["secure"] and url.scheme != "https" and "--ignore-secure" not in flags:
        return False
    return path_match(path, cookie["path"])


first = urllib.parse.urlsplit(os.environ["AUTHMOCK_URL"])
token = base64.b64encode(f'{os.environ.get("AUTHMOCK_USER")}:{os.environ.get("AUTHMOCK_PASSWORD")}'.encode()).decode()
context = ssl.create_default_context(cafile=os.environ.get("AUTHMOCK_CA_FILE") or None)
url = first
for _ in range(10):
    path = url.path or "/"
    if url.scheme == "https":
        connection = http.client.HTTPSConnection("127.0.0.1", url.port, context=context, timeout=5)
    else:
        connection = http.client.HTTPConnection("127.0.0.1", url.port, timeout=5)
    headers = {"Host": url.netloc}
    cookies = [f'{c["name"]}={c["value"]}' for c in jar if sends(c, url, path)]
    if cookies:
        headers["Cookie"] = "; ".join(cookies)
    if ("--basic" in flags and url.netloc == first.netloc) or (
        "--basic-subdomains" in flags and domain_match(url.hostname, first.hostname)
    ):
        headers["Authorization"] = "Basic " + token
    connection.request("GET", path, headers=headers)
    response = connection.getresponse()
    response.read()
    for field in response.headers.get_all("Set-Cookie") or []:
        store(field, url, path)
    if response.status not in (301, 302, 303, 307, 308):
        break
    url = urllib.parse.urlsplit(urllib.parse.urljoin(url.geturl(), response.getheader("Location")))
print(response.status)
sys.exit(0 if response.status == 200 else 1)
