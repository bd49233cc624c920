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

Configuration is the browser's own: its proxy settings (Chromium `--proxy-server`, Firefox's
network.proxy.* preferences), its trust store (an NSS database made with certutil: Chromium's
$HOME/.pki/nssdb, Firefox's profile cert9.db), a fresh profile in a temporary directory removed at
exit.

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
import subprocess
import sys
import tempfile
import threading
import time
from urllib.parse import urlsplit

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from adapter_support import env

CRASHED = 70
DEBUG = os.environ.get("AUTHMOCK_BIDI_DEBUG")
# Every browser (or driver) process group started, so that the exit kills it even mid-launch.
STARTED = []
T0 = time.monotonic()


class NavigationError(Exception):
    """The browser reported the navigation failed (a net error such as net::ERR_CERT_AUTHORITY_INVALID
    or NS_ERROR_…): what the user sees as the browser's error page."""


class BrowserCrashed(Exception):
    """The browser (or its driver) went away mid-run: the crash signature (`BrowserCrashed:`, exit 70)."""


class Timeout(Exception):
    """The navigation did not complete in the time the case allows (the user gives up)."""


# ---------------------------------------------------------------------------------------------------
# Trust store: an NSS database, what both engines read on Linux.

def nss_db(directory, cas):
    """An NSS database in `directory` trusting each PEM CA in `cas` for TLS servers (certutil -t C,,)."""
    os.makedirs(directory, exist_ok=True)
    db = "sql:" + directory
    if not os.path.exists(os.path.join(directory, "cert9.db")):
        subprocess.run(["certutil", "-N", "-d", db, "--empty-password"], check=True, stdout=subprocess.DEVNULL)
    for i, ca in enumerate(cas):
        subprocess.run(["certutil", "-A", "-d", db, "-n", f"authmock-ca-{i}", "-t", "C,,", "-i", ca],
                       check=True, stdout=subprocess.DEVNULL)


def client_identity(directory, cert, key, scratch):
    """The client certificate and key imported into the NSS database (pk12util wants PKCS#12)."""
    p12 = os.path.join(scratch, "client.p12")
    subprocess.run(["openssl", "pkcs12", "-export", "-in", cert, "-inkey", key, "-out", p12,
                    "-passout", "pass:", "-name", "authmock-client"], check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["pk12util", "-i", p12, "-d", "sql:" + directory, "-W", ""], check=True,
                   stdout=subprocess.DEVNULL)


def trusted_cas():
    cas = []
    for name in ("AUTHMOCK_CA_FILE", "AUTHMOCK_PROXY_CA_FILE"):
        path = env(name)
        if path and all(not os.path.samefile(path, c) for c in cas):
            cas.append(path)
    return cas


# ---------------------------------------------------------------------------------------------------
# Launching each engine with a fresh profile; both return (process, BiDi websocket URL, session capabilities).

def drain(stream, into):
    for line in iter(stream.readline, b""):
        into.append(line.decode("utf-8", "replace"))


# The profile template `--prepare` makes for Firefox (git-ignored), and what it was made from.
TEMPLATE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "browser-template", "firefox")
FIREFOX_OMNI = "/usr/lib/firefox-esr/omni.ja"


def template_stamp():
    try:
        return str(os.stat(FIREFOX_OMNI).st_mtime_ns)
    except OSError:
        return "none"


def template_ready():
    try:
        with open(TEMPLATE + ".stamp") as f:
            return f.read() == template_stamp()
    except OSError:
        return False


def prepare_firefox():
    """Makes TEMPLATE, unless it is there for this Firefox: a profile Firefox created with the adapter's
    preferences and closed again (`browser.close`), never navigated anywhere."""
    if template_ready():
        return 0
    scratch = tempfile.mkdtemp(prefix="authmock-firefox-template-")
    try:
        process, url, log = launch_firefox(scratch)
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


MOZILLA_HOSTS = ".mozilla.com, .mozilla.net, .mozilla.org, .firefox.com, .mozaws.net"


def launch_firefox(scratch):
    """firefox-esr --headless --remote-debugging-port=0: Firefox's own BiDi server (no geckodriver)."""
    profile = os.path.join(scratch, "profile")
    if template_ready():
        # A copy of the never-used profile `--prepare` made: Firefox's first start in an empty profile
        # (start-up cache, add-on and search databases) costs ~2.5 CPU-s more than a start in a copy.
        shutil.copytree(TEMPLATE, profile, symlinks=True, ignore=shutil.ignore_patterns("lock", ".parentlock", "user.js"))
    else:
        os.makedirs(profile)
    cas = trusted_cas()
    if cas or env("AUTHMOCK_CLIENT_CERT"):
        nss_db(profile, cas)  # the profile's cert9.db, which Firefox opens as its certificate store
    if env("AUTHMOCK_CLIENT_CERT"):
        client_identity(profile, env("AUTHMOCK_CLIENT_CERT"), env("AUTHMOCK_CLIENT_KEY"), scratch)
    prefs = {
        # Start-up and background work nobody needs here (the prefs geckodriver's and Firefox's own
        # remote agent recommend: remote/shared/RecommendedPreferences.sys.mjs).
        "browser.shell.checkDefaultBrowser": False,
        "browser.startup.homepage_override.mstone": "ignore",
        "browser.startup.page": 0,
        "browser.aboutwelcome.enabled": False,
        "browser.newtabpage.enabled": False,
        "datareporting.policy.dataSubmissionEnabled": False,
        "datareporting.healthreport.uploadEnabled": False,
        "toolkit.telemetry.reportingpolicy.firstRun": False,
        "app.update.disabledForTesting": True,
        "extensions.update.enabled": False,
        "extensions.getAddons.cache.enabled": False,
        "browser.safebrowsing.malware.enabled": False,
        "browser.safebrowsing.phishing.enabled": False,
        "browser.safebrowsing.downloads.enabled": False,
        "browser.safebrowsing.update.enabled": False,
        "network.captive-portal-service.enabled": False,
        "network.connectivity-service.enabled": False,
        "services.settings.server": "data:,#remote-settings-off",
        "media.gmp-manager.updateEnabled": False,
        "browser.region.network.url": "",
        "network.dns.disablePrefetch": True,
        "network.prefetch-next": False,
        "network.http.speculative-parallel-limit": 0,
        # Fewer processes: one content process, no site isolation, none started ahead, networking
        # and media decoding in the parent process, extensions in the parent too.
        "fission.autostart": False,
        "dom.ipc.processCount": 1,
        "dom.ipc.processCount.webIsolated": 1,
        "dom.ipc.processPrelaunch.enabled": False,
        "network.process.enabled": False,
        "media.rdd-process.enabled": False,
        "media.utility-process.enabled": False,
        "extensions.webextensions.remote": False,
        "browser.sessionstore.resume_from_crash": False,
        "browser.tabs.unloadOnLowMemory": False,
        "browser.pagethumbnails.capturing_disabled": True,
        "places.history.enabled": False,
        "browser.urlbar.suggest.searches": False,
        "browser.search.update": False,
        "browser.ping-centre.telemetry": False,
        "toolkit.telemetry.enabled": False,
        "toolkit.telemetry.unified": False,
        "app.normandy.enabled": False,
        "app.shield.optoutstudies.enabled": False,
        "browser.discovery.enabled": False,
        "extensions.pocket.enabled": False,
        "browser.newtabpage.activity-stream.feeds.system.topstories": False,
        "browser.newtabpage.activity-stream.feeds.telemetry": False,
        "browser.newtabpage.activity-stream.telemetry": False,
        "browser.newtabpage.activity-stream.feeds.section.topstories": False,
        "browser.newtabpage.activity-stream.feeds.snippets": False,
        "browser.newtab.preload": False,
        "identity.fxaccounts.enabled": False,
        "signon.rememberSignons": False,
        "browser.contentblocking.category": "standard",
        "privacy.trackingprotection.enabled": False,
        "browser.translations.enable": False,
        "browser.ml.enable": False,
        # A client certificate the server asks for is sent without asking (the default asks the user).
        "security.default_personal_cert": "Select Automatically",
    }
    if env("AUTHMOCK_TIMEOUT"):
        # How long Firefox waits for a response before the network error NS_ERROR_NET_TIMEOUT
        # (default 300 s); Chromium has no such setting.
        prefs["network.http.response.timeout"] = max(1, round(float(env("AUTHMOCK_TIMEOUT"))))
    proxy = env("AUTHMOCK_PROXY")
    if proxy:
        p = urlsplit(proxy)
        if p.scheme == "https":
            # An HTTPS proxy has no manual setting; a PAC answer "HTTPS host:port" is Firefox's way.
            direct = " || ".join(f"dnsDomainIs(h, '{d.strip()}')" for d in MOZILLA_HOSTS.split(","))
            pac = f"function FindProxyForURL(u, h) {{ return ({direct}) ? 'DIRECT' : 'HTTPS {p.hostname}:{p.port}'; }}"
            prefs.update({"network.proxy.type": 2, "network.proxy.autoconfig_url": "data:text/javascript," + pac})
        else:
            prefs.update({"network.proxy.type": 1, "network.proxy.http": p.hostname, "network.proxy.http_port": p.port,
                          "network.proxy.ssl": p.hostname, "network.proxy.ssl_port": p.port})
        # Firefox never proxies loopback addresses unless told to (the test servers are on 127.0.0.1).
        # Mozilla's own hosts, which Firefox calls in the background even so (remote settings), go direct,
        # so that the proxy's journal holds only the case's requests.
        prefs.update({"network.proxy.allow_hijacking_localhost": True, "network.proxy.no_proxies_on": MOZILLA_HOSTS})
    elif env("AUTHMOCK_SOCKS_PROXY"):
        p = urlsplit(env("AUTHMOCK_SOCKS_PROXY"))
        prefs.update({"network.proxy.type": 1, "network.proxy.socks": p.hostname, "network.proxy.socks_port": p.port,
                      "network.proxy.socks_version": 5, "network.proxy.socks_remote_dns": True,
                      "network.proxy.allow_hijacking_localhost": True, "network.proxy.no_proxies_on": MOZILLA_HOSTS})
    else:
        prefs["network.proxy.type"] = 0
    with open(os.path.join(profile, "user.js"), "w") as f:
        for name, value in prefs.items():
            f.write(f"user_pref({json.dumps(name)}, {json.dumps(value)});\n")
    process = subprocess.Popen(
        ["firefox-esr", "--headless", "--no-remote", "--profile", profile, "--remote-debugging-port=0"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
        env={**os.environ, "HOME": scratch, "MOZ_CRASHREPORTER_DISABLE": "1", "XDG_CACHE_HOME": scratch})
    STARTED.append(process)
    log = []
    # Firefox says where it listens on stderr: "WebDriver BiDi listening on ws://127.0.0.1:PORT".
    for raw in iter(process.stderr.readline, b""):
        line = raw.decode("utf-8", "replace")
        log.append(line)
        if DEBUG:
            print("ff", round(time.monotonic() - T0, 2), line.strip()[:120], file=sys.stderr)
        if line.startswith("WebDriver BiDi listening on "):
            url = line.split()[-1] + "/session"
            break
    else:
        raise BrowserCrashed("firefox exited before its BiDi server listened: " + "".join(log[-5:]).strip())
    threading.Thread(target=drain, args=(process.stderr, log), daemon=True).start()
    return process, url, log


def launch_chromium(scratch):
    """chromedriver with the capability webSocketUrl: true, Chromium's documented way to BiDi
    (chromedriver runs the chromium-bidi mapper on top of the DevTools protocol)."""
    home = os.path.join(scratch, "home")
    os.makedirs(home)
    cas = trusted_cas()
    if cas:
        nss_db(os.path.join(home, ".pki", "nssdb"), cas)  # the NSS database Chromium reads on Linux
    args = [
        "--headless", "--no-sandbox",  # no display; root in a container has no user namespace sandbox
        "--user-data-dir=" + os.path.join(scratch, "user-data"),
        # Start-up and background work nobody needs here (chromedriver adds --disable-background-networking,
        # --disable-sync, --no-first-run, --disable-default-apps, --password-store=basic itself).
        "--disable-gpu", "--disable-extensions", "--disable-component-update", "--no-default-browser-check",
        "--disable-features=NetworkTimeServiceQuerying,Translate,OptimizationHints,MediaRouter,DialMediaRouteProvider,AutofillServerCommunication",
        "--disable-dev-shm-usage",
    ]
    proxy = env("AUTHMOCK_PROXY") or env("AUTHMOCK_SOCKS_PROXY")
    if proxy:
        p = urlsplit(proxy)
        scheme = "socks5" if p.scheme.startswith("socks5") else p.scheme
        # Chromium bypasses the proxy for loopback unless the bypass list removes that rule
        # (https://chromium.googlesource.com/chromium/src/+/HEAD/net/docs/proxy.md#Implicit-bypass-rules).
        # Google's own hosts, which Chromium calls in the background even with
        # --disable-background-networking (network time, updates, sign-in), go direct, so that the
        # proxy's journal holds only the case's requests; nothing resolves them here.
        args += [f"--proxy-server={scheme}://{p.hostname}:{p.port}",
                 "--proxy-bypass-list=<-loopback>;*.google.com;*.googleapis.com;*.gvt1.com;*.gstatic.com",
                 "--host-resolver-rules=MAP *.google.com ~NOTFOUND, MAP *.googleapis.com ~NOTFOUND, "
                 "MAP *.gvt1.com ~NOTFOUND, MAP *.gstatic.com ~NOTFOUND"]
    for attempt in range(3):
        process = subprocess.Popen(
            ["chromedriver", "--port=0"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            start_new_session=True, env={**os.environ, "HOME": home, "XDG_CONFIG_HOME": scratch, "XDG_CACHE_HOME": scratch})
        STARTED.append(process)
        log = []
        port = None
        for raw in iter(process.stdout.readline, b""):
            line = raw.decode("utf-8", "replace")
            log.append(line)
            if "was started successfully on port " in line:
                port = int(line.rsplit(" ", 1)[-1].strip().rstrip("."))
                break
        if port:
            break
        process.wait()
        # chromedriver --port=0 picks a free port, then binds it for IPv4 and IPv6 apart: another
        # process can take it in between ("bind() failed: Address already in use"); it is started again.
        if not any("Address already in use" in line for line in log):
            break
    if not port:
        raise BrowserCrashed("chromedriver exited before it listened: " + "".join(log[-5:]).strip())
    threading.Thread(target=drain, args=(process.stdout, log), daemon=True).start()
    import http.client
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    capabilities = {"alwaysMatch": {"webSocketUrl": True, "goog:chromeOptions": {
        "binary": "/usr/lib/chromium/chromium", "args": args}}}
    conn.request("POST", "/session", json.dumps({"capabilities": capabilities}), {"Content-Type": "application/json"})
    answer = json.loads(conn.getresponse().read())["value"]
    if "capabilities" not in answer:
        raise BrowserCrashed("chromedriver could not start chromium: " + answer.get("message", str(answer)))
    return process, answer["capabilities"]["webSocketUrl"], log


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
    scratch = tempfile.mkdtemp(prefix=f"authmock-{browser}-")

    def cleanup():
        # The browser is killed, not asked to close (nothing of its profile is kept), then its profile removed.
        for started in STARTED:
            if started.poll() is None:
                if DEBUG:
                    print("browser cpu", group_cpu(started.pid), file=sys.stderr)
                try:
                    os.killpg(started.pid, signal.SIGKILL)  # the browser and its helpers (their own session)
                except ProcessLookupError:
                    pass
                started.wait()
        shutil.rmtree(scratch, ignore_errors=True)
    atexit.register(cleanup)
    # authmock ends a client that overruns with SIGTERM to its process group; the browser has its own
    # (start_new_session), so the handler takes it down too.
    def terminated(*_):
        cleanup()
        os._exit(143)
    signal.signal(signal.SIGTERM, terminated)

    # How long the adapter waits for a navigation: the browser's own timeout (Firefox's
    # network.http.response.timeout, above) ends it first; this only guards against a browser that hangs.
    timeout = float(env("AUTHMOCK_TIMEOUT")) + 10 if env("AUTHMOCK_TIMEOUT") else 30.0
    process, ws_url, log = (launch_firefox if browser == "firefox" else launch_chromium)(scratch)
    bidi = Bidi(ws_url, time.monotonic() + 60)
    try:
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
        return 0 if all(200 <= c < 300 for c in codes) else 1
    except BrowserCrashed:
        if process.poll() is not None:
            sys.stderr.write("".join(log[-20:]))
        raise


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
