"""A warm process's browsers (clients/warm.py's hooks), for the chromium and firefox profiles:

    warm: [python3, warm.py, browser_warm]

Starting a browser costs 2-3 CPU-seconds; a case in a browser already running costs a few tenths. So the
warm process keeps the browsers it started across its cases, one case at a time, and each case runs in a
BiDi user context of its own (browser-bidi.py: `browser.createUserContext`, removed at the end): its own
cookies, HTTP-auth cache, connections, TLS sessions and, for a plain HTTP proxy, its own proxy. Whatever a
user context cannot carry is the browser's start-up (`browser_launch.launch_key`: the CAs it trusts, a
client certificate, Firefox's response timeout, an HTTPS or SOCKS proxy): a case whose key no running
browser has gets a browser started for it. Three browsers are kept per warm process, the least recently
used ended first (most cases share two keys: no CA, and the run's root CA); a browser whose case crashed,
timed out or left it unanswered is ended.

Everything here runs in the warm process, never in a case's child. Any failure leaves the case to start a
browser of its own, as without a warm process.
"""
import json
import os
import shutil
import signal
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
        try:
            os.killpg(browser["process"].pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        browser["process"].wait()
        shutil.rmtree(browser["scratch"], ignore_errors=True)


def authmock_warm_job(job):
    CURRENT[0] = None
    engine = engine_of(job["argv"])
    if engine not in ("chromium", "firefox"):
        return
    inputs = job["env"]
    key = browser_launch.launch_key(engine, inputs)
    browser = BROWSERS.get(key)
    if browser and browser["process"].poll() is not None:
        end(key)
        browser = None
    if browser is None:
        while len(BROWSERS) >= KEEP:
            end(min(BROWSERS, key=lambda k: BROWSERS[k]["used"]))
        scratch = tempfile.mkdtemp(prefix=f"authmock-{engine}-warm-")
        try:
            process, ws, log = browser_launch.launch(engine, scratch, inputs, shared=True)
        except Exception:
            traceback.print_exc()
            shutil.rmtree(scratch, ignore_errors=True)
            return
        browser = BROWSERS[key] = {"process": process, "ws": ws, "log": log, "scratch": scratch}
    if browser_launch.DEBUG:
        print(f"case in browser {browser['process'].pid} ({len(BROWSERS)} kept)", file=sys.stderr, flush=True)
    browser["used"] = time.monotonic()
    CURRENT[0] = key
    job["env"]["AUTHMOCK_BIDI_SHARED"] = json.dumps({"ws": browser["ws"], "log": browser["log"],
                                                      "pid": browser["process"].pid})


def authmock_warm_ended(job, status):
    """A case that did not end on its own with 0 or 1 (a crash, 70; SIGTERM from the runner's timeout, 143;
    a signal) may have left its user context behind, or found the browser broken: it is not reused."""
    key = CURRENT[0]
    if key is not None and status.get("exit") not in (0, 1):
        end(key)


def authmock_warm_exit():
    for key in list(BROWSERS):
        end(key)
