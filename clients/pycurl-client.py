#!/usr/bin/env python3
"""authmock adapter for libcurl 8, through PycURL's manylinux wheel (which bundles its own libcurl).

Usage: python3 clients/pycurl-client.py          (inputs in the AUTHMOCK_* environment variables)
Version: python3 -c 'import pycurl; print(pycurl.version)'

The adapter sets libcurl's own options, the ones the `curl` profile's command line sets
(clients/curl.yaml), so that this column is "libcurl 8 beside Debian's curl 7.88":
  --anyauth -u U:P         HTTPAUTH = HTTPAUTH_ANY, USERPWD = "U:P"
  --proxy-anyauth -U U:P   PROXYAUTH = HTTPAUTH_ANY, PROXYUSERPWD = "U:P"
  -x PROXY                 PROXY
  --proxy socks5h://… -U   PROXY, PROXYUSERPWD (SOCKS5 with RFC 1929 username/password)
  -L                       FOLLOWLOCATION
  --cacert F               CAINFO
  --proxy-cacert F         PROXY_CAINFO (an https:// proxy)
  --pinnedpubkey sha256//… PINNEDPUBLICKEY
  --cert C --key K         SSLCERT, SSLKEY
  --request M              CUSTOMREQUEST
  --data-binary @F         POSTFIELDS (the file's bytes)
  -T -                     UPLOAD, READFUNCTION reading standard input (AUTHMOCK_BODY_STDIN), no SEEKFUNCTION
  --max-time T             TIMEOUT_MS
  --parallel               a CurlMulti (curl_multi_*), one easy handle per parallel fetch
  -H "Name: value"         HTTPHEADER (a header the application sets itself)
  --netrc-file F           NETRC = NETRC_OPTIONAL, NETRC_FILE = F
  --next … URL2            the same easy handle again, its URL and credentials changed
Which scheme is answered, how often, the redirects, the TLS checks and the pin comparison are
libcurl's own decisions; the adapter never looks at a challenge.
"""
import sys

import pycurl

from adapter_support import env, exit_with, read_body, report


def has_ntlm():
    return bool(pycurl.version_info()[4] & pycurl.VERSION_NTLM)


def configure(handle, url, body):
    """Set the case's inputs on one easy handle."""
    handle.setopt(pycurl.URL, url)
    # -L: libcurl follows redirects only when told to; the curl profile runs with -L.
    handle.setopt(pycurl.FOLLOWLOCATION, 1)
    # The body is read and thrown away (the status is what counts).
    handle.setopt(pycurl.WRITEFUNCTION, lambda data: None)

    user = env("AUTHMOCK_USER")
    if user is not None:
        # --anyauth: libcurl first asks without credentials, then picks the "safest" scheme
        # the server offers (https://curl.se/libcurl/c/CURLOPT_HTTPAUTH.html).
        handle.setopt(pycurl.HTTPAUTH, pycurl.HTTPAUTH_ANY)
        name = user
        # NTLM's domain goes in the user name as DOMAIN\user
        # (https://curl.se/libcurl/c/CURLOPT_USERPWD.html). The domain is an NTLM input only,
        # so it is given only when this libcurl was built with NTLM.
        if env("AUTHMOCK_DOMAIN") and has_ntlm():
            name = env("AUTHMOCK_DOMAIN") + "\\" + user
        # PycURL accepts only ASCII str; other text is passed as bytes, encoded by the caller
        # (https://pycurl.io/docs/latest/unicode.html). UTF-8, the bytes `curl -u` gets from argv.
        handle.setopt(pycurl.USERPWD, (name + ":" + env("AUTHMOCK_PASSWORD", "")).encode())

    # A header the application sets itself (https://curl.se/libcurl/c/CURLOPT_HTTPHEADER.html).
    if env("AUTHMOCK_HEADER"):
        handle.setopt(pycurl.HTTPHEADER, [env("AUTHMOCK_HEADER").encode()])
    # Credentials from a netrc file: NETRC_OPTIONAL is what `curl --netrc-file` sets
    # (https://curl.se/libcurl/c/CURLOPT_NETRC.html, https://curl.se/libcurl/c/CURLOPT_NETRC_FILE.html).
    if env("AUTHMOCK_NETRC_FILE"):
        handle.setopt(pycurl.NETRC, pycurl.NETRC_OPTIONAL)
        handle.setopt(pycurl.NETRC_FILE, env("AUTHMOCK_NETRC_FILE"))

    proxy = env("AUTHMOCK_PROXY")
    if proxy:
        handle.setopt(pycurl.PROXY, proxy)
        # NO_PROXY in the environment (often 127.0.0.1,localhost) must not bypass it.
        handle.setopt(pycurl.NOPROXY, "")
        if env("AUTHMOCK_PROXY_USER") is not None:
            handle.setopt(pycurl.PROXYAUTH, pycurl.HTTPAUTH_ANY)
            handle.setopt(pycurl.PROXYUSERPWD,
                          (env("AUTHMOCK_PROXY_USER") + ":" + env("AUTHMOCK_PROXY_PASSWORD", "")).encode())
    elif env("AUTHMOCK_SOCKS_PROXY"):
        # socks5h://HOST:PORT: libcurl takes the proxy type from the scheme, socks5h letting the proxy
        # resolve the host name (https://curl.se/libcurl/c/CURLOPT_PROXY.html); the RFC 1929 username
        # and password come from PROXYUSERPWD (https://curl.se/libcurl/c/CURLOPT_PROXYUSERPWD.html).
        handle.setopt(pycurl.PROXY, env("AUTHMOCK_SOCKS_PROXY"))
        handle.setopt(pycurl.NOPROXY, "")
        if env("AUTHMOCK_SOCKS_USER") is not None:
            handle.setopt(pycurl.PROXYUSERPWD,
                          (env("AUTHMOCK_SOCKS_USER") + ":" + env("AUTHMOCK_SOCKS_PASSWORD", "")).encode())
    else:
        # An empty PROXY disables the *_proxy environment variables libcurl otherwise reads
        # (https://curl.se/libcurl/c/CURLOPT_PROXY.html).
        handle.setopt(pycurl.PROXY, "")

    if env("AUTHMOCK_CA_FILE"):
        handle.setopt(pycurl.CAINFO, env("AUTHMOCK_CA_FILE"))
    if env("AUTHMOCK_PROXY_CA_FILE"):
        # The HTTPS proxy's own CA (https://curl.se/libcurl/c/CURLOPT_PROXY_CAINFO.html).
        handle.setopt(pycurl.PROXY_CAINFO, env("AUTHMOCK_PROXY_CA_FILE"))
    if env("AUTHMOCK_PIN_SHA256"):
        # libcurl compares the server's SPKI hash itself (https://curl.se/libcurl/c/CURLOPT_PINNEDPUBLICKEY.html).
        handle.setopt(pycurl.PINNEDPUBLICKEY, "sha256//" + env("AUTHMOCK_PIN_SHA256"))
    if env("AUTHMOCK_CLIENT_CERT"):
        handle.setopt(pycurl.SSLCERT, env("AUTHMOCK_CLIENT_CERT"))
        handle.setopt(pycurl.SSLKEY, env("AUTHMOCK_CLIENT_KEY"))

    method = env("AUTHMOCK_METHOD", "GET")
    if body is not None:
        # --data-binary: the bytes as the request body (libcurl makes it a POST)...
        handle.setopt(pycurl.POSTFIELDS, body)
    elif env("AUTHMOCK_BODY_STDIN") == "-":
        # -T -: libcurl reads the body from standard input as it sends it; with no seek callback it
        # cannot rewind it (CURLE_SEND_FAIL_REWIND when it would have to).
        handle.setopt(pycurl.UPLOAD, 1)
        handle.setopt(pycurl.READFUNCTION, sys.stdin.buffer.read)
    if method != "GET":
        # ...and --request METHOD names the method (PUT in body.put-expect-continue).
        handle.setopt(pycurl.CUSTOMREQUEST, method)

    if env("AUTHMOCK_COOKIE_JAR"):
        # The cookie cases: COOKIEFILE "" starts libcurl's cookie engine without reading a file
        # (CURLOPT_COOKIEFILE's documentation), like curl's -c.
        handle.setopt(pycurl.COOKIEFILE, "")

    if env("AUTHMOCK_TIMEOUT"):
        # --max-time: the whole transfer.
        handle.setopt(pycurl.TIMEOUT_MS, int(float(env("AUTHMOCK_TIMEOUT")) * 1000))


def second_transfer(handle):
    """The case's second transfer (AUTHMOCK_URL2) on the same easy handle, with the credentials it is
    given, as an application reusing its handle for the next transfer sets them: URL, USERPWD and
    PROXYUSERPWD changed, the rest kept (https://curl.se/libcurl/c/curl_easy_perform.html). An input
    the second transfer is not given is reset with unsetopt
    (https://pycurl.io/docs/latest/curlobject.html#pycurl.Curl.unsetopt)."""
    handle.setopt(pycurl.URL, env("AUTHMOCK_URL2"))
    user = env("AUTHMOCK_USER2")
    if user is not None:
        handle.setopt(pycurl.HTTPAUTH, pycurl.HTTPAUTH_ANY)
        if env("AUTHMOCK_DOMAIN") and has_ntlm():
            user = env("AUTHMOCK_DOMAIN") + "\\" + user
        handle.setopt(pycurl.USERPWD, (user + ":" + env("AUTHMOCK_PASSWORD2", "")).encode())
    else:
        handle.unsetopt(pycurl.USERPWD)
    if env("AUTHMOCK_PROXY"):
        if env("AUTHMOCK_PROXY_USER2") is not None:
            handle.setopt(pycurl.PROXYAUTH, pycurl.HTTPAUTH_ANY)
            handle.setopt(pycurl.PROXYUSERPWD,
                          (env("AUTHMOCK_PROXY_USER2") + ":" + env("AUTHMOCK_PROXY_PASSWORD2", "")).encode())
        else:
            handle.unsetopt(pycurl.PROXYUSERPWD)


def main():
    url = env("AUTHMOCK_URL")
    repeat = int(env("AUTHMOCK_REPEAT", "1"))
    parallel = int(env("AUTHMOCK_PARALLEL", "1"))
    body = read_body()

    codes = []
    if parallel <= 1:
        # REPEAT fetches with ONE easy handle: libcurl's documented way to do several transfers
        # ("you are even encouraged to" reuse the handle; it then reuses the connection:
        # https://curl.se/libcurl/c/curl_easy_perform.html). The handle keeps its connection
        # and its auth state, as the curl CLI keeps its connections across several URLs.
        handle = pycurl.Curl()
        configure(handle, url, body)
        for _ in range(repeat):
            handle.perform()
            codes.append(handle.getinfo(pycurl.RESPONSE_CODE))
        if env("AUTHMOCK_URL2"):
            second_transfer(handle)
            handle.perform()
            codes.append(handle.getinfo(pycurl.RESPONSE_CODE))
        handle.close()
    else:
        # PARALLEL fetches at once in one multi handle (curl --parallel does the same); the
        # multi handle's connection cache is shared by its easy handles. Each easy handle does
        # REPEAT fetches in turn.
        multi = pycurl.CurlMulti()
        left = {}
        for _ in range(parallel):
            handle = pycurl.Curl()
            configure(handle, url, body)
            multi.add_handle(handle)
            left[handle] = repeat
        errors = []
        while left:
            while multi.perform()[0] == pycurl.E_CALL_MULTI_PERFORM:
                pass
            while True:
                queued, done, failed = multi.info_read()
                for handle in done:
                    codes.append(handle.getinfo(pycurl.RESPONSE_CODE))
                for handle, number, message in failed:
                    errors.append((number, message))
                for handle in done + [f[0] for f in failed]:
                    multi.remove_handle(handle)
                    left[handle] -= 1
                    if left[handle] > 0:
                        multi.add_handle(handle)
                    else:
                        del left[handle]
                        handle.close()
                if not queued:
                    break
            if left:
                multi.select(1.0)
        if errors:
            # A fetch that ended in a libcurl error (TLS, pin, timeout...): the statuses the
            # others got, then the first error.
            report(codes)
            raise pycurl.error(*errors[0])

    return report(codes)


if __name__ == "__main__":
    # A clean failure is pycurl.error, libcurl's error code and message: perform() "Raises
    # pycurl.error exception upon failure" (https://pycurl.io/docs/latest/curlobject.html#pycurl.Curl.perform;
    # the multi interface reports a failed transfer in info_read(), raised here as the same
    # pycurl.error, https://pycurl.io/docs/latest/curlmultiobject.html). Printed by its full name.
    # Anything else is a crash (traceback, exit 70).
    exit_with(main, errors=(pycurl.error,), names={pycurl.error: "pycurl.error"})
