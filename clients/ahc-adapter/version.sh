#!/bin/sh
# The profile's `version` (run from clients/): resolves the adapter's dependencies in the scratch path its
# `prepare` builds in (offline: this machine's copies of the Swift packages; cheap once resolved) and prints
# the AsyncHTTPClient version they resolved to, with the NIO packages under it. Fails when Swift or the
# package cannot be had, so that the profile is skipped with a line instead of half-run.
set -eu
cd "$(dirname "$0")"
swift package --scratch-path "${AHC_SCRATCH:-../../.build}" resolve >/dev/null
python3 - <<'PY'
import json
pins = {p["identity"]: p["state"].get("version") for p in json.load(open("Package.resolved"))["pins"]}
print("async-http-client %s (swift-nio %s, swift-nio-ssl %s, swift-nio-http2 %s)" % (
    pins["async-http-client"], pins["swift-nio"], pins["swift-nio-ssl"], pins["swift-nio-http2"]))
PY
