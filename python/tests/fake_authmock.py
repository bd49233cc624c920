"""A stand-in for the authmock binary, for what the real one does not report back: the headers the fixture
sends on control requests (its token and content type), and a bad exit status on SIGTERM.

    fake_authmock.py serve SCENARIO --port 0      (env FAKE_LOG: a file of one JSON line per control request;
                                                   FAKE_EXIT: the exit status on SIGTERM, default 0)
"""

import json
import os
import signal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOG = os.environ["FAKE_LOG"]


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def answer(self, body):
        length = int(self.headers.get("Content-Length") or 0)
        sent = self.rfile.read(length).decode() if length else None
        with open(LOG, "a") as log:
            log.write(json.dumps({"method": self.command, "path": self.path, "body": sent,
                                  "authorization": self.headers.get("Authorization"),
                                  "content_type": self.headers.get("Content-Type")}) + "\n")
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self.answer({"entries": [], "evicted": 0})

    def do_POST(self):
        self.answer({"name": "alice", "password": "new", "password_changes": 1})


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
port = server.server_address[1]
url = f"http://127.0.0.1:{port}/"
signal.signal(signal.SIGTERM, lambda *_: os._exit(int(os.environ.get("FAKE_EXIT", "0"))))
print(json.dumps({"url": url, "port": port, "scenario": "fake", "control_token": "t0k3n",
                  "users": [{"name": "alice", "password": "old"}],
                  "journal": url + "_authmock/journal", "control": url + "_authmock/",
                  "live": url + "_authmock/"}), flush=True)
server.serve_forever()
