#!/usr/bin/env python3
"""authmock adapter for aiohttp (>= 3.14), through one ClientSession.

Usage: python3 clients/aiohttp-client.py --auth basic|basicauth|digest
  basic      the Basic authentication aiohttp 3.14's documentation teaches: the session's default
             headers={"Authorization": aiohttp.encode_basic_auth(user, password)}, and for the
             proxy proxy_headers={"Proxy-Authorization": aiohttp.encode_basic_auth(...)}
             (profile `aiohttp`)
  basicauth  the API the documentation taught before 3.14, deprecated since (still in wide use):
             ClientSession(auth=aiohttp.BasicAuth(user, password), proxy_auth=aiohttp.BasicAuth(...))
             (profile `aiohttp-basicauth`)
  digest     ClientSession(middlewares=(aiohttp.DigestAuthMiddleware(user, password),)), the proxy
             as with `basic` (profile `aiohttp-digest`)
Inputs come from the AUTHMOCK_* environment variables. The adapter only maps them onto
aiohttp's own options: which credentials to send, answering a challenge, redirects and TLS
checks are aiohttp's (and the ssl module's) decisions.
Version: python3 -c 'import aiohttp; print(aiohttp.__version__)'
"""
import asyncio
import ssl
import warnings

import aiohttp

from adapter_support import auth_option, env, exit_with, in_tasks, read_body, report

# aiohttp 3.14 deprecates BasicAuth and the auth=/proxy_auth= arguments (aio-libs/aiohttp
# pull 12499); they still work, and `--auth basicauth` uses them. Keep the warning off stderr,
# where only our own one-line error belongs.
warnings.simplefilter("ignore", DeprecationWarning)


async def run(auth_kind):
    url = env("AUTHMOCK_URL")
    method = env("AUTHMOCK_METHOD", "GET")
    repeat = int(env("AUTHMOCK_REPEAT", "1"))
    parallel = int(env("AUTHMOCK_PARALLEL", "1"))

    # trust_env is False by default: no *_PROXY, NO_PROXY or .netrc from the environment.
    options = {}
    # Options of each request (session.request): TLS, and the proxy with `basic`/`digest`.
    per_request = {}

    user, password = env("AUTHMOCK_USER"), env("AUTHMOCK_PASSWORD", "")
    if user is not None:
        if auth_kind == "digest":
            # aiohttp's challenge-driven Digest (3.12+): a client middleware that answers a
            # 401 Digest challenge and then reuses it for later requests to that origin
            # (https://docs.aiohttp.org/en/stable/client_reference.html#aiohttp.DigestAuthMiddleware).
            options["middlewares"] = (aiohttp.DigestAuthMiddleware(user, password),)
        elif auth_kind == "basicauth":
            # The docs' "Authentication" section before 3.14: a BasicAuth on the session, sent up
            # front on every request (https://docs.aiohttp.org/en/v3.13.5/client_advanced.html#authentication);
            # deprecated since 3.14 (aio-libs/aiohttp pull 12499). BasicAuth encodes latin-1 by default.
            options["auth"] = aiohttp.BasicAuth(user, password)
        else:
            # The docs' "Authentication" section since 3.14: the Authorization header built with
            # encode_basic_auth (UTF-8 by default) in the session's default headers, sent up front
            # on every request (https://docs.aiohttp.org/en/stable/client_advanced.html#authentication,
            # https://docs.aiohttp.org/en/stable/client_reference.html#aiohttp.encode_basic_auth).
            options["headers"] = {"Authorization": aiohttp.encode_basic_auth(user, password)}
    elif env("AUTHMOCK_NETRC_FILE"):
        # Credentials from ~/.netrc: with trust_env=True a session reads it (HOME is the case's {home},
        # the profile's env:), as ClientSession's reference says for trust_env
        # (https://docs.aiohttp.org/en/stable/client_reference.html#aiohttp.ClientSession).
        options["trust_env"] = True
    # A header the application sets itself, on the request (headers=).
    if env("AUTHMOCK_HEADER_NAME"):
        per_request["headers"] = {env("AUTHMOCK_HEADER_NAME"): env("AUTHMOCK_HEADER_VALUE", "")}
    # aiohttp has no NTLM: AUTHMOCK_DOMAIN is ignored.

    proxy = env("AUTHMOCK_PROXY")
    if proxy:
        if auth_kind == "basicauth":
            # The docs' proxy support before 3.14: a session's default proxy= with
            # proxy_auth=BasicAuth, sent up front as Basic on plain requests and on CONNECT
            # (https://docs.aiohttp.org/en/v3.13.5/client_advanced.html#proxy-support).
            options["proxy"] = proxy
            if env("AUTHMOCK_PROXY_USER") is not None:
                options["proxy_auth"] = aiohttp.BasicAuth(env("AUTHMOCK_PROXY_USER"),
                                                          env("AUTHMOCK_PROXY_PASSWORD", ""))
        else:
            # The docs' proxy support since 3.14 (https://docs.aiohttp.org/en/stable/client_advanced.html#proxy-support):
            # proxy= and proxy_headers={"Proxy-Authorization": encode_basic_auth(...)} on the
            # request, as its first example does. (Its "default proxy" example passes
            # proxy_headers= to ClientSession, which 3.14.5's ClientSession does not take:
            # TypeError.)
            per_request["proxy"] = proxy
            if env("AUTHMOCK_PROXY_USER") is not None:
                per_request["proxy_headers"] = {"Proxy-Authorization": aiohttp.encode_basic_auth(
                    env("AUTHMOCK_PROXY_USER"), env("AUTHMOCK_PROXY_PASSWORD", ""))}

    # TLS, as the docs' "SSL control for TCP sockets" shows: an SSLContext passed as ssl=.
    if env("AUTHMOCK_CA_FILE") or env("AUTHMOCK_CLIENT_CERT"):
        # With cafile, create_default_context trusts only that bundle; without it, the
        # system store. Hostname checking stays on (the default).
        context = ssl.create_default_context(cafile=env("AUTHMOCK_CA_FILE"))
        if env("AUTHMOCK_CLIENT_CERT"):
            context.load_cert_chain(env("AUTHMOCK_CLIENT_CERT"), env("AUTHMOCK_CLIENT_KEY"))
        per_request["ssl"] = context
    # AUTHMOCK_PIN_SHA256 is ignored: aiohttp.Fingerprint pins the SHA-256 of the leaf
    # certificate's DER, not of its public key (SPKI), so a key pin cannot be given to it.
    if env("AUTHMOCK_CERT_SHA256"):
        # A certificate pin, as the docs' "SSL control for TCP sockets" shows it:
        # ssl=aiohttp.Fingerprint(digest), the binary SHA-256 of the leaf's DER
        # (https://docs.aiohttp.org/en/stable/client_advanced.html#ssl-control-for-tcp-sockets).
        # ssl= takes one of a context or a fingerprint: with a Fingerprint aiohttp connects with
        # an unverified context (TCPConnector._get_ssl_context) and the fingerprint alone decides,
        # checked after the handshake and before the request (ServerFingerprintMismatch); the CA
        # file and the client certificate are not used then.
        per_request["ssl"] = aiohttp.Fingerprint(bytes.fromhex(env("AUTHMOCK_CERT_SHA256")))

    if env("AUTHMOCK_TIMEOUT"):
        # A total bound on each request (connect, send, read); without it aiohttp's default
        # (300 s total) applies.
        options["timeout"] = aiohttp.ClientTimeout(total=float(env("AUTHMOCK_TIMEOUT")))

    body = read_body()

    # One ClientSession for every fetch: one connection pool and one middleware (for Digest:
    # its last challenge and nonce count), as aiohttp's docs tell users to do.
    async with aiohttp.ClientSession(**options) as session:
        async def fetch():
            # aiohttp follows redirects by default (allow_redirects=True).
            async with session.request(method, url, data=body, **per_request) as response:
                await response.read()
                return response.status

        # PARALLEL concurrent tasks on the one session, each doing REPEAT sequential fetches.
        codes = await in_tasks(fetch, repeat, parallel)

    return report(codes)


def main():
    return asyncio.run(run(auth_option(("basic", "basicauth", "digest"))))


if __name__ == "__main__":
    # A clean failure is what aiohttp documents raising: aiohttp.ClientError, "Base class for all
    # client specific exceptions" (https://docs.aiohttp.org/en/stable/client_reference.html#client-exceptions),
    # and asyncio.TimeoutError for a ClientTimeout that ran out
    # (https://docs.aiohttp.org/en/stable/client_quickstart.html#timeouts). Anything else is a
    # crash (traceback, exit 70).
    exit_with(main, errors=(aiohttp.ClientError, asyncio.TimeoutError))
