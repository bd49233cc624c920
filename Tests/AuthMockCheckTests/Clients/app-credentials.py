#!/usr/bin/env python3
"""A client of a few lines that sends the credentials an application supplies itself and follows redirects by
hand, right by default and wrong on purpose with a flag.

Credentials: a header the application sets (AUTHMOCK_HEADER_NAME/VALUE), the URL's userinfo (sent as Basic),
or a netrc file (AUTHMOCK_NETRC_FILE, looked up for each request's host). By default it drops the header and
the userinfo's credentials when a redirect changes scheme, host or port, and looks netrc up afresh per host,
sending nothing for an entry without a password.

  --keep              keeps the header and the userinfo's credentials on every redirect (curl before 7.58.0,
                      CVE-2018-1000007; urllib3 before 2.2.2 for Proxy-Authorization, CVE-2024-37891)
  --strip-on-host     drops them only when the host name changes (curl before 7.83.0, CVE-2022-27776)
  --restore           puts them back on a later hop to the same host as the hop before (Go before
                      CVE-2024-45336 was fixed)
  --netrc-borrow      for a host whose netrc entry (or the default) lacks a password, sends the previous
                      host's password (curl CVE-2024-11053, CVE-2025-0167)
  --netrc-first       looks netrc up for the first host only, and sends that on every hop
  --netrc-split       looks netrc up under netloc.split(":")[0], the user of `http://a:@b/` (requests before
                      2.32.4, CVE-2024-47081)
"""
import argparse, base64, http.client, netrc, os, ssl, sys, urllib.parse

parser = argparse.ArgumentParser()
for flag in ["--keep", "--strip-on-host", "--restore", "--netrc-borrow", "--netrc-first", "--netrc-split"]:
    parser.add_argument(flag, action="store_true")
options = parser.parse_args()

context = ssl.create_default_context(cafile=os.environ.get("AUTHMOCK_CA_FILE") or None)
entries = netrc.netrc(os.environ["AUTHMOCK_NETRC_FILE"]) if os.environ.get("AUTHMOCK_NETRC_FILE") else None


def basic(user, password):
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


def from_netrc(url, previous):
    """(Authorization value, (login, password)) for the URL's host, or (None, None)."""
    host = url.netloc.split(":")[0] if options.netrc_split else url.hostname
    found = entries.authenticators(host)
    if not found:
        return None, None
    login, _, password = found
    if not password and options.netrc_borrow and previous:
        login, password = login or previous[0], previous[1]
    return (basic(login, password), (login, password)) if password else (None, None)


start = urllib.parse.urlsplit(os.environ["AUTHMOCK_URL"])
app = {}
if os.environ.get("AUTHMOCK_HEADER_NAME"):
    app[os.environ["AUTHMOCK_HEADER_NAME"]] = os.environ["AUTHMOCK_HEADER_VALUE"]
if start.username is not None:
    app["Authorization"] = basic(urllib.parse.unquote(start.username), urllib.parse.unquote(start.password or ""))
first_netrc = from_netrc(start, None)[0] if entries else None

current, previous, used, sending = start, None, None, True
for _ in range(10):
    if previous is not None:
        same_origin = (current.scheme, current.hostname, current.port) == (previous.scheme, previous.hostname, previous.port)
        if options.keep or (options.strip_on_host and current.hostname == start.hostname):
            pass
        elif options.restore and current.hostname == previous.hostname:
            sending = True
        elif not same_origin:
            sending = False
    headers = dict(app) if sending else {}
    if entries:
        value, found = (first_netrc, None) if options.netrc_first else from_netrc(current, used)
        used = found or used
        if value:
            headers["Authorization"] = value
    host, port = current.hostname, current.port
    if current.scheme == "https":
        connection = http.client.HTTPSConnection(host, port, timeout=5, context=context)
    else:
        connection = http.client.HTTPConnection(host, port, timeout=5)
    connection.request("GET", current.path or "/", headers=headers)
    response = connection.getresponse()
    response.read()
    if response.status not in (301, 302, 303, 307, 308):
        break
    previous = current
    current = urllib.parse.urlsplit(urllib.parse.urljoin(current.geturl(), response.getheader("Location")))
print(response.status)
sys.exit(0 if response.status == 200 else 1)
