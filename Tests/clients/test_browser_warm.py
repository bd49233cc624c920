"""The browsers' warm start (clients/warm.py's hooks, clients/browser_warm.py, clients/browser_launch.py):
a browser kept across a warm process's cases must not carry anything from one case to the next, and a
case whose settings a user context cannot carry must get a browser of its own.

    AUTHMOCK_BIN=.build/debug/authmock python3 -m pytest -q Tests/clients
"""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CLIENTS = ROOT / "clients"
BIN = os.environ.get("AUTHMOCK_BIN", str(ROOT / ".build" / "debug" / "authmock"))
sys.path.insert(0, str(CLIENTS))

import browser_launch  # noqa: E402


class Warm:
    """clients/warm.py spoken to as the runner does: one JSON job per line, {"pid"} then {"exit"|"signal"}."""

    def __init__(self, modules, work, environment=None):
        self.work = work
        self.process = subprocess.Popen(
            [sys.executable, str(CLIENTS / "warm.py"), *modules], cwd=CLIENTS, stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=open(work / "warm.stderr", "wb"), env=environment or os.environ)
        self.count = 0

    def run(self, argv, inputs, timeout=60):
        self.count += 1
        out, err = self.work / f"{self.count}.out", self.work / f"{self.count}.err"
        job = {"argv": argv, "env": {**os.environ, **inputs}, "cwd": str(CLIENTS), "stdout": str(out), "stderr": str(err)}
        self.process.stdin.write((json.dumps(job) + "\n").encode())
        self.process.stdin.flush()
        pid = json.loads(self.process.stdout.readline())["pid"]
        ended = json.loads(self.process.stdout.readline())
        return pid, ended, out.read_text(), err.read_text()

    def close(self):
        self.process.stdin.close()
        return self.process.wait(timeout=30)


def test_hooks_run_in_the_warm_process_around_each_case(tmp_path):
    (tmp_path / "hooked.py").write_text(
        "import os\n"
        "LOG = os.path.join(os.environ['HOOK_DIR'], 'hooks.log')\n"
        "def note(text):\n"
        "    open(LOG, 'a').write(f'{os.getpid()} {text}\\n')\n"
        "def authmock_warm_job(job):\n"
        "    note('job ' + job['argv'][-1])\n"
        "    job['env']['FROM_HOOK'] = 'yes'\n"
        "def authmock_warm_ended(job, status):\n"
        "    note('ended ' + job['argv'][-1] + ' ' + str(status))\n"
        "def authmock_warm_exit():\n"
        "    note('exit')\n")
    script = tmp_path / "case.py"
    script.write_text("import os, sys\nprint(os.environ.get('FROM_HOOK'), os.getppid())\nsys.exit(int(sys.argv[1]))\n")
    environment = {**os.environ, "PYTHONPATH": str(tmp_path), "HOOK_DIR": str(tmp_path)}
    warm = Warm(["hooked"], tmp_path, environment)
    _, first, out1, _ = warm.run([sys.executable, str(script), "3"], {"PYTHONPATH": str(tmp_path)})
    _, second, out2, _ = warm.run([sys.executable, str(script), "0"], {"PYTHONPATH": str(tmp_path)})
    assert warm.close() == 0
    assert first == {"exit": 3} and second == {"exit": 0}
    # The child saw what the hook added; the hooks ran in the warm process (the children's parent).
    assert out1.split()[0] == "yes" and out1.split()[1] == str(warm.process.pid)
    lines = (tmp_path / "hooks.log").read_text().splitlines()
    assert all(line.split()[0] == str(warm.process.pid) for line in lines)
    assert [line.split(" ", 1)[1] for line in lines] == [
        "job 3", "ended 3 {'exit': 3}", "job 0", "ended 0 {'exit': 0}", "exit"]


def test_the_launch_key_is_what_a_browser_is_started_with(tmp_path):
    ca, other = tmp_path / "ca.pem", tmp_path / "other.pem"
    ca.write_text("CA ONE")
    other.write_text("CA TWO")
    copy = tmp_path / "copy.pem"
    copy.write_text("CA ONE")
    plain = {"AUTHMOCK_URL": "http://127.0.0.1:1/", "AUTHMOCK_USER": "alice"}
    # What a case's user context carries (its URL, its users, a plain HTTP proxy) is not in the key.
    same = {"AUTHMOCK_URL": "http://127.0.0.1:2/x", "AUTHMOCK_USER": "bob", "AUTHMOCK_PROXY": "http://127.0.0.1:9"}
    for engine in ("chromium", "firefox"):
        key = browser_launch.launch_key(engine, plain)
        assert browser_launch.launch_key(engine, same) == key
        # The trust store: by the CA's contents, not its path.
        trusted = browser_launch.launch_key(engine, {**plain, "AUTHMOCK_CA_FILE": str(ca)})
        assert trusted != key
        assert browser_launch.launch_key(engine, {**plain, "AUTHMOCK_CA_FILE": str(copy)}) == trusted
        assert browser_launch.launch_key(engine, {**plain, "AUTHMOCK_CA_FILE": str(other)}) != trusted
        # Proxies a user context cannot carry are start-up settings.
        for proxy in ({"AUTHMOCK_PROXY": "https://127.0.0.1:9"}, {"AUTHMOCK_SOCKS_PROXY": "socks5://127.0.0.1:9"}):
            assert browser_launch.launch_key(engine, {**plain, **proxy}) != key
            assert browser_launch.context_proxy(engine, {**plain, **proxy}) is None
    # Firefox's response timeout is a preference; Chromium has none.
    assert browser_launch.launch_key("firefox", {**plain, "AUTHMOCK_TIMEOUT": "3"}) != browser_launch.launch_key("firefox", plain)
    assert browser_launch.launch_key("chromium", {**plain, "AUTHMOCK_TIMEOUT": "3"}) == browser_launch.launch_key("chromium", plain)
    # Chromium's context proxy keeps loopback proxied, as its --proxy-bypass-list does.
    proxied = browser_launch.context_proxy("chromium", same)
    assert proxied["httpProxy"] == "127.0.0.1:9" and proxied["noProxy"][0] == "<-loopback>"


def browser_ready(engine):
    try:
        import websockets.sync.client  # noqa: F401  (websockets 11 or later, what browser-bidi.py uses)
    except ImportError:
        return False
    need = ["chromedriver", "certutil"] if engine == "chromium" else ["firefox-esr", "certutil"]
    if not all(shutil.which(tool) for tool in need):
        return False
    # .ci/run installs the matrix's clients (Firefox among them) while the tests run: a package still being
    # unpacked is not there yet.
    package = "chromium-driver" if engine == "chromium" else "firefox-esr"
    status = subprocess.run(["dpkg-query", "-W", "-f=${db:Status-Status}", package], capture_output=True, text=True)
    return status.returncode != 0 or status.stdout == "installed"


def descendants(pid, name):
    """The processes called `name` below `pid` (a kept browser runs under a watchdog, the warm process's child)."""
    parents, names = {}, {}
    for entry in os.listdir("/proc"):
        try:
            parents[int(entry)] = int(open(f"/proc/{entry}/stat").read().rsplit(")", 1)[1].split()[1])
            names[int(entry)] = open(f"/proc/{entry}/comm").read().strip()
        except (OSError, IndexError, ValueError):
            continue
    def below(p):
        while p in parents and p > 1:
            p = parents[p]
            if p == pid:
                return True
        return False
    return [p for p, n in names.items() if n == name and below(p)]


def serve(scenario, tmp_path):
    ready = tmp_path / f"ready-{scenario}.json"
    server = subprocess.Popen([BIN, "serve", str(ROOT / "scenarios" / scenario), "--port", "0",
                               "--ready-file", str(ready)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(300):
        if ready.exists():
            break
        subprocess.run(["sleep", "0.05"])
    return server, json.loads(ready.read_text())


@pytest.mark.parametrize("engine", ["chromium", "firefox"])
def test_a_kept_browser_never_meets_a_proxy_it_authenticated_to(engine, tmp_path):
    """Firefox keeps proxy credentials outside its user contexts: a case whose proxy address the kept
    browser has met gets a browser of its own, so the second case's browser is asked by the proxy again."""
    if not browser_ready(engine):
        pytest.skip(f"{engine}'s driver, certutil or the websockets module is not installed")
    server, ready = serve("proxy-basic.yaml", tmp_path)
    warm = None
    try:
        warm = Warm(["browser_warm"], tmp_path)
        argv = ["python3", "browser-bidi.py", "--browser", engine]
        proxied = {"AUTHMOCK_URL": ready["url"], "AUTHMOCK_PROXY": ready["proxy"]["url"]}
        _, typed, out1, err1 = warm.run(argv, {**proxied, "AUTHMOCK_PROXY_USER": "carrier", "AUTHMOCK_PROXY_PASSWORD": "pigeon"})
        assert typed == {"exit": 0} and out1.strip() == "200", err1
        _, asked, out2, err2 = warm.run(argv, proxied)
        # Asked again, the person (no proxy password this time) cancels: Chromium shows the 407, Firefox
        # its proxy error page.
        assert asked == {"exit": 1}, err2
        journal = subprocess.run(["curl", "-s", ready["url"] + "_authmock/journal"], capture_output=True, text=True).stdout
        pages = [e for e in json.loads(journal)["entries"]
                 if "proxy" in (e.get("hop"), e.get("server")) and not e.get("target", "").endswith("favicon.ico")]
        granted = next(i for i, e in enumerate(pages) if e.get("status") == 200)
        second = pages[granted + 1:]
        assert second and second[0].get("status") == 407, pages
        assert all("credentials" not in e for e in second), second
        assert warm.close() == 0
        warm = None
    finally:
        if warm:
            warm.process.kill()
        server.terminate()
        server.wait()


@pytest.mark.parametrize("engine", ["chromium", "firefox"])
def test_a_kept_browser_forgets_each_case(engine, tmp_path):
    if not browser_ready(engine):
        pytest.skip(f"{engine}'s driver, certutil or the websockets module is not installed")
    ready = tmp_path / "ready.json"
    server = subprocess.Popen([BIN, "serve", str(ROOT / "scenarios" / "basic.yaml"), "--port", "0",
                               "--ready-file", str(ready)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    warm = None
    try:
        for _ in range(300):
            if ready.exists():
                break
            subprocess.run(["sleep", "0.05"])
        url = json.loads(ready.read_text())["url"]
        warm = Warm(["browser_warm"], tmp_path)
        argv = ["python3", "browser-bidi.py", "--browser", engine]
        _, typed, out1, err1 = warm.run(argv, {"AUTHMOCK_URL": url, "AUTHMOCK_USER": "alice", "AUTHMOCK_PASSWORD": "wonderland"})
        assert typed == {"exit": 0} and out1.strip() == "200", err1
        # The same server, the same browser, a new case without credentials: the first case's HTTP-auth
        # cache, cookies and connections stayed in its user context, so the browser asks and the person,
        # who has no password this time, cancels.
        _, asked, out2, err2 = warm.run(argv, {"AUTHMOCK_URL": url})
        assert asked == {"exit": 1} and out2.strip() == "401", err2
        driver = "chromedriver" if engine == "chromium" else "firefox-esr"
        started = descendants(warm.process.pid, driver)
        assert len(started) == 1, f"one browser for both cases, found {started}"
        journal = subprocess.run(["curl", "-s", url + "_authmock/journal"], capture_output=True, text=True).stdout
        entries = [e for e in json.loads(journal)["entries"] if e["target"] == "/"]
        assert [e["status"] for e in entries] == [401, 200, 401], entries
        assert "credentials" not in entries[-1]
        assert warm.close() == 0
        warm = None
        for pid in started:
            assert not os.path.exists(f"/proc/{pid}") or open(f"/proc/{pid}/stat").read().split()[2] == "Z"
    finally:
        if warm:
            warm.process.kill()
        server.terminate()
        server.wait()
