# shellcheck shell=bash
# ci/bench's shared plumbing, sourced by ci/bench (which has set ROOT, cd'ed there, and set the knobs):
# messages, installing tools, the binary, the scratch directory and its cleanup, and the three lists the
# final table is made of (rows, notes, commands). Servers are in servers.sh, measuring in measure.sh.

BENCH_D=$ROOT/ci/bench.d

say() { printf '%s\n' "$*" >&2; }
die() { say "ci/bench: $*"; exit 1; }

# --- tools --------------------------------------------------------------------------------------------
APT_UPDATED=
apt_install() {
    [ "$(id -u)" = 0 ] || die "missing $*; install it (Debian: apt-get install $*) or run as root"
    if [ -z "$APT_UPDATED" ]; then apt-get update -qq >&2; APT_UPDATED=1; fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >&2
}
# need COMMAND DEBIAN-PACKAGE: installs the package unless the command is there (/usr/sbin included).
need() { command -v "$1" >/dev/null 2>&1 || PATH=$PATH:/usr/sbin command -v "$1" >/dev/null 2>&1 || apt_install "$2"; }

# --- the binary ---------------------------------------------------------------------------------------
# Sets BIN: AUTHMOCK_BIN when given, else the release build (nice -n BUILD_NICE), linked with the Swift
# runtime and Foundation inside it as the README builds a fixture binary: it starts in half the time.
build_binary() {
    if [ -n "${AUTHMOCK_BIN:-}" ]; then
        BIN=$AUTHMOCK_BIN
    else
        say "building the release binary (swift build -c release --static-swift-stdlib --product authmock)…"
        nice -n "${BUILD_NICE:-0}" swift build -c release --static-swift-stdlib --product authmock >&2
        BIN=$(swift build -c release --show-bin-path)/authmock
    fi
    [ -x "$BIN" ] || die "no binary at $BIN"
}

# --- scratch space, processes, cleanup ----------------------------------------------------------------
# Sets work (the temporary directory: www/ with the 14-byte page, logs/, scen/ with the bench scenarios)
# and PIDS (our servers still running); removes the directory on exit unless KEEP_WORK is set.
make_work() {
    work=$(mktemp -d /tmp/authmock-bench.XXXXXX)
    chmod 755 "$work"   # nginx and Apache workers run as another user and must read the files
    mkdir -p "$work/www" "$work/logs" "$work/scen"
    cp ci/bench-scenarios/* "$work/scen/"
    printf 'Hello, alice!\n' > "$work/www/index.html"   # the same 14 bytes authmock answers
    chmod -R a+rX "$work"
    PIDS=()
    trap cleanup EXIT
    trap 'exit 130' INT TERM
}
cleanup() {  # our servers still running (never reaped, so their ids are still theirs)
    local pid
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
    if [ -n "${KEEP_WORK:-}" ]; then say "kept $work"; else rm -rf "$work"; fi
}

# The Python helpers (bench.py: JSON fields, Digest headers, start-up timing, RSS, the suite's phases).
py() { python3 "$BENCH_D/bench.py" "$@"; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() {  # PORT PID: until something accepts on 127.0.0.1:PORT
    for _ in $(seq 200); do
        kill -0 "$2" 2>/dev/null || return 1
        (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
        sleep 0.05
    done
    return 1
}

# --- the table: rows, notes, commands -----------------------------------------------------------------
# row LABEL AUTHMOCK-FIGURE PEER PEER-FIGURE RATIO: one line of the final table (throughput_row in
# measure.sh calls it; sections whose figures come from elsewhere call it directly).
row() { printf '| %s | %s | %s | %s | %s |\n' "$@" >> "$ROWS"; }
# command_note WHAT COMMAND: the exact command behind a figure, under "Commands".
# shellcheck disable=SC2016  # the backquotes are Markdown, not a command substitution
command_note() { printf -- '- %s: `%s`\n' "$1" "$2" >> "$COMMANDS"; }
# note TEXT: what limits a figure, or a finding, under "Notes".
note() { printf -- '- %s\n' "$*" >> "$NOTES"; }
start_table() {
    ROWS=$work/rows.md          # the final table's rows
    COMMANDS=$work/commands.md  # the exact commands behind them
    NOTES=$work/notes.md        # what limits each figure, findings
    FAILED=0                    # 1 when a row is not valid: see invalid_row
    : > "$ROWS"; : > "$COMMANDS"; : > "$NOTES"
    LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
}

# invalid_row: the row being measured is not valid (unexpected statuses, resumed handshakes): it is flagged
# in the table, and ci/bench exits 1 after printing it (exit_if_invalid).
invalid_row() { FAILED=1; }
exit_if_invalid() { [ "$FAILED" = 0 ] || die "some rows are not valid (see the warnings above)"; }

# print_table SECTIONS…: the Markdown to paste into docs/performance.md, on stdout.
print_table() {
    [ -s "$ROWS" ] || return 0
    local cpu
    cpu=$(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)
    echo ""
    echo "## Results"
    echo ""
    echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') by \`ci/bench $*\` on ${cpu:-an unknown CPU} ($(nproc) cores, Linux $(uname -r)); load average before: $LOAD_BEFORE, after: $(cut -d' ' -f1-3 /proc/loadavg)."
    local which
    # A binary given by AUTHMOCK_BIN is named by its path: the checkout's commit says nothing about it.
    if [ -n "${AUTHMOCK_BIN:-}" ]; then which="AUTHMOCK_BIN=$AUTHMOCK_BIN"; else which="$(git describe --always --dirty 2>/dev/null || echo '?') (release, --static-swift-stdlib)"; fi
    echo "authmock $which; $(nginx -v 2>&1 | sed 's/^nginx version: //'); $(apache2 -v 2>/dev/null | sed -n 's/^Server version: //p'); $(wrk -v 2>&1 | head -1 | cut -d' ' -f1-2); ROUNDS=$ROUNDS DURATION=$DURATION CONNECTIONS=$CONNECTIONS THREADS=$THREADS. wrk runs on the same cores as the servers."
    echo ""
    echo "| measurement | authmock | peer | peer figure | ratio |"
    echo "|---|---|---|---|---|"
    cat "$ROWS"
    echo ""
    echo "ratio = authmock / peer: above 1 authmock serves more per second, or takes more time or memory. Throughput rows are medians of $ROUNDS alternating rounds."
    if [ -s "$NOTES" ]; then echo ""; echo "### Notes"; echo ""; cat "$NOTES"; fi
    if [ -s "$COMMANDS" ]; then echo ""; echo "### Commands"; echo ""; cat "$COMMANDS"; fi
}
