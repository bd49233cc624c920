#!/usr/bin/env python3
"""authmock adapter for requests-oauthlib (2.0, over oauthlib and requests): OAuth2Session.

Usage: python3 clients/requests-oauthlib-client.py
Inputs come from the AUTHMOCK_* environment variables. The adapter only maps them onto
requests-oauthlib's own API, written as its "OAuth 2 Workflow" page teaches
(https://requests-oauthlib.readthedocs.io/en/latest/oauth2_workflow.html): the Legacy Application
Flow (the password grant, LegacyApplicationClient) for the token, and "Refreshing tokens" (the third,
recommended way: auto_refresh_url, auto_refresh_kwargs, token_updater) for renewing it. When to
refresh, which token to send and how, redirects and TLS checks are requests-oauthlib's, oauthlib's
and requests' decisions; the adapter retries nothing.
Version: python3 -c 'import requests_oauthlib; print(requests_oauthlib.__version__)'
"""
import oauthlib.oauth2
import requests
from oauthlib.oauth2 import LegacyApplicationClient
from requests_oauthlib import OAuth2Session

from adapter_support import env, exit_with, in_threads, report


def main():
    url = env("AUTHMOCK_URL")
    repeat = int(env("AUTHMOCK_REPEAT", "1"))
    parallel = int(env("AUTHMOCK_PARALLEL", "1"))
    token_url = env("AUTHMOCK_TOKEN_URL")
    client_id, client_secret = env("AUTHMOCK_CLIENT_ID"), env("AUTHMOCK_CLIENT_SECRET")

    if token_url:
        # "Refreshing tokens", (Third, Recommended) "Define automatic token refresh and update": the
        # session refreshes at auto_refresh_url, sending auto_refresh_kwargs ("most providers will ask
        # you for extra credentials to be passed along when refreshing tokens": client_id and
        # client_secret, which go in the form body), and hands the new token to token_updater. The
        # client is the Legacy Application Flow's LegacyApplicationClient (the password grant).
        extra = {"client_id": client_id, "client_secret": client_secret}

        def token_saver(token):
            # The docs' token_saver: "save token in database / session". The session already keeps
            # the token it was handed (OAuth2Session.refresh_token sets self.token); nothing else
            # reads it in this run.
            pass

        session = OAuth2Session(client=LegacyApplicationClient(client_id=client_id),
                                auto_refresh_url=token_url, auto_refresh_kwargs=extra,
                                token_updater=token_saver)
    elif env("AUTHMOCK_TOKEN"):
        # An access token the application already holds: OAuth2Session(client_id, token=token), the
        # token a dict with access_token and token_type ("Refreshing tokens", "Define the token");
        # with no expires_in it never expires on the session's clock.
        session = OAuth2Session(client_id, token={"access_token": env("AUTHMOCK_TOKEN"), "token_type": "Bearer"})
    else:
        # No token given (the tls.* cases): the session has none to add and sends the request as
        # requests would (OAuth2Session.request adds a token only when it has one).
        session = OAuth2Session(client_id)

    # OAuth2Session is a requests.Session. Ignore *_PROXY, NO_PROXY, REQUESTS_CA_BUNDLE and .netrc
    # from the environment: only the case's inputs count. With trust_env off, the Session's verify
    # is what every request uses, the token endpoint's included (fetch_token and refresh_token pass
    # verify=None, which falls back on it).
    session.trust_env = False
    if env("AUTHMOCK_CA_FILE"):
        # Trust exactly the given CA bundle instead of certifi's.
        session.verify = env("AUTHMOCK_CA_FILE")

    if token_url:
        # The Legacy Application Flow, step 1, as written there: fetch_token(token_url=, username=,
        # password=, client_id=, client_secret=). Given no auth=, requests-oauthlib sends the client's
        # credentials as HTTP Basic (OAuth2Session.fetch_token: HTTPBasicAuth(client_id, client_secret)),
        # the username and password in the form body.
        session.fetch_token(token_url=token_url, username=env("AUTHMOCK_USER", ""),
                            password=env("AUTHMOCK_PASSWORD", ""), client_id=client_id,
                            client_secret=client_secret)

    def fetch():
        # The session adds the token (Authorization: Bearer) and, when oauthlib says it has expired
        # (its expires_at, from expires_in), refreshes first. requests follows redirects by default.
        return session.get(url).status_code

    # PARALLEL threads share the one OAuth2Session, each doing REPEAT sequential fetches.
    codes = in_threads(fetch, repeat, parallel)
    return report(codes)


if __name__ == "__main__":
    # A clean failure is what these libraries document raising: requests' RequestException ("All
    # exceptions that Requests explicitly raises inherit from requests.exceptions.RequestException",
    # https://requests.readthedocs.io/en/latest/user/quickstart/#errors-and-exceptions) and oauthlib's
    # OAuth2Error, the base of the errors a token answer is parsed into (InvalidGrantError...,
    # MissingTokenError), of InsecureTransportError and MissingTokenTypeError (oauthlib's "Security"
    # page, https://oauthlib.readthedocs.io/en/latest/oauth2/security.html) and of TokenExpiredError,
    # which requests-oauthlib's "Refreshing tokens" catches. Anything else is a crash (traceback, exit 70).
    exit_with(main, errors=(requests.exceptions.RequestException, oauthlib.oauth2.OAuth2Error))
