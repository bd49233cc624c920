# shellcheck shell=bash
# profile (not in "all"): valgrind callgrind on the release binary under PROFILE_REQUESTS Basic 200s,
# Basic 401s and Digest SHA-256 200s; prints the hot spots in AuthMockCore/AuthMockServer and the
# instructions per request, with nginx auth_basic for scale. `perf record -g` too when perf works here.
# shellcheck disable=SC2154  # work, BIN, BENCH_D, PROFILE_REQUESTS, DURATION, URL_perf, PID_perf come from ci/bench, lib.sh, servers.sh

need_profile() { need valgrind valgrind; need ab apache2-utils; need wrk wrk; need objcopy binutils; need gcc gcc; }

demangle_simple() { if command -v swift >/dev/null 2>&1; then swift demangle --simplified; else cat; fi; }
# callgrind_total FILE: the instructions of the whole program in a callgrind output.
callgrind_total() { callgrind_annotate "$1" 2>/dev/null | awk '/PROGRAM TOTALS/ && !t {gsub(",", "", $1); t = $1} END {print t + 0}'; }
per_request() { awk -v t="$1" -v n="${2:-1}" 'BEGIN { printf "%.0f", t / n }'; }  # TOTAL REQUESTS

# profile_one NAME SCENARIO HEADER: callgrind over PROFILE_REQUESTS requests (ab, keep-alive, 4 at a time,
# after as many unmeasured ones); instrumentation is switched on after the warm-up and off before shutdown.
profile_one() {
    local name=$1 scenario=$2 header=$3 out=$work/callgrind.$1 pid url
    rm -f "$work/$name.ready"
    LD_PRELOAD=$work/sigsuspend-shim.so valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$out" \
        "$PROFILE_BIN" serve "$scenario" --port 0 --ready-file "$work/$name.ready" >/dev/null 2>"$work/logs/valgrind-$name.log" &
    pid=$!
    PIDS+=("$pid")
    for _ in $(seq 1200); do [ -s "$work/$name.ready" ] && break; kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    [ -s "$work/$name.ready" ] || { cat "$work/logs/valgrind-$name.log" >&2; die "authmock under valgrind did not start"; }
    url=$(py field "$work/$name.ready" url)
    [ -z "$header" ] || header=$(py digest-header-or "$url" "$header")
    local -a args=(-q -k -n "$PROFILE_REQUESTS" -c 4)
    [ -z "$header" ] || args+=(-H "$header")
    ab "${args[@]}" "$url" > /dev/null 2>&1 || true   # warm-up: connections, caches, first nonces
    callgrind_control -i on "$pid" >/dev/null
    ab "${args[@]}" "$url" > "$work/ab-$name.txt" 2>&1 || true
    callgrind_control -i off "$pid" >/dev/null
    stop_pid "$pid"
    local done_requests; done_requests=$(awk '/^Complete requests/ {print $3}' "$work/ab-$name.txt")
    local total; total=$(callgrind_total "$out")
    say ""
    say "== callgrind: $name, ${done_requests:-?} requests, $(per_request "$total" "$done_requests") instructions per request (server side, all threads)"
    hot_spots "$out"
    note "callgrind ($name): $(per_request "$total" "$done_requests") instructions per request; annotate with \`callgrind_annotate --inclusive=yes $out\` (KEEP_WORK=1 keeps it)."
}
# hot_spots FILE: authmock's own functions by inclusive cost, then any code by exclusive cost.
hot_spots() {
    # Functions of authmock's own modules: Swift symbols that start with $s12AuthMockCore or $s14AuthMockServer
    # (closures inside them too; generic specializations of the standard library do not).
    say "   hot spots in authmock's own code (inclusive, share of all instructions):"
    # shellcheck disable=SC2016  # \$s is a literal dollar in the regular expression
    callgrind_annotate --inclusive=yes --threshold=100 "$1" 2>/dev/null | grep -E ':\$s(12AuthMockCore|14AuthMockServer)' \
        | head -n "${PROFILE_TOP:-20}" | sed -E 's/ \[[^]]*\]$//; s/\?\?\?://' | demangle_simple | cut -c1-200 | sed 's/^/     /' >&2 || true
    say "   top functions by their own cost (exclusive, any code):"
    callgrind_annotate --threshold=100 "$1" 2>/dev/null | awk 'f && NF {print} /^Ir/ {f=1}' | sed -n '2,31p' \
        | sed -E 's/ \[[^]]*\]$//; s/\?\?\?://' | demangle_simple | cut -c1-200 | sed 's/^/     /' >&2 || true
}

# The same measure for nginx auth_basic (one process: master_process off), for scale.
profile_nginx() {
    local port out=$work/callgrind.nginx-basic-200 pid total done_requests
    port=$(free_port)
    {
        nginx_common | sed 's/^worker_processes auto;/worker_processes 1;\nmaster_process off;/'
        echo "pid $work/nginx-profile.pid;"
        nginx_http_block "$(nginx_basic_server "$port")"
    } > "$work/nginx-profile.conf"
    valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$out" nginx -c "$work/nginx-profile.conf" 2>"$work/logs/valgrind-nginx.log" &
    pid=$!
    PIDS+=("$pid")
    wait_port "$port" "$pid" || { say "   nginx under valgrind did not start; skipped"; return 0; }
    ab -q -k -n "$PROFILE_REQUESTS" -c 4 -H "$BASIC_ALICE" "http://127.0.0.1:$port/index.html" >/dev/null 2>&1 || true
    callgrind_control -i on "$pid" >/dev/null
    ab -q -k -n "$PROFILE_REQUESTS" -c 4 -H "$BASIC_ALICE" "http://127.0.0.1:$port/index.html" > "$work/ab-nginx.txt" 2>&1 || true
    # nginx under valgrind does not act on SIGTERM or SIGQUIT while it waits in epoll_wait: dump the
    # profile (written to $out.1), then kill it.
    callgrind_control -d "$pid" >/dev/null
    kill -KILL "$pid" 2>/dev/null || true
    stop_pid "$pid"
    done_requests=$(awk '/^Complete requests/ {print $3}' "$work/ab-nginx.txt")
    total=$(callgrind_total "$out.1")
    say ""
    say "== callgrind: nginx auth_basic ({SHA}) 200, ${done_requests:-?} requests, $(per_request "$total" "$done_requests") instructions per request"
    note "callgrind (nginx auth_basic {SHA} 200, one process): $(per_request "$total" "$done_requests") instructions per request."
}

# perf record -g of Basic 200s under wrk, when perf works here.
profile_perf() {
    if ! perf record -q -e cpu-clock -o "$work/perf.probe" -- true >/dev/null 2>&1; then
        say "   perf record does not work here; skipped"
        return 0
    fi
    start_authmock perf "$work/scen/basic-htpasswd.yaml"
    say ""; say "== perf record -g: Basic 200s for ${DURATION}s under wrk"
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"$((DURATION + 2))s" -H "$BASIC_ALICE" "$URL_perf" > "$work/perf-wrk.txt" &
    local wrk_pid=$!
    sleep 1
    perf record -q -e cpu-clock -g -o "$work/perf.data" -p "$PID_perf" -- sleep "$DURATION" >/dev/null 2>&1 || true
    wait "$wrk_pid" || true
    perf report -i "$work/perf.data" --no-children --sort dso,symbol --stdio 2>/dev/null | demangle_simple \
        | grep -E '^ +[0-9.]+%' | head -n 25 | cut -c1-200 | sed 's/^/     /' >&2 || true
    stop_pid "$PID_perf"
}

section_profile() {
    say ""; say "### profile (valgrind callgrind, $PROFILE_REQUESTS requests per load)"
    # Valgrind 3.19 (Debian 12) cannot read the DWARF 5 that Swift 6's toolchain writes: profile a copy
    # without debug information; the symbol table still names every function.
    PROFILE_BIN=$work/authmock-nodebug
    objcopy --strip-debug "$BIN" "$PROFILE_BIN"
    # Valgrind dies at start on libdispatch's read-only sigsuspend mask: sigsuspend-shim.c hands it a copy.
    gcc -O2 -shared -fPIC -o "$work/sigsuspend-shim.so" "$BENCH_D/sigsuspend-shim.c" -ldl
    profile_one basic-200 "$work/scen/basic-htpasswd.yaml" "$BASIC_ALICE"
    profile_one basic-401 "$work/scen/basic-htpasswd.yaml" ""
    profile_one digest-sha256-200 "$work/scen/digest-sha256.yaml" "digest:alice:wonderland"
    profile_nginx
    profile_perf
}
