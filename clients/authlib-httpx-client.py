#!/usr/bin/env python3
"""authmock adapter for Authlib's httpx integration (Authlib 1.9): httpx_client.AsyncOAuth2Client.

Usage: python3 clients/authlib-httpx-client.py
Inputs come from the AUTHMOCK_* environment variables. The adapter only maps them onto Authlib's own
API, written as its pages teach: "OAuth for HTTPX" (https://docs.authlib.org/en/latest/client/httpx.html,
"Async OAuth 2.0": the OAuth 2 Session API with `await`) and "OAuth 2 Session"
(https://docs.authlib.org/en/latest/client/oauth2.html): "OAuth2Session for Password" for the token,
"Refresh & Auto Update Token" (token_endpoint=, and an update_token function) for renewing it. When to
refresh, which token to send and how, redirects and TLS checks are Authlib's and httpx's decisions; the
adapter retries nothing.
Version: python3 -c 'import authlib; print(authlib.__version__)'
"""
import asyncio
import ssl

import httpx
from authlib.integrations.httpx_client import AsyncOAuth2Client, OAuthError

from adapter_support import env, exit_with, in_tasks, report


async def run():
    url = env("AUTHMOCK_URL")
    repeat = int(env("AUTHMOCK_REPEAT", "1"))
    parallel = int(env("AUTHMOCK_PARALLEL", "1"))
    token_url = env("AUTHMOCK_TOKEN_URL")

    # AsyncOAuth2Client is an httpx.AsyncClient: Authlib passes these keyword arguments on to it.
    options = {
        # Ignore *_PROXY, NO_PROXY, SSL_CERT_FILE and .netrc from the environment: only the case's
        # inputs count.
        "trust_env": False,
        # httpx does not follow redirects unless asked to; a user who fetches a URL that may redirect
        # turns it on, as httpx's docs show (https://www.python-httpx.org/compatibility/#redirects).
        "follow_redirects": True,
    }
    if env("AUTHMOCK_CA_FILE"):
        # httpx 0.28's way (https://www.python-httpx.org/advanced/ssl/): an SSLContext as `verify`,
        # trusting only that bundle, for the resource and the token endpoint alike.
        options["verify"] = ssl.create_default_context(cafile=env("AUTHMOCK_CA_FILE"))

    if token_url:
        async def update_token(token, refresh_token=None, access_token=None):
            # The docs' update_token saves the new token in the application's store, found by the
            # refresh token it replaces; the async client awaits it. The client itself already holds
            # the new token (Authlib sets it before calling this); nothing else reads it in this run.
            pass

        # "Automatically refreshing tokens": created with token_endpoint, the client refreshes the token
        # when it has expired; update_token is told the new one. The client authenticates at the token
        # endpoint with client_secret_basic, Authlib's default ("Client Authentication").
        client = AsyncOAuth2Client(env("AUTHMOCK_CLIENT_ID"), env("AUTHMOCK_CLIENT_SECRET"),
                                   token_endpoint=token_url, update_token=update_token, **options)
    elif env("AUTHMOCK_TOKEN"):
        # "Access Protected Resources": a token the application already holds, a dict with access_token and
        # token_type. With no expires_at it never expires on Authlib's clock.
        client = AsyncOAuth2Client(token={"access_token": env("AUTHMOCK_TOKEN"), "token_type": "Bearer"}, **options)
    else:
        # No token given (the tls.* cases): the client has none to send.
        client = AsyncOAuth2Client(**options)

    # "Close Client Hint": `async with` closes the client when the fetches are done. One client for every
    # fetch: one connection pool, one token.
    async with client:
        if token_url:
            # "OAuth2Session for Password", with await: fetch_token(token_endpoint, username=, password=).
            await client.fetch_token(token_url, username=env("AUTHMOCK_USER", ""),
                                     password=env("AUTHMOCK_PASSWORD", ""))

        async def fetch():
            if not client.token:
                # AsyncOAuth2Client.request raises MissingTokenError without a token unless told to send
                # the request without one (withhold_token=True, how Authlib sends its own token requests;
                # only request() takes it, httpx's get() passes no extra keyword on).
                return (await client.request("GET", url, withhold_token=True)).status_code
            # The client adds Authorization: Bearer and, when the token has expired by its expires_at (less
            # the leeway, 60 s), refreshes first, under a lock shared by the client's tasks.
            return (await client.get(url)).status_code

        # PARALLEL concurrent tasks on the one client, each doing REPEAT sequential fetches.
        codes = await in_tasks(fetch, repeat, parallel)

    return report(codes)


def main():
    return asyncio.run(run())


if __name__ == "__main__":
    # A clean failure is what httpx documents raising for a request, httpx.HTTPError
    # (https://www.python-httpx.org/exceptions/), and Authlib's OAuthError, which its httpx integration
    # exports and raises for an error answer of the token endpoint (parse_response_token) and, as its
    # subclasses InvalidTokenError and MissingTokenError, for a token it cannot use. Anything else is a
    # crash (traceback, exit 70).
    exit_with(main, errors=(httpx.HTTPError, OAuthError))
