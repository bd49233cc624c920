#!/usr/bin/env python3
"""Reads the runtime stage of the Dockerfile and prints it as bash assignments, for ci/container-check.

    python3 ci/container-check.d/dockerfile.py Dockerfile     # prints packages=(…) setup_run=… cmd=(…) …

So the minimal-root check runs what the image runs, not a copy of it that can drift: the RUN after the
comment `# container-check: runtime-setup` (and the packages its `apt-get install` names), the
`COPY --from=build` lines (their sources are under the staging directory the build stage unpacks the
release tarball into), USER, WORKDIR, ENV, ENTRYPOINT, CMD and HEALTHCHECK. Only the forms this
project's Dockerfile uses are understood (exec-form JSON for ENTRYPOINT, CMD and HEALTHCHECK); anything
else is an error, not a guess.
"""
import json
import re
import shlex
import sys

MARKER = "# container-check: runtime-setup"


def instructions(text):
    """(comments just above, keyword, arguments) for each instruction, continuation lines joined."""
    result, comments, pending = [], [], None
    for line in text.splitlines():
        stripped = line.strip()
        if pending is None and (not stripped or stripped.startswith("#")):
            comments.append(stripped)
            continue
        if pending is not None and stripped.startswith("#"):
            continue  # a comment inside a continued instruction
        pending = stripped if pending is None else pending + " " + stripped
        if pending.endswith("\\"):
            pending = pending[:-1].rstrip()
            continue
        keyword, _, arguments = pending.partition(" ")
        result.append((comments, keyword.upper(), arguments.strip()))
        comments, pending = [], None
    return result


def fail(message):
    sys.exit(f"dockerfile.py: {message}")


def exec_form(keyword, arguments):
    try:
        value = json.loads(arguments)
    except json.JSONDecodeError:
        fail(f"{keyword} must be in exec form (a JSON array): {arguments}")
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        fail(f"{keyword} must be a JSON array of strings: {arguments}")
    return value


def staging_directory(build_stage):
    """The directory the build stage unpacks the release tarball's top directory into."""
    for _, keyword, arguments in build_stage:
        match = re.search(r"tar -xzf \S+ -C (\S+) --strip-components=1", arguments)
        if keyword == "RUN" and match:
            return match.group(1).rstrip("/") + "/"
    fail("no `tar -xzf TARBALL -C DIR --strip-components=1` in the build stage")


def runtime_stage(text):
    stages, current = [], None
    for item in instructions(text):
        if item[1] == "FROM":
            current = []
            stages.append(current)
        elif current is not None:
            current.append(item)
    if len(stages) < 2:
        fail("expected a build stage and a runtime stage")
    return stages[0], stages[-1]


def packages_of(command):
    words = shlex.split(command)
    if "install" not in words:
        fail("the runtime-setup RUN has no `apt-get install`")
    names = []
    for word in words[words.index("install") + 1:]:
        if word in ("&&", ";", "||"):
            break
        if not word.startswith("-"):
            names.append(word)
    return names


def parse(text):
    build, runtime = runtime_stage(text)
    staging = staging_directory(build)
    found = {"setup_run": None, "copies": [], "user": "root", "workdir": "/", "envs": []}
    for comments, keyword, arguments in runtime:
        if keyword == "RUN" and MARKER in comments:
            found["setup_run"] = arguments
        elif keyword == "COPY":
            words = arguments.split()
            if words[0] != "--from=build" or len(words) != 3 or not words[1].startswith(staging):
                fail(f"COPY must be `COPY --from=build {staging}SRC DEST`: {arguments}")
            found["copies"] += [words[1][len(staging):], words[2]]
        elif keyword == "USER":
            found["user"] = arguments
        elif keyword == "WORKDIR":
            found["workdir"] = arguments
        elif keyword == "ENV":
            found["envs"] += shlex.split(arguments)
        elif keyword in ("ENTRYPOINT", "CMD"):
            found[keyword.lower()] = exec_form(keyword, arguments)
        elif keyword == "HEALTHCHECK":
            match = re.match(r"(?:--\S+\s+)*CMD\s+(.*)$", arguments)
            if not match:
                fail(f"HEALTHCHECK must be `HEALTHCHECK [--option=…] CMD [...]`: {arguments}")
            found["health"] = exec_form(keyword, match.group(1))
    if found["setup_run"] is None:
        fail(f"no RUN after `{MARKER}` in the runtime stage")
    for key in ("entrypoint", "cmd", "health"):
        if key not in found:
            fail(f"the runtime stage has no {key.upper()}")
    found["packages"] = packages_of(found["setup_run"])
    return found


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "Dockerfile"
    with open(path, encoding="utf-8") as handle:
        found = parse(handle.read())
    for key, value in found.items():
        if isinstance(value, list):
            print(f"{key}=({' '.join(shlex.quote(item) for item in value)})")
        else:
            print(f"{key}={shlex.quote(value)}")


if __name__ == "__main__":
    main()
