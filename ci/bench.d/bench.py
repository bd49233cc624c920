"""ci/bench's helpers in Python: JSON fields, Digest responses, start-up timing, RSS, the suite's phases.

Called as `python3 ci/bench.d/bench.py COMMAND ARGS…` (the `py` function of ci/bench.d/lib.sh); COMMAND is one of
the functions below, with dashes for underscores (digest-header, journal-state, suite-phases…)."""
import hashlib, http.client, json, os, re, secrets, signal, socket, ssl, statistics, subprocess, sys, time
import urllib.error, urllib.parse, urllib.request

def field(path, key):
    value = json.load(open(path))
    for part in key.split("."):
        value = value[part]
    print(value)

def digest_header(url, user, password):
    """Fetches a challenge and answers it once (RFC 7616, qop=auth, nc=00000001)."""
    try:
        urllib.request.urlopen(url, timeout=10)
        sys.exit(f"{url} did not challenge")
    except urllib.error.HTTPError as error:
        challenges = [v for v in error.headers.get_all("WWW-Authenticate") or [] if v.lower().startswith("digest ")]
    if not challenges:
        sys.exit(f"{url} sent no Digest challenge")
    params = {m.group(1).lower(): (m.group(3) if m.group(3) is not None else m.group(2))
              for m in re.finditer(r'(\w+)=("((?:[^"\\]|\\.)*)"|[^,\s]+)', challenges[0][7:])}
    algorithm = params.get("algorithm", "MD5")
    h = {"MD5": hashlib.md5, "SHA-256": hashlib.sha256}[algorithm]
    H = lambda text: h(text.encode()).hexdigest()
    target = urllib.parse.urlsplit(url)
    uri = target.path + (("?" + target.query) if target.query else "")
    nc, cnonce = "00000001", secrets.token_hex(8)
    qops = [q.strip() for q in params.get("qop", "auth").split(",")]
    assert "auth" in qops, params
    ha1 = H(f"{user}:{params['realm']}:{password}")
    ha2 = H(f"GET:{uri}")
    response = H(f"{ha1}:{params['nonce']}:{nc}:{cnonce}:auth:{ha2}")
    parts = [f'username="{user}"', f'realm="{params["realm"]}"', f'nonce="{params["nonce"]}"', f'uri="{uri}"',
             f"algorithm={algorithm}", f"response=\"{response}\"", "qop=auth", f"nc={nc}", f'cnonce="{cnonce}"']
    if "opaque" in params:
        parts.append(f'opaque="{params["opaque"]}"')
    print("Digest " + ", ".join(parts))

def digest_header_or(url, spec):
    """'digest:USER:PASSWORD' becomes a Digest Authorization header for url; anything else is printed as is."""
    if spec.startswith("digest:"):
        _, user, password = spec.split(":", 2)
        print("Authorization: ", end="")
        digest_header(url, user, password)
    else:
        print(spec)

def rss(*pids):
    """VmRSS and VmHWM in KiB, summed over the processes and their children (nginx, Apache workers)."""
    seen, total, hwm = set(), 0, 0
    todo = [int(p) for p in pids]
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.add(pid)
        try:
            status = open(f"/proc/{pid}/status").read()
            children = open(f"/proc/{pid}/task/{pid}/children").read().split()
        except FileNotFoundError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        total += int(fields["VmRSS"].split()[0])
        hwm += int(fields["VmHWM"].split()[0])
        todo += [int(c) for c in children]
    print(total, hwm, len(seen))

def journal_state(url):
    page = json.load(urllib.request.urlopen(url, timeout=60))
    entries = page["entries"]
    print(max((e["seq"] for e in entries), default=0), len(entries), page["evicted"])

# Made once, before any clock starts: no CA store to load, no verification (both servers are ours).
CLIENT_TLS = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
CLIENT_TLS.check_hostname = False
CLIENT_TLS.verify_mode = ssl.CERT_NONE

def first_200(host, port, tls, path, headers, deadline):
    context = CLIENT_TLS if tls else None
    while True:
        try:
            if tls:
                connection = http.client.HTTPSConnection(host, port, timeout=5, context=context)
            else:
                connection = http.client.HTTPConnection(host, port, timeout=5)
            connection.request("GET", path, headers=headers)
            response = connection.getresponse()
            response.read()
            connection.close()
            if response.status == 200:
                return
        except (OSError, http.client.HTTPException):
            pass
        if time.perf_counter() > deadline:
            raise TimeoutError(f"no 200 from {host}:{port}{path}")
        time.sleep(0.0005)

def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port

def stop(process):
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()

AUTH = {"Authorization": "Basic YWxpY2U6d29uZGVybGFuZA=="}  # alice:wonderland

def startup(kind, runs, *args):
    """Prints 'median p90 min' in ms (and for authmock the ready-line figures first)."""
    ready_times, first_times = [], []
    for run in range(runs + 1):  # the first run warms the page cache and is dropped
        if kind == "authmock":
            binary, scenario, tls = args[0], args[1], args[2] == "tls"
            start = time.perf_counter()
            process = subprocess.Popen([binary, "serve", scenario, "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            line = process.stdout.readline()
            ready = time.perf_counter() - start
            port = json.loads(line)["port"]
            first_200("127.0.0.1", port, tls, "/", AUTH, start + 30)
        elif kind == "nginx":
            nginx, config, port = args[0], args[1], int(args[2])
            start = time.perf_counter()
            process = subprocess.Popen([nginx, "-c", config], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            first_200("127.0.0.1", port, True, "/index.html", AUTH, start + 30)
            ready = None
        elif kind == "httpbin":
            gunicorn, port = args[0], free_port()
            start = time.perf_counter()
            process = subprocess.Popen([gunicorn, "-b", f"127.0.0.1:{port}", "-w", "1", "--log-level", "warning", "httpbin:app"],
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            first_200("127.0.0.1", port, False, "/basic-auth/alice/wonderland", AUTH, start + 60)
            ready = None
        first = time.perf_counter() - start
        stop(process)
        if run:
            first_times.append(first * 1000)
            if ready is not None:
                ready_times.append(ready * 1000)
    def summary(times):
        times = sorted(times)
        return f"{statistics.median(times):.1f} {times[max(0, int(len(times) * 0.9) - 1)]:.1f} {times[0]:.1f}"
    print(summary(first_times), summary(ready_times) if ready_times else "")

def suite(hyperfine_json, report_json):
    results = json.load(open(hyperfine_json))["results"]
    report = json.load(open(report_json))
    cases = report["cases"]
    client = sum((c.get("outcome") or {}).get("seconds", 0) for c in cases)
    walls = [statistics.median(r["times"]) for r in results]
    verdicts = {}
    for c in cases:
        verdicts[c["verdict"]] = verdicts.get(c["verdict"], 0) + 1
    print(len(cases), f"{walls[0]:.3f}", f"{walls[1]:.3f}", f"{client:.3f}", ",".join(f"{k}={v}" for k, v in sorted(verdicts.items())))

def suite_phases(runs, *command):
    """Where a suite run's time goes: spawn to the first case's progress line, the mean time per case
    between progress lines, and the last case's line to exit (medians over runs, ms)."""
    firsts, per_case, tails = [], [], []
    for _ in range(int(runs)):
        start = time.perf_counter()
        process = subprocess.Popen(list(command), stdout=subprocess.PIPE)
        stamps, pending = [], b""
        while chunk := os.read(process.stdout.fileno(), 65536):  # raw reads: no buffering delays the stamps
            now = time.perf_counter()
            pending += chunk
            *lines, pending = pending.split(b"\n")
            stamps += [now for line in lines if line.startswith(b"[")]
        process.wait()
        end = time.perf_counter()
        firsts.append((stamps[0] - start) * 1000)
        per_case.append((stamps[-1] - stamps[0]) * 1000 / max(1, len(stamps) - 1))
        tails.append((end - stamps[-1]) * 1000)
    print(f"{statistics.median(firsts):.0f} {statistics.median(per_case):.1f} {statistics.median(tails):.0f}")

if __name__ == "__main__":
    command, *rest = sys.argv[1:]
    if command == "startup":
        startup(rest[0], int(rest[1]), *rest[2:])
    else:
        globals()[command.replace("-", "_")](*rest)
