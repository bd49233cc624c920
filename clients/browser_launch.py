"""Starting Chromium (through chromedriver) and Firefox for browser-bidi.py, and what a started browser
can serve: both the adapter's own start (one browser per case) and browser_warm.py's (one browser kept
across the cases of a warm process, each case in a user context of its own) go through `launch`.

Everything a browser is started with comes from the case's AUTHMOCK_* inputs (`inputs`, a mapping): the CAs
in its trust store (an NSS database made with certutil: Chromium's $HOME/.pki/nssdb, Firefox's profile
cert9.db), a client certificate (Firefox), Firefox's response timeout, and the proxy unless a user context
can carry it (`context_proxy`). `launch_key` is all of that: two cases with the same key can share a browser.

The browser's output goes to a log file (no pipe to drain, no thread: browser_warm.py starts browsers in a
process that forks).
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from urllib.parse import urlsplit

DEBUG = os.environ.get("AUTHMOCK_BIDI_DEBUG")


class BrowserCrashed(Exception):
    """The browser (or its driver) went away mid-run: the crash signature (`BrowserCrashed:`, exit 70)."""


def value(inputs, name):
    """An AUTHMOCK_* input; unset or empty (an input that does not apply to the case) is None."""
    return inputs.get(name) or None


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


def trusted_cas(inputs):
    cas = []
    for name in ("AUTHMOCK_CA_FILE", "AUTHMOCK_PROXY_CA_FILE"):
        path = value(inputs, name)
        if path and all(not os.path.samefile(path, c) for c in cas):
            cas.append(path)
    return cas


def read(path):
    with open(path, "rb") as f:
        return f.read().decode("utf-8", "replace")


# ---------------------------------------------------------------------------------------------------
# What a browser is started with, and what a user context can carry instead.

MOZILLA_HOSTS = ".mozilla.com, .mozilla.net, .mozilla.org, .firefox.com, .mozaws.net"
# Google's own hosts, which Chromium calls in the background even with --disable-background-networking
# (network time, updates, sign-in): kept off the proxy, so that its journal holds only the case's requests.
GOOGLE_HOSTS = ["*.google.com", "*.googleapis.com", "*.gvt1.com", "*.gstatic.com"]


def context_proxy(engine, inputs):
    """The case's proxy as a BiDi user context's `proxy` (browser.createUserContext): a plain HTTP proxy,
    which both engines take per user context; None when the case has none. An HTTPS or SOCKS proxy is a
    start-up setting (`launch_key`)."""
    proxy = value(inputs, "AUTHMOCK_PROXY")
    if not proxy or value(inputs, "AUTHMOCK_SOCKS_PROXY") or urlsplit(proxy).scheme != "http":
        return None
    p = urlsplit(proxy)
    address = f"{p.hostname}:{p.port}"
    if engine == "chromium":
        # Chromium bypasses the proxy for loopback unless the bypass list removes that rule
        # (https://chromium.googlesource.com/chromium/src/+/HEAD/net/docs/proxy.md#Implicit-bypass-rules).
        bypass = ["<-loopback>"] + GOOGLE_HOSTS
    else:
        # Firefox proxies loopback because network.proxy.allow_hijacking_localhost is set at start.
        bypass = [h.strip() for h in MOZILLA_HOSTS.split(",")]
    return {"proxyType": "manual", "httpProxy": address, "sslProxy": address, "noProxy": bypass}


def launch_key(engine, inputs):
    """Everything the browser is started with for this case: cases with equal keys can share a browser."""
    def contents(name):
        path = value(inputs, name)
        return read(path) if path else None
    return json.dumps({
        "engine": engine,
        "cas": sorted(set(read(path) for path in trusted_cas(inputs))),
        # Chromium is given no client certificate (its profile skips them).
        "client": [contents("AUTHMOCK_CLIENT_CERT"), contents("AUTHMOCK_CLIENT_KEY")] if engine == "firefox" else None,
        "timeout": value(inputs, "AUTHMOCK_TIMEOUT") if engine == "firefox" else None,
        "proxy": None if context_proxy(engine, inputs) else
        [value(inputs, "AUTHMOCK_PROXY"), value(inputs, "AUTHMOCK_SOCKS_PROXY")] if startup_proxy(inputs) else None,
    }, sort_keys=True)


def startup_proxy(inputs):
    return value(inputs, "AUTHMOCK_PROXY") or value(inputs, "AUTHMOCK_SOCKS_PROXY")


def single_use(key):
    """Whether a browser started for `key` can serve no other case: one started for a case's own HTTPS or
    SOCKS proxy (its port is the case's) or its own client certificate."""
    settings = json.loads(key)
    return settings["proxy"] is not None or (settings["client"] is not None and settings["client"] != [None, None])


def launch(engine, scratch, inputs, shared=False, started=None):
    """Starts `engine` for the case `inputs` describe in `scratch`: (process, BiDi websocket URL, log path).
    Each process is appended to `started` as soon as it runs, so that a caller can kill it even when the
    launch fails half-way. A `shared` browser leaves a proxy a user context can carry to the user contexts;
    it also ends with the process that started it, since it outlives the cases (`start`)."""
    launcher = launch_firefox if engine == "firefox" else launch_chromium
    return launcher(scratch, inputs, shared, started if started is not None else [])


# A shared browser runs under this watchdog, in a session of its own: when the warm process that started it
# dies, however it dies, the watchdog (PR_SET_PDEATHSIG) kills the whole session, the browser's helpers
# included (a PR_SET_PDEATHSIG on the browser itself would not reach the children it forks).
WATCHDOG = """
import ctypes, os, signal, subprocess, sys
signal.signal(signal.SIGTERM, lambda *_: os.killpg(0, signal.SIGKILL))
ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
if os.getppid() != int(sys.argv[1]):
    os.killpg(0, signal.SIGKILL)
sys.exit(subprocess.call(sys.argv[2:]))
"""


def start(command, log, session_env, shared, started):
    """`command` in a session of its own (so that one killpg ends it and its helpers), its output to `log`;
    a shared browser under WATCHDOG."""
    if shared:
        command = [sys.executable, "-c", WATCHDOG, str(os.getpid())] + command
    with open(log, "wb") as out:
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                   start_new_session=True, env=session_env)
    started.append(process)
    return process


def kill(process):
    """The process's whole session (it leads one: `start`), then the process reaped."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait()


def wait_for(process, log, marker, seconds=60):
    """The first line of `log` that starts with `marker` (polling: no pipe, no thread); BrowserCrashed when
    the process ends or the time is up first."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for line in read(log).splitlines():
            if marker in line:
                return line
        if process.poll() is not None:
            break
        time.sleep(0.02)
    raise BrowserCrashed(f"{' '.join(process.args[:1])} did not start: " + tail(log))


def tail(log, lines=20):
    try:
        return "\n".join(read(log).splitlines()[-lines:])
    except OSError:
        return ""


# ---------------------------------------------------------------------------------------------------
# Firefox: its own BiDi server (--remote-debugging-port), no geckodriver.

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


# Start-up and background work nobody needs here (the prefs geckodriver's and Firefox's own remote agent
# recommend: remote/shared/RecommendedPreferences.sys.mjs), and fewer processes.
FIREFOX_PREFS = {
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
    # Firefox never proxies loopback addresses unless told to (the test servers are on 127.0.0.1); with
    # no proxy configured this changes nothing.
    "network.proxy.allow_hijacking_localhost": True,
}


def launch_firefox(scratch, inputs, shared=False, started=None):
    started = started if started is not None else []
    """firefox-esr --headless --remote-debugging-port=0: Firefox's own BiDi server (no geckodriver)."""
    profile = os.path.join(scratch, "profile")
    if template_ready():
        # A copy of the never-used profile `--prepare` made: Firefox's first start in an empty profile
        # (start-up cache, add-on and search databases) costs ~2.5 CPU-s more than a start in a copy.
        shutil.copytree(TEMPLATE, profile, symlinks=True, ignore=shutil.ignore_patterns("lock", ".parentlock", "user.js"))
    else:
        os.makedirs(profile)
    cas = trusted_cas(inputs)
    if cas or value(inputs, "AUTHMOCK_CLIENT_CERT"):
        nss_db(profile, cas)  # the profile's cert9.db, which Firefox opens as its certificate store
    if value(inputs, "AUTHMOCK_CLIENT_CERT"):
        client_identity(profile, value(inputs, "AUTHMOCK_CLIENT_CERT"), value(inputs, "AUTHMOCK_CLIENT_KEY"), scratch)
    prefs = dict(FIREFOX_PREFS)
    if value(inputs, "AUTHMOCK_TIMEOUT"):
        # How long Firefox waits for a response before the network error NS_ERROR_NET_TIMEOUT
        # (default 300 s); Chromium has no such setting.
        prefs["network.http.response.timeout"] = max(1, round(float(value(inputs, "AUTHMOCK_TIMEOUT"))))
    proxy = value(inputs, "AUTHMOCK_PROXY")
    if shared and context_proxy("firefox", inputs):
        prefs["network.proxy.type"] = 0  # each case's user context carries its proxy
    elif proxy:
        p = urlsplit(proxy)
        if p.scheme == "https":
            # An HTTPS proxy has no manual setting; a PAC answer "HTTPS host:port" is Firefox's way.
            direct = " || ".join(f"dnsDomainIs(h, '{d.strip()}')" for d in MOZILLA_HOSTS.split(","))
            pac = f"function FindProxyForURL(u, h) {{ return ({direct}) ? 'DIRECT' : 'HTTPS {p.hostname}:{p.port}'; }}"
            prefs.update({"network.proxy.type": 2, "network.proxy.autoconfig_url": "data:text/javascript," + pac})
        else:
            prefs.update({"network.proxy.type": 1, "network.proxy.http": p.hostname, "network.proxy.http_port": p.port,
                          "network.proxy.ssl": p.hostname, "network.proxy.ssl_port": p.port})
        # Mozilla's own hosts, which Firefox calls in the background even so (remote settings), go direct,
        # so that the proxy's journal holds only the case's requests.
        prefs["network.proxy.no_proxies_on"] = MOZILLA_HOSTS
    elif value(inputs, "AUTHMOCK_SOCKS_PROXY"):
        p = urlsplit(value(inputs, "AUTHMOCK_SOCKS_PROXY"))
        prefs.update({"network.proxy.type": 1, "network.proxy.socks": p.hostname, "network.proxy.socks_port": p.port,
                      "network.proxy.socks_version": 5, "network.proxy.socks_remote_dns": True,
                      "network.proxy.no_proxies_on": MOZILLA_HOSTS})
    else:
        prefs["network.proxy.type"] = 0
    with open(os.path.join(profile, "user.js"), "w") as f:
        for name, setting in prefs.items():
            f.write(f"user_pref({json.dumps(name)}, {json.dumps(setting)});\n")
    log = os.path.join(scratch, "browser.log")
    process = start(["firefox-esr", "--headless", "--no-remote", "--profile", profile, "--remote-debugging-port=0"],
                    log, {**os.environ, "HOME": scratch, "MOZ_CRASHREPORTER_DISABLE": "1", "XDG_CACHE_HOME": scratch},
                    shared, started)
    # Firefox says where it listens: "WebDriver BiDi listening on ws://127.0.0.1:PORT".
    line = wait_for(process, log, "WebDriver BiDi listening on ")
    return process, line.split()[-1] + "/session", log


# ---------------------------------------------------------------------------------------------------
# Chromium: chromedriver with the capability webSocketUrl: true, Chromium's documented way to BiDi
# (chromedriver runs the chromium-bidi mapper on top of the DevTools protocol).

def launch_chromium(scratch, inputs, shared=False, started=None):
    started = started if started is not None else []
    home = os.path.join(scratch, "home")
    os.makedirs(home)
    cas = trusted_cas(inputs)
    if cas:
        nss_db(os.path.join(home, ".pki", "nssdb"), cas)  # the NSS database Chromium reads on Linux
    args = [
        "--headless", "--no-sandbox",  # no display; root in a container has no user namespace sandbox
        "--user-data-dir=" + os.path.join(scratch, "user-data"),
        # Start-up and background work nobody needs here (chromedriver adds --disable-background-networking,
        # --disable-sync, --no-first-run, --disable-default-apps, --password-store=basic itself).
        "--disable-gpu", "--disable-extensions", "--disable-component-update", "--no-default-browser-check",
        "--disable-features=NetworkTimeServiceQuerying,Translate,OptimizationHints,MediaRouter,DialMediaRouteProvider,AutofillServerCommunication,"
        # Every window (a case's user context gets one) renders its address bar's suggestion popups as WebUI
        # pages, chrome://omnibox-popup.top-chrome/, in a renderer of their own: about 1 CPU-s a case, for
        # a popup nobody opens. Off, the browser draws them with its native views. Browser UI only: the
        # network stack a case judges is the same.
        "WebUIOmniboxPopup,WebUIOmniboxAimPopup",
        "--disable-dev-shm-usage",
        # Google's hosts resolve nowhere here, proxy or not.
        "--host-resolver-rules=" + ", ".join(f"MAP {h} ~NOTFOUND" for h in GOOGLE_HOSTS),
    ]
    proxy = value(inputs, "AUTHMOCK_PROXY") or value(inputs, "AUTHMOCK_SOCKS_PROXY")
    if proxy and not (shared and context_proxy("chromium", inputs)):
        p = urlsplit(proxy)
        scheme = "socks5" if p.scheme.startswith("socks5") else p.scheme
        args += [f"--proxy-server={scheme}://{p.hostname}:{p.port}",
                 "--proxy-bypass-list=" + ";".join(["<-loopback>"] + GOOGLE_HOSTS)]
    log = os.path.join(scratch, "chromedriver.log")
    session_env = {**os.environ, "HOME": home, "XDG_CONFIG_HOME": scratch, "XDG_CACHE_HOME": scratch}
    for attempt in range(3):
        process = start(["chromedriver", "--port=0"], log, session_env, shared, started)
        try:
            line = wait_for(process, log, "was started successfully on port ")
            break
        except BrowserCrashed:
            kill(process)
            # chromedriver --port=0 picks a free port, then binds it for IPv4 and IPv6 apart: another
            # process can take it in between ("bind() failed: Address already in use"); it is started again.
            if attempt == 2 or "Address already in use" not in read(log):
                raise
    port = int(line.rsplit(" ", 1)[-1].strip().rstrip("."))
    import http.client
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    capabilities = {"alwaysMatch": {"webSocketUrl": True, "goog:chromeOptions": {
        "binary": "/usr/lib/chromium/chromium", "args": args}}}
    conn.request("POST", "/session", json.dumps({"capabilities": capabilities}), {"Content-Type": "application/json"})
    answer = json.loads(conn.getresponse().read())["value"]
    if "capabilities" not in answer:
        raise BrowserCrashed("chromedriver could not start chromium: " + answer.get("message", str(answer)))
    return process, answer["capabilities"]["webSocketUrl"], log
