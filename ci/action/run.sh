#!/usr/bin/env bash
# The logic of the GitHub Action (action.yml at the repository root): each composite step calls one
# subcommand, with the action's inputs in AUTHMOCK_* variables. ci/action-check runs the same steps locally
# with a fake GITHUB_* environment.
#
#   ci/action/run.sh install    # the tarball (AUTHMOCK_TARBALL, or AUTHMOCK_VERSION: a tag, `latest`, or
#                               # `source` to build with ci/release) into $RUNNER_TEMP/authmock, on GITHUB_PATH
#   ci/action/run.sh check      # authmock check → reports in $RUNNER_TEMP/authmock-report, the verdict table
#                               # in $GITHUB_STEP_SUMMARY, outputs status/passed/failed/report-dir
#   ci/action/run.sh verdict    # exits 1 when the run failed: exit 2 always; exit 1 only with fail-on-fail
#
# Inputs: AUTHMOCK_CLIENT or AUTHMOCK_COMMAND (shell words, as in a `run:` step), AUTHMOCK_CASES (globs,
# separated by spaces or commas), AUTHMOCK_JOBS, AUTHMOCK_ARGS (more `authmock check` arguments, shell words),
# AUTHMOCK_VERSION, AUTHMOCK_TARBALL, AUTHMOCK_REPOSITORY (owner/name of the releases; default the action's),
# AUTHMOCK_INSTALL_CLIENT (true: install what the profile needs), AUTHMOCK_FAIL_ON_FAIL, AUTHMOCK_STATUS.
set -euo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)   # the action's checkout (GITHUB_ACTION_PATH)
: "${RUNNER_TEMP:?RUNNER_TEMP is not set: run inside GitHub Actions or ci/action-check}"
prefix=$RUNNER_TEMP/authmock
reports=$RUNNER_TEMP/authmock-report
output() { echo "$1=$2" >>"${GITHUB_OUTPUT:-/dev/null}"; }
say() { echo "authmock action: $*" >&2; }

install() {
    local tarball version=${AUTHMOCK_VERSION:-latest} download=$RUNNER_TEMP/authmock-download
    mkdir -p "$download"
    if [ -n "${AUTHMOCK_TARBALL:-}" ]; then
        tarball=$AUTHMOCK_TARBALL
        say "installing $tarball (input tarball)"
    elif [ "$version" = source ]; then
        say "building from source with ci/release in $here"
        tarball=$(cd "$here" && ci/release | tail -1)
        tarball=$here/$tarball
    else
        local repository=${AUTHMOCK_REPOSITORY:-${GITHUB_ACTION_REPOSITORY:-}}
        [ -n "$repository" ] || { say "no repository to download from: give the repository input"; exit 2; }
        if [ "$version" = latest ]; then
            # The latest release's page redirects to …/releases/tag/vX.Y.Z: no API call, no rate limit.
            version=$(curl -fsSLI -o /dev/null -w '%{url_effective}' "https://github.com/$repository/releases/latest")
            version=${version##*/}
        fi
        local name
        name=authmock-${version#v}-linux-$(uname -m).tar.gz
        say "downloading $name from $repository's release $version"
        curl -fsSL -o "$download/$name" "https://github.com/$repository/releases/download/$version/$name"
        curl -fsSL -o "$download/$name.sha256" "https://github.com/$repository/releases/download/$version/$name.sha256"
        tarball=$download/$name
    fi
    # The checksum beside the tarball is required: an unchecked binary is not installed.
    [ -f "$tarball.sha256" ] || { say "no $tarball.sha256: refusing to install an unchecked tarball"; exit 2; }
    (cd "$(dirname "$tarball")" && sha256sum --quiet -c "$(basename "$tarball").sha256")
    rm -rf "$download/unpacked" && mkdir -p "$download/unpacked"
    tar -xzf "$tarball" -C "$download/unpacked"
    PREFIX=$prefix sh "$download/unpacked/"authmock-*/install.sh >&2
    echo "$prefix/bin" >>"${GITHUB_PATH:-/dev/null}"
    output authmock "$prefix/bin/authmock"
    output version "$("$prefix/bin/authmock" --version)"
    if [ -n "${AUTHMOCK_CLIENT:-}" ] && [ "${AUTHMOCK_INSTALL_CLIENT:-true}" = true ]; then
        # What the profile's `install:` names (apt-get with sudo, pip); one that cannot be installed is reported.
        "$prefix/share/authmock/ci/install-clients" "$AUTHMOCK_CLIENT" >&2 || say "ci/install-clients exited $?"
    fi
}

# words TEXT ARRAY: TEXT split as a shell would split it (quotes kept together), into the array named ARRAY,
# without running it: an input such as `args: ${{ github.event.pull_request.title }}` stays words.
words() {
    local -n into=$2
    mapfile -d '' -t into < <(python3 -c 'import shlex, sys
sys.stdout.write("".join(word + "\0" for word in shlex.split(sys.argv[1])))' "$1")
}

check() {
    local arguments=(check --no-color --junit "$reports/junit.xml" --json "$reports/report.json"
        --markdown "$reports/summary.md" --html "$reports/html")
    local glob globs=()
    # Split on commas and blanks without the shell expanding `basic.*` against the workspace's files.
    IFS=$', \t\n' read -r -a globs <<<"${AUTHMOCK_CASES:-}"
    for glob in "${globs[@]}"; do arguments+=(--case "$glob"); done
    [ -z "${AUTHMOCK_JOBS:-}" ] || arguments+=(--jobs "$AUTHMOCK_JOBS")
    if [ -n "${AUTHMOCK_ARGS:-}" ]; then
        local extra=()
        words "$AUTHMOCK_ARGS" extra
        arguments+=("${extra[@]}")
    fi
    local label
    if [ -n "${AUTHMOCK_CLIENT:-}" ]; then
        arguments+=(--client "$AUTHMOCK_CLIENT")
        label=$AUTHMOCK_CLIENT
    elif [ -n "${AUTHMOCK_COMMAND:-}" ]; then
        local command=()
        words "$AUTHMOCK_COMMAND" command
        arguments+=(-- "${command[@]}")
        label=${command[0]}
    else
        say "give the client input (a profile) or the command input"
        exit 2
    fi
    rm -rf "$reports" && mkdir -p "$reports"
    local status=0
    "$prefix/bin/authmock" "${arguments[@]}" || status=$?
    output status "$status"
    output report-dir "$reports"
    local passed=0 failed=0
    if [ -f "$reports/report.json" ]; then
        # The cases' own verdicts (a gated case's judgements carry verdicts of their own).
        read -r passed failed < <(python3 -c 'import json, sys
cases = json.load(open(sys.argv[1]))["cases"]
print(sum(c["verdict"] == "pass" for c in cases), sum(c["verdict"] == "fail" for c in cases))' \
            "$reports/report.json")
    fi
    output passed "$passed"
    output failed "$failed"
    {
        echo "## authmock check: $label"
        echo
        if [ -s "$reports/summary.md" ]; then cat "$reports/summary.md"; else echo "No report was written."; fi
        echo
        case $status in
            0) echo "authmock check exited 0: no case failed." ;;
            1) echo "authmock check exited 1: $failed case(s) failed." ;;
            *) echo "authmock check exited $status: a usage, suite or runner error (see the step's log)." ;;
        esac
    } >>"${GITHUB_STEP_SUMMARY:-/dev/null}"
}

verdict() {
    local status=${AUTHMOCK_STATUS:-2}
    if [ "$status" = 0 ]; then exit 0; fi
    if [ "$status" = 1 ] && [ "${AUTHMOCK_FAIL_ON_FAIL:-false}" != true ]; then
        say "the client failed cases (exit 1); not an error of the step without fail-on-fail: true"
        exit 0
    fi
    say "authmock check exited $status"
    exit "$status"
}

case ${1:-} in
    install | check | verdict) "$1" ;;
    *) echo "usage: ci/action/run.sh install|check|verdict" >&2; exit 2 ;;
esac
