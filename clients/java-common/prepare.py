#!/usr/bin/env python3
"""A Java profile's `prepare`: compiles the adapter into the jar its command's class path starts with, then
dumps a class-data sharing archive (AppCDS) of the classes a run of that command loads, at the path its
`-XX:SharedArchiveFile=` names. Run in clients/, as authmock runs a profile's prepare:

    python3 java-common/prepare.py PROFILE SOURCE...    # e.g. okhttp okhttp/Main.java java-common/AdapterSupport.java

Why: a case is one JVM, and most of its CPU is loading and verifying the library's classes and the JDK's TLS
and HTTP classes; mapping them from an archive saves about a quarter of a case's CPU (docs/performance.md,
"The matrix's CPU").
The archive is a startup cache and nothing more: the JVM runs the same bytecode, and one that is missing or
stale is ignored (-Xshare:auto, the default; `-Xlog:cds*=off` in the command keeps its warnings, which the
JVM prints on stdout, out of the client's output).

The class list comes from two runs of the profile's own command against a local server that answers without
credentials with a Digest and a Basic challenge and with credentials 200: one over HTTP, one over HTTPS (a
throwaway certificate from openssl). A training run that fails leaves no archive: the cases then run as before.
Up to date (every input there and older than the archive, and the JVM maps the archive with the command's
class path, which a newer JDK or library jar would refuse): nothing to do.
"""
import http.server
import os
import shutil
import ssl
import subprocess
import sys
import tempfile
import threading

import yaml


class Challenge(http.server.BaseHTTPRequestHandler):
    """401 with Digest and Basic challenges until a request brings Authorization; then 200."""

    def do_GET(self):
        if self.headers.get("Authorization"):
            self.answer(200, [], b"ok\n")
        else:
            self.answer(401, [("WWW-Authenticate", 'Digest realm="train", qop="auth", nonce="0123456789abcdef", algorithm=MD5'),
                              ("WWW-Authenticate", 'Basic realm="train"')], b"")

    do_POST = do_PUT = do_HEAD = do_GET

    def answer(self, status, headers, body):
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def log_message(self, *args):
        pass


def serve(context=None):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Challenge)
    if context:
        server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def option(command, prefix):
    return next((arg[len(prefix):] for arg in command if arg.startswith(prefix)), None)


# What the runner takes out of every client's environment (Runner+Inputs.swift), taken out of the training
# runs' too: a caller's AUTHMOCK_PROXY or https_proxy must not send them elsewhere.
PROXY_VARIABLES = {"http_proxy", "https_proxy", "all_proxy", "no_proxy", "ftp_proxy"}


def base_environment():
    return {k: v for k, v in os.environ.items() if not k.startswith("AUTHMOCK_") and k.lower() not in PROXY_VARIABLES}


def up_to_date(archive, inputs):
    """The archive exists and no input is missing or newer (a missing jar must be built, not trusted)."""
    if not os.path.exists(archive) or not all(os.path.exists(path) for path in inputs):
        return False
    built = os.path.getmtime(archive)
    return all(os.path.getmtime(path) <= built for path in inputs)


def maps(java, archive, classpath):
    """Whether the JVM maps the archive with this class path: -Xshare:on makes a refusal an error. A JDK or a
    library jar upgraded since the dump (installed with its package's older mtime) is refused here."""
    probe = subprocess.run([java, "-Xshare:on", f"-XX:SharedArchiveFile={archive}", "-cp", ":".join(classpath), "-version"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
    return probe.returncode == 0


def temporary(path):
    """A name beside `path` no other prepare uses at the same time (os.replace then installs it whole)."""
    return f"{path}.{os.getpid()}.tmp"


def compile_jar(jar, classpath, sources):
    with tempfile.TemporaryDirectory() as classes:
        subprocess.run(["javac", "-cp", ":".join(classpath), "-d", classes, *sources], check=True)
        subprocess.run(["jar", "cf", temporary(jar), "-C", classes, "."], check=True)
    os.replace(temporary(jar), jar)


def class_list(command, work):
    """Runs the command over HTTP and HTTPS with -XX:DumpLoadedClassList; the classes both runs loaded."""
    key, cert = os.path.join(work, "key.pem"), os.path.join(work, "cert.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                    "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
                    "-days", "2", "-keyout", key, "-out", cert], check=True, capture_output=True)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    training = [arg for arg in command if not arg.startswith(("-XX:SharedArchiveFile=", "-Xshare:"))]
    lines, seen = [], set()
    for index, (scheme, server) in enumerate((("http", serve()), ("https", serve(context)))):
        listed = os.path.join(work, f"classes-{index}.lst")
        environment = dict(base_environment(), AUTHMOCK_URL=f"{scheme}://127.0.0.1:{server.server_address[1]}/",
                           AUTHMOCK_USER="alice", AUTHMOCK_PASSWORD="wonderland", AUTHMOCK_CA_FILE=cert, AUTHMOCK_TIMEOUT="20")
        try:
            done = subprocess.run([training[0], f"-XX:DumpLoadedClassList={listed}", *training[1:]], env=environment,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=120)
        finally:
            server.shutdown()
        if done.returncode != 0:
            raise RuntimeError(f"the {scheme} training run exited {done.returncode}: {done.stderr.decode()[-300:]}")
        with open(listed, encoding="utf-8") as f:
            lines += [line for line in f.read().splitlines() if line not in seen and not seen.add(line)]
    return lines


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    profile, sources = argv[0], argv[1:]
    with open(profile + ".yaml", encoding="utf-8") as f:
        command = yaml.safe_load(f)["command"]
    classpath = command[command.index("-cp") + 1].split(":")
    jar, archive = classpath[0], option(command, "-XX:SharedArchiveFile=")
    if not jar.endswith(".jar") or not archive:
        print(f"prepare.py: {profile}'s command needs -cp ADAPTER.jar:… and -XX:SharedArchiveFile=…", file=sys.stderr)
        return 2
    if up_to_date(archive, [*sources, profile + ".yaml", __file__, *classpath]) and maps(command[0], archive, classpath):
        return 0
    compile_jar(jar, classpath[1:], sources)
    try:
        os.remove(archive)
    except FileNotFoundError:
        pass
    work = tempfile.mkdtemp(prefix="authmock-cds-")
    try:
        listed = os.path.join(work, "classes.lst")
        with open(listed, "w", encoding="utf-8") as f:
            f.write("\n".join(class_list(command, work)) + "\n")
        subprocess.run([command[0], "-Xshare:dump", f"-XX:SharedClassListFile={listed}",
                        f"-XX:SharedArchiveFile={temporary(archive)}", "-cp", ":".join(classpath)],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=120)
        os.replace(temporary(archive), archive)
    except (OSError, RuntimeError, subprocess.SubprocessError) as error:
        # The adapter is built; without an archive its cases run as they did before archives.
        print(f"prepare.py: {profile}: no class-data archive: {error}", file=sys.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        if os.path.exists(temporary(archive)):
            os.remove(temporary(archive))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
