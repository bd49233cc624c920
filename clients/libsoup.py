#!/usr/bin/python3
"""authmock adapter for libsoup 3, through GObject introspection (PyGObject).

Usage: /usr/bin/python3 clients/libsoup.py     (inputs in the AUTHMOCK_* environment variables)
Needs Debian's gir1.2-soup-3.0, glib-networking (TLS) and python3-gi, hence Debian's own
/usr/bin/python3, not a pyenv one (which does not see python3-gi).
Version: /usr/bin/python3 -c 'import gi; gi.require_version("Soup", "3.0"); from gi.repository import Soup; print(Soup.get_major_version(), Soup.get_minor_version(), Soup.get_micro_version())'

The adapter maps the inputs onto libsoup's own API, each piece as libsoup's documentation
(https://libsoup.org/libsoup-3.0/) shows it. Which scheme is answered, when to stop, redirects
and TLS checks are libsoup's (and glib-networking's) decisions. The one callback libsoup requires,
SoupMessage::authenticate, is the documentation's own example: answer once, and not again when
`retrying` is true (see authenticate() below).
"""
import math
import sys

import gi

gi.require_version("Soup", "3.0")
from gi.repository import Gio, GLib, Soup  # noqa: E402

from adapter_support import env, exit_with, read_body, report  # noqa: E402


def main():
    url = env("AUTHMOCK_URL")
    method = env("AUTHMOCK_METHOD", "GET")
    repeat = int(env("AUTHMOCK_REPEAT", "1"))
    parallel = int(env("AUTHMOCK_PARALLEL", "1"))
    user, password = env("AUTHMOCK_USER"), env("AUTHMOCK_PASSWORD", "")
    proxy_user, proxy_password = env("AUTHMOCK_PROXY_USER"), env("AUTHMOCK_PROXY_PASSWORD", "")
    domain = env("AUTHMOCK_DOMAIN")

    options = {}
    proxy = env("AUTHMOCK_PROXY")
    # "Using a proxy" (https://libsoup.org/libsoup-3.0/client-advanced.html#using-a-proxy): a
    # GSimpleProxyResolver for the given proxy (plain requests and CONNECT for https), or None,
    # which the proxy-resolver property documents as "don't use proxies" (without it libsoup
    # would use g_proxy_resolver_get_default(), i.e. the environment's proxy settings).
    options["proxy_resolver"] = Gio.SimpleProxyResolver.new(proxy, None) if proxy else None
    if env("AUTHMOCK_CA_FILE"):
        # "Setting a Custom CA" (https://libsoup.org/libsoup-3.0/client-tls.html): a
        # GTlsFileDatabase as the session's tls-database; only that CA is trusted.
        options["tls_database"] = Gio.TlsFileDatabase.new(env("AUTHMOCK_CA_FILE"))
    if env("AUTHMOCK_TIMEOUT"):
        # SoupSession:timeout, whole seconds "to timeout a blocking I/O".
        options["timeout"] = math.ceil(float(env("AUTHMOCK_TIMEOUT")))
    session = Soup.Session(**options)
    # NTLM and Negotiate are off by default: "Sessions do not support this type by default; if
    # you want to enable support for it, call soup_session_add_feature_by_type()"
    # (https://libsoup.org/libsoup-3.0/class.AuthNTLM.html, .../class.AuthNegotiate.html).
    # Both are enabled, as a user who wants every scheme libsoup knows would do.
    session.add_feature_by_type(Soup.AuthNTLM.__gtype__)
    if Soup.AuthNegotiate.supported():
        session.add_feature_by_type(Soup.AuthNegotiate.__gtype__)
    if env("AUTHMOCK_COOKIE_JAR"):
        # The cookie cases: a Session keeps no cookies until a SoupCookieJar is added to it
        # ("add a SoupCookieJar to the session", https://libsoup.org/libsoup-3.0/class.CookieJar.html).
        session.add_feature(Soup.CookieJar())
    # libsoup has no public-key pinning API (its accept-certificate signal runs only for a
    # certificate that already failed validation): AUTHMOCK_PIN_SHA256 is ignored.

    client_certificate = None
    if env("AUTHMOCK_CLIENT_CERT"):
        client_certificate = Gio.TlsCertificate.new_from_files(
            env("AUTHMOCK_CLIENT_CERT"), env("AUTHMOCK_CLIENT_KEY"))

    body = read_body()
    if body is not None:
        body = GLib.Bytes.new(body)

    def authenticate(msg, auth, retrying):
        # "Handling authentication" (https://libsoup.org/libsoup-3.0/client-advanced.html#handling-authentication)
        # and SoupMessage::authenticate (https://libsoup.org/libsoup-3.0/signal.Message.authenticate.html):
        # "If credentials are available call soup_auth_authenticate() on auth. If these
        # credentials fail, the signal will be emitted again, with retrying set to TRUE, which
        # will continue until you return without calling soup_auth_authenticate()". The
        # documentation's example returns FALSE when retrying ("Maybe don't try again if our
        # password failed"): this adapter has no other credentials, so it does the same.
        if retrying:
            return False
        if auth.is_for_proxy():
            name, secret = proxy_user, proxy_password
        else:
            name, secret = user, password
            # NTLM takes the domain as "DOMAIN\user" (SoupAuthNTLM splits the user name at the
            # backslash); the domain is an NTLM input, so other schemes get the bare user name.
            if name is not None and domain and auth.get_scheme_name() == "NTLM":
                name = domain + "\\" + name
        if name is None:
            return False
        auth.authenticate(name, secret)
        return True

    def request_certificate(msg, connection):
        # "Using Client Certificates" (https://libsoup.org/libsoup-3.0/client-tls.html).
        msg.set_tls_client_certificate(client_certificate)
        return True

    loop = GLib.MainLoop()
    codes, errors, crashes = [], [], []
    running = [parallel]

    def fetch(left):
        if left == 0:
            running[0] -= 1
            if running[0] == 0:
                loop.quit()
            return
        msg = Soup.Message.new(method, url)
        # A header the application sets itself, in the message's request headers
        # (https://libsoup.org/libsoup-3.0/method.MessageHeaders.append.html).
        if env("AUTHMOCK_HEADER_NAME"):
            msg.get_request_headers().append(env("AUTHMOCK_HEADER_NAME"), env("AUTHMOCK_HEADER_VALUE", ""))
        msg.connect("authenticate", authenticate)
        if client_certificate is not None:
            msg.connect("request-certificate", request_certificate)
        if body is not None:
            msg.set_request_body_from_bytes("application/octet-stream", body)
            # "The request body needs to be set again in case msg is restarted (in case of
            # redirection or authentication)"
            # (https://libsoup.org/libsoup-3.0/method.Message.set_request_body_from_bytes.html);
            # libsoup's own tests do it in a SoupMessage::restarted handler (tests/continue-test.c).
            # Without it libsoup re-sends the request with Content-Length: 0.
            msg.connect("restarted", lambda m: m.set_request_body_from_bytes("application/octet-stream", body))

        def done(session, result):
            try:
                # Reads the whole body; redirects were followed by libsoup (it does so by
                # default, SOUP_MESSAGE_NO_REDIRECT unset).
                session.send_and_read_finish(result)
                codes.append(int(msg.get_status()))
                fetch(left - 1)
            except GLib.Error as e:
                errors.append(e)
                fetch(0)
            except Exception as e:
                # Not an error libsoup reports: a crash. PyGObject would only print it and go on
                # (the loop would never quit), so stop and re-raise it after the loop.
                crashes.append(e)
                loop.quit()

        session.send_and_read_async(msg, GLib.PRIORITY_DEFAULT, None, done)

    # PARALLEL chains at once on the one session, each doing REPEAT fetches in turn (the same
    # session, so connections and the auth cache are shared, as libsoup intends).
    for _ in range(parallel):
        fetch(repeat)
    loop.run()
    if crashes:
        raise crashes[0]

    status = report(codes)
    if errors:
        e = errors[0]
        print(f"GLib.Error: {e.message} ({e.domain}, {e.code})", file=sys.stderr)
        return 1
    return status


if __name__ == "__main__":
    # A clean failure is a GError, which libsoup's functions return ("throws" in
    # https://libsoup.org/libsoup-3.0/method.Session.send_and_read_finish.html) and PyGObject
    # raises as GLib.Error (https://pygobject.gnome.org/guide/api/error_handling.html). Anything
    # else is a crash (traceback, exit 70).
    exit_with(main, errors=(GLib.Error,))
