#!/usr/bin/env python3
"""authmock adapter for Authlib's requests integration (Authlib 1.9): requests_client.OAuth2Session.

Usage: python3 clients/authlib-requests-client.py
Inputs come from the AUTHMOCK_* environment variables. The adapter only maps them onto Authlib's own
API, written as its "OAuth 2 Session" page teaches (https://docs.authlib.org/en/latest/client/oauth2.html):
"OAuth2Session for Password" for the token, "Refresh & Auto Update Token" (token_endpoint=, and an
update_token function) for renewing it, "Access Protected Resources" for the fetches. When to refresh,
which token to send and how, redirects and TLS checks are Authlib's and requests' decisions; the
adapter retries nothing.
Version: python3 -c 'import authlib; print(authlib.__version__)'
"""
import requests
from authlib.integrations.requests_client import OAuth2Session, OAuthError

from adapter_support import env, exit_with, in_threads, report


def main():
    url = env("AUTHMOCK_URL")
    repeat = int(env("AUTHMOCK_REPEAT", "1"))
    parallel = int(env("AUTHMOCK_PARALLEL", "1"))
    token_url = env("AUTHMOCK_TOKEN_URL")

    options = {
        # OAuth2Session is a requests.Session; Authlib sets these Session attributes from its keyword
        # arguments. Ignore *_PROXY, NO_PROXY, REQUESTS_CA_BUNDLE and .netrc from the environment: only
        # the case's inputs count.
        "trust_env": False,
    }
    if env("AUTHMOCK_CA_FILE"):
        # Trust exactly the given CA bundle instead of certifi's, for the resource and the token endpoint.
        options["verify"] = env("AUTHMOCK_CA_FILE")

    if token_url:
        def update_token(token, refresh_token=None, access_token=None):
            # The docs' update_token saves the new token in the application's store, found by the
            # refresh token it replaces. The session itself already holds the new token (Authlib sets
            # it before calling this); nothing else reads it in this run.
            pass

        # "Automatically refreshing tokens": created with token_endpoint, the session refreshes the token
        # when it has expired; update_token is told the new one. The client authenticates at the token
        # endpoint with client_secret_basic, Authlib's default ("Client Authentication").
        session = OAuth2Session(env("AUTHMOCK_CLIENT_ID"), env("AUTHMOCK_CLIENT_SECRET"),
                                token_endpoint=token_url, update_token=update_token, **options)
        # "OAuth2Session for Password": fetch_token(token_endpoint, username=, password=).
        session.fetch_token(token_url, username=env("AUTHMOCK_USER", ""), password=env("AUTHMOCK_PASSWORD", ""))
    elif env("AUTHMOCK_TOKEN"):
        # "Access Protected Resources": a token the application already holds, a dict with access_token and
        # token_type, given to the session. With no expires_at it never expires on Authlib's clock.
        session = OAuth2Session(token={"access_token": env("AUTHMOCK_TOKEN"), "token_type": "Bearer"}, **options)
    else:
        # No token given (the tls.* cases): the session has none to send.
        session = OAuth2Session(**options)

    def fetch():
        if not session.token:
            # OAuth2Session.request raises MissingTokenError without a token unless told to send the
            # request without one (withhold_token=True, how Authlib sends its own token requests).
            return session.get(url, withhold_token=True).status_code
        # The session adds Authorization: Bearer and, when the token has expired by its expires_at (less
        # the leeway, 60 s), refreshes first. requests follows redirects by default.
        return session.get(url).status_code

    # PARALLEL threads share the one OAuth2Session, each doing REPEAT sequential fetches.
    codes = in_threads(fetch, repeat, parallel)
    return report(codes)


if __name__ == "__main__":
    # A clean failure is what requests documents raising, RequestException
    # (https://requests.readthedocs.io/en/latest/user/quickstart/#errors-and-exceptions), and Authlib's
    # OAuthError, which its requests integration exports and raises for an error answer of the token
    # endpoint (parse_response_token) and, as its subclasses InvalidTokenError and MissingTokenError, for
    # a token it cannot use. Anything else is a crash (traceback, exit 70).
    exit_with(main, errors=(requests.exceptions.RequestException, OAuthError))
