"""A warm process's browsers (clients/warm.py's hooks), for the chromium and firefox profiles:

    warm: [python3, warm.py, browser_warm]

Starting a browser costs 2-3 CPU-seconds; a case in a browser already running costs a few tenths to one.
So the warm process keeps the browsers it started across its cases, one case at a time, and each case runs
in a BiDi user context of its own (browser-bidi.py: `browser.createUserContext`, removed at the end): its
own cookies, HTTP-auth cache, connections, TLS sessions and, for a plain HTTP proxy, its own proxy.
Whatever a user context cannot carry is the browser's start-up (`browser_launch.launch_key`: the CAs it
trusts, a client certificate, Firefox's response timeout, an HTTPS or SOCKS proxy): a case whose key no
running browser has gets a browser started for it, and so does a case whose proxy address the browser has
met before (Firefox keeps proxy credentials outside its user contexts). Three browsers are kept per warm
process, the least recently used ended first (most cases share two keys: no CA, and the run's root CA); a
browser is kept after a case only when the case marked it clean (its user context removed), and one started
for a single case's own proxy or client certificate is ended with it.

Everything here runs in the warm process, never in a case's child. A browser that cannot start leaves the
case to start one of its own, as without a warm process; so does a kept browser that fails before the case's
first navigation (browser-bidi.py).
"""
import json
import os
import shutil
import sys
import tempfile
import time
import traceback

import browser_launch

KEEP = 3
# key -> {"process", "ws", "log", "scratch", "used"}
BROWSERS = {}
CURRENT = [None]

# browser-bidi.py's modules, imported here once so that each case's child has them already.
import adapter_support  # noqa: E402,F401
import websockets.sync.client  # noqa: E402,F401


def engine_of(argv):
    if len(argv) >= 2 and os.path.basename(argv[1]) == "browser-bidi.py" and "--browser" in argv \
            and "--prepare" not in argv:
        i = argv.index("--browser")
        return argv[i + 1] if i + 1 < len(argv) else None
    return None


def end(key):
    browser = BROWSERS.pop(key, None)
    if browser:
        browser_launch.kill(browser["process"])
        shutil.rmtree(browser["scratch"], ignore_errors=True)


def authmock_warm_job(job):
    CURRENT[0] = None
    engine = engine_of(job["argv"])
    if engine not in ("chromium", "firefox"):
        return
    inputs = job["env"]
    key = browser_launch.launch_key(engine, inputs)
    browser = BROWSERS.get(key)
    proxy = browser_launch.context_proxy(engine, inputs)
    if browser and (browser["process"].poll() is not None
                    or (proxy and proxy["httpProxy"] in browser["proxies"])):
        # Gone; or a proxy at an address an earlier case used: Firefox keeps proxy credentials outside its
        # user contexts (nsHttpChannelAuthProvider: "We don't isolate proxy credentials cache entries with
        # the origin suffix"), so a case must never meet a proxy address the browser has authenticated to.
        end(key)
        browser = None
    if browser is None:
        while len(BROWSERS) >= KEEP:
            end(min(BROWSERS, key=lambda k: BROWSERS[k]["used"]))
        scratch = tempfile.mkdtemp(prefix=f"authmock-{engine}-warm-")
        started = []
        try:
            process, ws, log = browser_launch.launch(engine, scratch, inputs, shared=True, started=started)
        except Exception:
            traceback.print_exc()
            for process in started:
                browser_launch.kill(process)
            shutil.rmtree(scratch, ignore_errors=True)
            return
        browser = BROWSERS[key] = {"process": process, "ws": ws, "log": log, "scratch": scratch, "proxies": set()}
    if proxy:
        browser["proxies"].add(proxy["httpProxy"])
    if browser_launch.DEBUG:
        print(f"case in browser {browser['process'].pid} ({len(BROWSERS)} kept)", file=sys.stderr, flush=True)
    browser["used"] = time.monotonic()
    CURRENT[0] = key
    # The case writes `clean` once it has removed its user context and ended its session: only then is the
    # browser as it was started, and kept.
    clean = os.path.join(browser["scratch"], "clean")
    if os.path.exists(clean):
        os.remove(clean)
    job["env"]["AUTHMOCK_BIDI_SHARED"] = json.dumps({"ws": browser["ws"], "log": browser["log"],
                                                      "pid": browser["process"].pid, "clean": clean})


def authmock_warm_ended(job, status):
    """The browser is kept only when the case said it left it clean (whatever its exit: a crash, a
    traceback, the runner's SIGTERM or SIGKILL leave no mark) and can serve another case."""
    key = CURRENT[0]
    if key is None or key not in BROWSERS:
        return
    clean = os.path.join(BROWSERS[key]["scratch"], "clean")
    if not os.path.exists(clean) or browser_launch.single_use(key):
        end(key)


def authmock_warm_exit():
    for key in list(BROWSERS):
        end(key)
