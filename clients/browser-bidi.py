#!/usr/bin/env python3
"""authmock adapter for the two browser engines, Chromium and Firefox, through WebDriver BiDi.

Usage: python3 browser-bidi.py --browser chromium|firefox
Inputs come from the AUTHMOCK_* environment variables (README, "The client contract").

The browser does the HTTP: it navigates to AUTHMOCK_URL (`browsingContext.navigate`, wait
"complete"), picks the scheme, answers challenges, follows redirects, keeps cookies and checks
certificates itself. The adapter is the person in front of it: when the browser would show its
login dialog (the BiDi `network.authRequired` event, intercepted with `network.addIntercept`
phase `authRequired`), it types the case's credentials once per realm (`network.continueWithAuth`
action "provideCredentials": the origin's user and password for a 401, the proxy's for a 407), and
presses Cancel when the same realm asks again (action "cancel"), as a user who typed the right
password once would. The final status is the navigation's last response (`network.responseCompleted`
of the navigation's request).

Configuration is the browser's own (browser_launch.py): its proxy settings (a BiDi user context's
`proxy`, or at start Chromium's `--proxy-server` and Firefox's network.proxy.* preferences), its trust
store (an NSS database made with certutil: Chromium's $HOME/.pki/nssdb, Firefox's profile cert9.db), a
fresh profile in a temporary directory. Under the profile's warm process (browser_warm.py) the browser is
kept across cases and each case runs in a user context of its own, removed at the end; alone, the
adapter starts a browser and kills it at exit.

Specification: https://w3c.github.io/webdriver-bidi/ (network.addIntercept, network.authRequired,
network.continueWithAuth, browsingContext.navigate).
"""
import argparse
import atexit
import json
import os
import re
import shutil
import signal
import sys
import tempfile
import time
from urllib.parse import urlsplit

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from adapter_support import env
from browser_launch import (TEMPLATE, BrowserCrashed, context_proxy, kill, launch, launch_firefox, tail, template_ready,
                            template_stamp)

CRASHED = 70
DEBUG = os.environ.get("AUTHMOCK_BIDI_DEBUG")
# Every browser (or driver) this adapter started, added as each starts, so that the exit kills it even
# mid-launch.
STARTED = []
T0 = time.monotonic()


class NavigationError(Exception):
    """The browser reported the navigation failed (a net error such as net::ERR_CERT_AUTHORITY_INVALID
    or NS_ERROR_…): what the user sees as the browser's error page."""


class Timeout(Exception):
    """The navigation did not complete in the time the case allows (the user gives up)."""


# ---------------------------------------------------------------------------------------------------
# Firefox's profile template (browser_launch.py starts the browsers).

def prepare_firefox():
    """Makes TEMPLATE, unless it is there for this Firefox: a profile Firefox created with the adapter's
    preferences and closed again (`browser.close`), never navigated anywhere."""
    if template_ready():
        return 0
    scratch = tempfile.mkdtemp(prefix="authmock-firefox-template-")
    try:
        process, url, log = launch_firefox(scratch, os.environ)
        bidi = Bidi(url, time.monotonic() + 120)
        bidi.call("session.new", {"capabilities": {}})
        bidi.send("browser.close", {})
        process.wait(timeout=60)
        shutil.rmtree(TEMPLATE, ignore_errors=True)
        os.makedirs(os.path.dirname(TEMPLATE), exist_ok=True)
        shutil.copytree(os.path.join(scratch, "profile"), TEMPLATE, symlinks=True,
                        ignore=shutil.ignore_patterns("lock", ".parentlock", "user.js"))
        with open(TEMPLATE + ".stamp", "w") as f:
            f.write(template_stamp())
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


# ---------------------------------------------------------------------------------------------------
# The BiDi conversation.

class Bidi:
    def __init__(self, url, deadline):
        self.ws = connect(url, max_size=None, open_timeout=30, close_timeout=0).__enter__()
        self.next_id = 0
        self.deadline = deadline
        self.on_event = None

    def send(self, method, params):
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        return self.next_id

    def wait(self, command_id):
        """Reads messages, handing events to on_event, until the command's answer: its result, or an error."""
        while True:
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise Timeout("the navigation did not complete in time")
            try:
                message = json.loads(self.ws.recv(timeout=left))
                if DEBUG:
                    print("<<", round(time.monotonic() - T0, 2), json.dumps(message)[:600], file=sys.stderr)
            except TimeoutError:
                raise Timeout("the navigation did not complete in time")
            except ConnectionClosed as e:
                raise BrowserCrashed(f"the BiDi connection closed: {e}")
            if message.get("type") == "event":
                if self.on_event:
                    self.on_event(message["method"], message["params"])
            elif message.get("id") == command_id:
                if message.get("type") == "error":
                    return None, message
                return message.get("result", {}), None

    def call(self, method, params):
        result, error = self.wait(self.send(method, params))
        if error:
            raise BrowserCrashed(f"{method}: {error.get('error')}: {error.get('message')}")
        return result


class Person:
    """The user at the login dialog: types each realm's credentials once, cancels when asked again."""

    def __init__(self, bidi):
        self.bidi = bidi
        self.credentials = None  # (user, password, proxy_user, proxy_password) of the current transfer
        self.asked = set()
        self.responses = {}  # request id -> last status, for the navigation's request
        self.errors = {}
        self.navigation_requests = []

    def transfer(self, user, password, proxy_user, proxy_password):
        self.credentials = (user, password, proxy_user, proxy_password)
        self.asked = set()  # a new transfer is a new dialog the person answers once more
        self.responses, self.errors, self.navigation_requests = {}, {}, []

    def event(self, method, params):
        request = params.get("request", {}).get("request")
        if method == "network.authRequired":
            response = params["response"]
            user, password, proxy_user, proxy_password = self.credentials
            names = {h["name"].lower() for h in response.get("headers", [])}
            if names & {"www-authenticate", "proxy-authenticate"}:
                # Firefox gives the response: the dialog is the proxy's when it is a Proxy-Authenticate
                # challenge. (Its event can carry the status of an earlier 407 with a 401's headers, and
                # then no authChallenges: the header tells.)
                proxy = "www-authenticate" not in names
                header = "proxy-authenticate" if proxy else "www-authenticate"
                values = [h["value"].get("value", "") for h in response["headers"] if h["name"].lower() == header]
                found = re.search(r'realm="([^"]*)"', " ".join(values))
                realm = found.group(1) if found else None
            else:
                # Chromium's BiDi mapper gives no response with the event (status -1, no headers, no
                # authChallenges): the person reads the dialog instead, whose title names the proxy. A
                # proxy challenges before the origin (a request reaches the origin only through it), so
                # the first dialog of a case given proxy credentials is the proxy's, the next ones the origin's.
                proxy = proxy_user is not None and ("proxy", None) not in self.asked
                realm = None
            where = "proxy" if proxy else urlsplit(params["request"]["url"]).netloc
            name, secret = (proxy_user, proxy_password) if proxy else (user, password)
            if DEBUG:
                print("auth", response.get("status"), response.get("authChallenges"), [h for h in response.get("headers", []) if "uthenticate" in h["name"]], where, realm, file=sys.stderr)
            if name is None or (where, realm) in self.asked:
                self.bidi.send("network.continueWithAuth", {"request": request, "action": "cancel"})
            else:
                self.asked.add((where, realm))
                if not proxy and env("AUTHMOCK_DOMAIN"):
                    # NTLM: a Windows account is typed as DOMAIN\user in the browser's dialog.
                    name = env("AUTHMOCK_DOMAIN") + "\\" + name
                self.bidi.send("network.continueWithAuth", {"request": request, "action": "provideCredentials",
                               "credentials": {"type": "password", "username": name, "password": secret or ""}})
        elif params.get("navigation") and method in ("network.responseCompleted", "network.fetchError"):
            if request not in self.navigation_requests:
                self.navigation_requests.append(request)
            if method == "network.responseCompleted":
                self.responses[request] = params["response"]["status"]
            else:
                self.errors[request] = params.get("errorText", "navigation failed")

    def navigate(self, context, url):
        result, error = self.bidi.wait(self.bidi.send("browsingContext.navigate",
                                                      {"context": context, "url": url, "wait": "complete"}))
        # The document's request: the navigation's first (a redirect keeps its request id).
        request = self.navigation_requests[0] if self.navigation_requests else None
        if request in self.errors and request not in self.responses:
            raise NavigationError(self.errors[request])
        if error:
            raise NavigationError(error.get("message") or error.get("error"))
        if request is None:
            raise NavigationError(f"no response for the navigation to {url}")
        return self.responses[request]


def group_cpu(pgid):
    total = 0
    for pid in os.listdir("/proc"):
        try:
            fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == pgid:
            total += int(fields[11]) + int(fields[12]) + int(fields[13]) + int(fields[14])
    return total / os.sysconf("SC_CLK_TCK")


def main(browser):
    # A warm process (browser_warm.py) may have a browser started for this case's settings: the case then
    # runs in a user context of its own in it (its own cookies, HTTP-auth cache, connections and proxy),
    # removed at the end; otherwise, or when the kept browser fails before the first navigation, the
    # adapter starts a browser of its own, killed at the end.
    shared = json.loads(env("AUTHMOCK_BIDI_SHARED", "null"))
    scratch = tempfile.mkdtemp(prefix=f"authmock-{browser}-")

    def cleanup():
        # The browser is killed, not asked to close (nothing of its profile is kept), then its profile removed.
        for started in STARTED:
            if started.poll() is None:
                if DEBUG:
                    print("browser cpu", group_cpu(started.pid), file=sys.stderr)
                kill(started)  # the browser and its helpers (their own session)
        shutil.rmtree(scratch, ignore_errors=True)
    atexit.register(cleanup)
    # authmock ends a client that overruns with SIGTERM to its process group; the browser has its own
    # (start_new_session), so the handler takes it down too, a kept one included: nothing it does after the
    # case's end may reach the case's servers (the warm process starts another for its next case).
    def terminated(*_):
        if shared:
            end_shared(shared)
        cleanup()
        os._exit(143)
    signal.signal(signal.SIGTERM, terminated)

    # How long the adapter waits for a navigation: never less than any case's limit, so that what ends a
    # navigation the browser does not end itself (Firefox's network.http.response.timeout, browser_launch.py)
    # is the runner's limit, judged as the browser's; this only guards a run without one. (At 2 s + 10, a
    # kept browser's case, which starts none, gave up by itself inside fault.stall-gives-up's 15 s.)
    timeout = max(60.0, float(env("AUTHMOCK_TIMEOUT", "0")) + 10)
    opened = None
    if shared:
        try:
            opened = open_context(browser, shared["ws"])
        except Exception as e:
            # The kept browser, not this client, failed: it is ended, and the case gets a browser of its own.
            print(f"the kept browser failed before the case began ({e}): starting one for the case", file=sys.stderr)
            end_shared(shared)
            shared = None
    if shared:
        process, log = None, shared["log"]
        bidi, context, user_context = opened
    else:
        process, ws_url, log = launch(browser, scratch, os.environ, started=STARTED)
        bidi = Bidi(ws_url, time.monotonic() + 60)
        user_context = None
    try:
        if not shared:
            if browser == "firefox":
                bidi.call("session.new", {"capabilities": {}})
            context = bidi.call("browsingContext.getTree", {"maxDepth": 0})["contexts"][0]["context"]
        person = Person(bidi)
        bidi.on_event = person.event
        bidi.call("session.subscribe", {"events": ["network.authRequired", "network.responseCompleted", "network.responseStarted", "network.beforeRequestSent",
                                                   "network.fetchError"], "contexts": [context]})
        bidi.call("network.addIntercept", {"phases": ["authRequired"], "contexts": [context]})

        codes = []
        transfers = [(env("AUTHMOCK_URL"), env("AUTHMOCK_USER"), env("AUTHMOCK_PASSWORD"),
                      env("AUTHMOCK_PROXY_USER"), env("AUTHMOCK_PROXY_PASSWORD"))] * int(env("AUTHMOCK_REPEAT", "1"))
        if env("AUTHMOCK_URL2"):
            # The case's second transfer: a second navigation in the same tab of the same browser
            # (its connection pool, its HTTP-auth cache, its cookies), the second user typing their own.
            transfers.append((env("AUTHMOCK_URL2"), env("AUTHMOCK_USER2"), env("AUTHMOCK_PASSWORD2"),
                              env("AUTHMOCK_PROXY_USER2"), env("AUTHMOCK_PROXY_PASSWORD2")))
        for url, user, password, proxy_user, proxy_password in transfers:
            # Each navigation is one dialog session: the person types each realm's credentials once.
            person.transfer(user, password, proxy_user, proxy_password)
            bidi.deadline = time.monotonic() + timeout
            codes.append(person.navigate(context, url))
        print(" ".join(str(c) for c in codes))
        status = 0 if all(200 <= c < 300 for c in codes) else 1
    except BrowserCrashed:
        if process is None or process.poll() is not None:
            sys.stderr.write(tail(log) + "\n")
        raise
    except (NavigationError, Timeout):
        if shared:
            leave(bidi, browser, user_context, shared)
        raise
    if shared:
        leave(bidi, browser, user_context, shared)
    return status


def open_context(browser, ws_url):
    """A new BiDi session on the kept browser, a user context with the case's proxy and a tab in it."""
    bidi = Bidi(ws_url, time.monotonic() + 30)
    if browser == "firefox":
        bidi.call("session.new", {"capabilities": {}})
    proxy = context_proxy(browser, os.environ)
    user_context = bidi.call("browser.createUserContext", {"proxy": proxy} if proxy else {})["userContext"]
    context = bidi.call("browsingContext.create", {"type": "tab", "userContext": user_context})["context"]
    return bidi, context, user_context


def end_shared(shared):
    """The kept browser killed (its whole session): the warm process starts another for its next case."""
    try:
        os.killpg(shared["pid"], signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def leave(bidi, browser, user_context, shared):
    """The case's user context removed (its tab with it) and the BiDi session ended, so that the warm
    process's next case finds the browser as it was started, which the `clean` mark tells it. The case's
    outcome is known by then: a browser that does not answer is killed here, and the case ends as it would
    have."""
    bidi.deadline = time.monotonic() + 10
    try:
        bidi.call("browser.removeUserContext", {"userContext": user_context})
        if browser == "firefox":
            bidi.call("session.end", {})
        bidi.ws.close()
        with open(shared["clean"], "w"):
            pass
    except Exception as e:
        print(f"the kept browser did not take the case's user context back ({e}): it is ended", file=sys.stderr)
        end_shared(shared)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--browser", choices=["chromium", "firefox"], required=True)
    parser.add_argument("--prepare", action="store_true", help="make Firefox's profile template")
    options = parser.parse_args()
    if options.prepare:
        sys.exit(prepare_firefox() if options.browser == "firefox" else 0)
    try:
        status = main(options.browser)
    except (NavigationError, Timeout) as e:
        print(f"{type(e).__name__}: {e}", file=sys.stderr)
        status = 1
    except BrowserCrashed as e:
        print(f"BrowserCrashed: {e}", file=sys.stderr)
        status = CRASHED
    sys.exit(status)
