#!/bin/sh
# The profile's `version` (run from clients/): the AsyncHTTPClient version the adapter builds with. Once
# `prepare` has built it, the versions SwiftPM resolved (Package.resolved, with the NIO packages under AHC);
# before that, the newest 1.x tag of AHC that git can reach (on this project's machines, the offline copy of
# the Swift packages). Fails when the Swift toolchain or the package is missing, so that the profile is skipped
# with a line instead of half-run. Cheap either way: the runner gives `version` 20 s, before `prepare`.
set -eu
cd "$(dirname "$0")"
swift --version >/dev/null 2>&1 || { echo "version.sh: no swift on PATH" >&2; exit 1; }
if [ -f Package.resolved ]; then
    python3 - <<'PY'
import json
pins = {p["identity"]: p["state"].get("version") for p in json.load(open("Package.resolved"))["pins"]}
print("async-http-client %s (swift-nio %s, swift-nio-ssl %s, swift-nio-http2 %s)" % (
    pins["async-http-client"], pins["swift-nio"], pins["swift-nio-ssl"], pins["swift-nio-http2"]))
PY
else
    tag=$(git ls-remote --tags https://github.com/swift-server/async-http-client.git 2>/dev/null \
        | sed -n 's#.*refs/tags/\(1\.[0-9]*\.[0-9]*\)$#\1#p' | sort -t. -k2,2n -k3,3n | tail -n 1)
    [ -n "$tag" ] || { echo "version.sh: swift-server/async-http-client cannot be reached" >&2; exit 1; }
    echo "async-http-client $tag (not yet resolved: prepare builds it)"
fi
