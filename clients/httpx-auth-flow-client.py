#!/usr/bin/env python3
"""authmock adapter for httpx (0.28) with a custom httpx.Auth: the refresh example of httpx's docs.

Usage: python3 clients/httpx-auth-flow-client.py
Inputs come from the AUTHMOCK_* environment variables. The authentication classes below are the
examples of httpx's "Custom authentication schemes"
(https://www.python-httpx.org/advanced/authentication/#custom-authentication-schemes) as written there,
changed only to send `Authorization: Bearer` instead of the example's `X-Authentication`, and to fill in
the example's two elided methods with the token endpoint's form (RFC 6749 §6). Everything the example
leaves out stays out: it does not look at the refresh answer's status, and nothing makes concurrent
requests share one refresh. The password grant that gets the first tokens is a plain form POST on the
same client (httpx's quickstart); redirects and TLS checks are httpx's.
Version: python3 -c 'import httpx; print(httpx.__version__)'
"""
import asyncio
import ssl

import httpx

from adapter_support import env, exit_with, in_tasks, report


class BearerAuth(httpx.Auth):
    """The page's first example, for a token the application already holds: a header on every request."""

    def __init__(self, token):
        self.token = token

    def auth_flow(self, request):
        request.headers["Authorization"] = f"Bearer {self.token}"
        yield request


class RefreshingBearerAuth(httpx.Auth):
    """The page's `requires_response_body` example: on a 401, refresh the tokens and resend the request."""

    requires_response_body = True

    def __init__(self, access_token, refresh_token, refresh_url, client_id, client_secret):
        self.access_token = access_token
        self.refresh_token = refresh_token
        self.refresh_url = refresh_url
        self.client_id = client_id
        self.client_secret = client_secret

    def auth_flow(self, request):
        request.headers["Authorization"] = f"Bearer {self.access_token}"
        response = yield request

        if response.status_code == 401:
            # If the server issues a 401 response, then issue a request to
            # refresh tokens, and resend the request.
            refresh_response = yield self.build_refresh_request()
            self.update_tokens(refresh_response)

            request.headers["Authorization"] = f"Bearer {self.access_token}"
            yield request

    def build_refresh_request(self):
        # Return an `httpx.Request` for refreshing tokens: RFC 6749 §6's form. A request an auth flow
        # yields goes out as it is, so the client authenticates in the form (client_id and client_secret,
        # RFC 6749 §2.3.1).
        return httpx.Request("POST", self.refresh_url, data={
            "grant_type": "refresh_token",
            "refresh_token": self.refresh_token,
            "client_id": self.client_id,
            "client_secret": self.client_secret,
        })

    def update_tokens(self, response):
        # Update the `.access_token` and `.refresh_token` tokens
        # based on a refresh response.
        data = response.json()
        self.access_token = data["access_token"]
        self.refresh_token = data["refresh_token"]


async def run():
    url = env("AUTHMOCK_URL")
    repeat = int(env("AUTHMOCK_REPEAT", "1"))
    parallel = int(env("AUTHMOCK_PARALLEL", "1"))
    token_url = env("AUTHMOCK_TOKEN_URL")

    options = {
        # Ignore *_PROXY, NO_PROXY, SSL_CERT_FILE and .netrc from the environment: only the case's
        # inputs count.
        "trust_env": False,
        # httpx does not follow redirects unless asked to; a user who fetches a URL that may redirect
        # turns it on, as httpx's docs show (https://www.python-httpx.org/compatibility/#redirects).
        # Redirects are followed inside the request the auth flow sent, and httpx drops Authorization
        # when the origin changes (Client._redirect_headers).
        "follow_redirects": True,
    }
    if env("AUTHMOCK_CA_FILE"):
        # httpx 0.28's way (https://www.python-httpx.org/advanced/ssl/): an SSLContext as `verify`,
        # trusting only that bundle.
        options["verify"] = ssl.create_default_context(cafile=env("AUTHMOCK_CA_FILE"))

    # One AsyncClient for every fetch (https://www.python-httpx.org/async/), and one auth object: the
    # tokens live in it.
    async with httpx.AsyncClient(**options) as client:
        auth = None
        if token_url:
            # The first tokens: the password grant, a form POST ("Sending Form Encoded Data",
            # https://www.python-httpx.org/quickstart/) with the client's credentials as Basic, httpx's
            # auth=(user, password) shorthand; raise_for_status() turns a refusal into httpx's
            # HTTPStatusError.
            response = await client.post(token_url, data={
                "grant_type": "password",
                "username": env("AUTHMOCK_USER", ""),
                "password": env("AUTHMOCK_PASSWORD", ""),
            }, auth=(env("AUTHMOCK_CLIENT_ID", ""), env("AUTHMOCK_CLIENT_SECRET", "")))
            response.raise_for_status()
            tokens = response.json()
            auth = RefreshingBearerAuth(tokens["access_token"], tokens.get("refresh_token"), token_url,
                                        env("AUTHMOCK_CLIENT_ID"), env("AUTHMOCK_CLIENT_SECRET"))
        elif env("AUTHMOCK_TOKEN"):
            auth = BearerAuth(env("AUTHMOCK_TOKEN"))

        async def fetch():
            # A request's own auth= ("the auth argument can be used to pass an authentication scheme to
            # use" when issuing requests); None (the tls.* cases, no token given) sends none.
            return (await client.get(url, auth=auth)).status_code

        # PARALLEL concurrent tasks on the one client, each doing REPEAT sequential fetches.
        codes = await in_tasks(fetch, repeat, parallel)

    return report(codes)


def main():
    return asyncio.run(run())


if __name__ == "__main__":
    # A clean failure is what httpx documents raising for a request: httpx.HTTPError, the base of
    # RequestError and HTTPStatusError (https://www.python-httpx.org/exceptions/). Anything else is a
    # crash (traceback, exit 70): among them the KeyError of update_tokens() when a refresh is refused,
    # since the example reads the refresh answer without looking at its status.
    exit_with(main, errors=(httpx.HTTPError,))
