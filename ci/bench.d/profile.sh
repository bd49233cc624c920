# shellcheck shell=bash
# profile (not in "all"): valgrind callgrind on the release binary under PROFILE_REQUESTS Basic 200s,
# Basic 401s, Digest SHA-256 200s (HTTP/1.1) and Basic 200s over HTTP/2; prints the hot spots in
# AuthMockCore/AuthMockServer and a table of instructions per request, with nginx auth_basic (HTTP/1.1 and
# http2) for scale and the floors under them: a bare SwiftNIO server answering the same 200 over HTTP/1.1,
# and over HTTP/2 with TLS (Benchmarks/NIOFloor). `perf record -g` too when perf works here.
# shellcheck disable=SC2154  # work, BIN, BENCH_D, PROFILE_REQUESTS, DURATION, URL_perf, PID_perf come from ci/bench, lib.sh, servers.sh

need_profile() { need valgrind valgrind; need ab apache2-utils; need wrk wrk; need objcopy binutils; need gcc gcc; need nginx nginx-light; need h2load nghttp2-client; }

demangle_simple() { if command -v swift >/dev/null 2>&1; then swift demangle --simplified; else cat; fi; }
# callgrind_total FILE: the instructions of the whole program in a callgrind output.
callgrind_total() { callgrind_annotate "$1" 2>/dev/null | awk '/PROGRAM TOTALS/ && !t {gsub(",", "", $1); t = $1} END {print t + 0}'; }
per_request() { awk -v t="$1" -v n="${2:-1}" 'BEGIN { printf "%.0f", t / n }'; }  # TOTAL REQUESTS

# profile_one NAME SCENARIO HEADER [LOAD [SERVE-OPTIONS…]]: authmock under callgrind, serving SCENARIO, over PROFILE_REQUESTS
# requests (LOAD ab: HTTP/1.1 keep-alive, 4 at a time; LOAD h2load: HTTP/2 over TLS, 4 connections × 32
# streams), after as many unmeasured ones; instrumentation is switched on after the warm-up and off before
# shutdown. Sets PROFILED_<NAME> to the instructions per request.
profile_one() {
    local name=$1 scenario=$2 header=$3 load=${4:-ab}
    shift $(($# < 4 ? $# : 4))
    profile_program "$name" "$header" "$load" "$PROFILE_BIN" serve "$scenario" --port 0 "$@"
}
# profile_program NAME HEADER LOAD PROGRAM [ARGS…]: the same for any program that takes `--ready-file PATH`
# and writes its URL there (authmock, the NIO floor).
profile_program() {
    local name=$1 header=$2 load=$3 out=$work/callgrind.$1 pid url
    shift 3
    rm -f "$work/$name.ready"
    LD_PRELOAD=$work/sigsuspend-shim.so valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$out" \
        "$@" --ready-file "$work/$name.ready" >/dev/null 2>"$work/logs/valgrind-$name.log" &
    pid=$!
    PIDS+=("$pid")
    for _ in $(seq 1200); do [ -s "$work/$name.ready" ] && break; kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    [ -s "$work/$name.ready" ] || { cat "$work/logs/valgrind-$name.log" >&2; die "$name under valgrind did not start"; }
    url=$(py field "$work/$name.ready" url)
    [ -z "$header" ] || header=$(py digest-header-or "$url" "$header")
    local -a args
    if [ "$load" = h2load ]; then
        args=(-n "$PROFILE_REQUESTS" -c 4 -m 32)
    else
        args=(-q -k -n "$PROFILE_REQUESTS" -c 4)
    fi
    [ -z "$header" ] || args+=(-H "$header")
    "$load" "${args[@]}" "$url" > /dev/null 2>&1 || true   # warm-up: connections, caches, first nonces
    callgrind_control -i on "$pid" >/dev/null
    "$load" "${args[@]}" "$url" > "$work/$load-$name.txt" 2>&1 || true
    callgrind_control -i off "$pid" >/dev/null
    stop_pid "$pid"
    local done_requests total per
    done_requests=$(completed_requests "$load" "$work/$load-$name.txt")
    total=$(callgrind_total "$out")
    per=$(per_request "$total" "$done_requests")
    printf -v "PROFILED_${name//-/_}" '%s' "$per"
    say ""
    say "== callgrind: $name, ${done_requests:-?} requests, $per instructions per request (server side, all threads)"
    hot_spots "$out"
    note "callgrind ($name): $per instructions per request; annotate with \`callgrind_annotate --inclusive=yes $out\` (KEEP_WORK=1 keeps it)."
}
# completed_requests LOAD FILE: the requests the load generator saw answered.
completed_requests() {
    if [ "$1" = h2load ]; then
        awk '/^requests:/ {print $8}' "$2"   # requests: N total, N started, N done, N succeeded, …
    else
        awk '/^Complete requests/ {print $3}' "$2"
    fi
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

# profile_nginx NAME LOAD URL 'server { … }': the same measure for nginx (one process: master_process off),
# for scale. Sets PROFILED_<NAME>.
profile_nginx() {
    local name=$1 load=$2 url=$3 server=$4 out=$work/callgrind.$1 pid total done_requests per port
    {
        nginx_common | sed 's/^worker_processes auto;/worker_processes 1;\nmaster_process off;/'
        echo "pid $work/$name.pid;"
        nginx_http_block "$server"
    } > "$work/$name.conf"
    port=$(grep -m1 -o 'listen 127.0.0.1:[0-9]*' "$work/$name.conf" | cut -d: -f2)
    valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$out" nginx -c "$work/$name.conf" 2>"$work/logs/valgrind-$name.log" &
    pid=$!
    PIDS+=("$pid")
    wait_port "$port" "$pid" || { say "   nginx under valgrind did not start; skipped"; return 0; }
    local -a args
    if [ "$load" = h2load ]; then args=(-n "$PROFILE_REQUESTS" -c 4 -m 32); else args=(-q -k -n "$PROFILE_REQUESTS" -c 4); fi
    "$load" "${args[@]}" -H "$BASIC_ALICE" "$url" >/dev/null 2>&1 || true
    callgrind_control -i on "$pid" >/dev/null
    "$load" "${args[@]}" -H "$BASIC_ALICE" "$url" > "$work/$load-$name.txt" 2>&1 || true
    # nginx under valgrind does not act on SIGTERM or SIGQUIT while it waits in epoll_wait: dump the
    # profile (written to $out.1), then kill it.
    callgrind_control -d "$pid" >/dev/null
    kill -KILL "$pid" 2>/dev/null || true
    stop_pid "$pid"
    done_requests=$(completed_requests "$load" "$work/$load-$name.txt")
    total=$(callgrind_total "$out.1")
    per=$(per_request "$total" "$done_requests")
    printf -v "PROFILED_${name//-/_}" '%s' "$per"
    say ""
    say "== callgrind: $name, ${done_requests:-?} requests, $per instructions per request"
    note "callgrind ($name, one process): $per instructions per request."
}
# profile_row LABEL AUTHMOCK-NAME PEER PEER-NAME: a row of instructions per request (lower is better, so the
# ratio is authmock / peer: how many times the peer's cost authmock pays).
profile_row() {
    local a b ratio
    a=$(eval "echo \${PROFILED_${2//-/_}:-}"); b=$(eval "echo \${PROFILED_${4//-/_}:-}")
    [ -n "$a" ] || return 0
    if [ -n "$b" ] && [ "$b" != 0 ]; then ratio=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f ×", a / b }'); else ratio=—; b=—; fi
    row "$1, instructions per request (callgrind)" "$a" "$3" "$b" "$ratio"
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
    # The floor: SwiftNIO's HTTP/1.1 server handlers (or NIOSSL and NIOHTTP2's) answering the same 200 and
    # doing nothing else (Benchmarks/NIOFloor), built like the binary under test.
    local floor=$work/nio-floor-nodebug
    say "building the NIO floor (swift build -c release --static-swift-stdlib --product authmock-nio-floor)…"
    swift build -c release --static-swift-stdlib --product authmock-nio-floor >&2
    objcopy --strip-debug "$(swift build -c release --show-bin-path)/authmock-nio-floor" "$floor"
    # Valgrind dies at start on libdispatch's read-only sigsuspend mask: sigsuspend-shim.c hands it a copy.
    gcc -O2 -shared -fPIC -o "$work/sigsuspend-shim.so" "$BENCH_D/sigsuspend-shim.c" -ldl
    profile_one basic-200 "$work/scen/basic-htpasswd.yaml" "$BASIC_ALICE"
    profile_one basic-401 "$work/scen/basic-htpasswd.yaml" ""
    profile_one digest-sha256-200 "$work/scen/digest-sha256.yaml" "digest:alice:wonderland"
    mkdir -p "$work/h2certs"
    profile_one h2-basic-200 "$work/scen/h2-basic.yaml" "$BASIC_ALICE" h2load --certs-dir "$work/h2certs"
    chmod -R a+rX "$work/h2certs"
    profile_program nio-floor-200 "" ab "$floor"
    profile_program nio-floor-h2-200 "" h2load "$floor" --h2 "$work/h2certs/chain.pem" "$work/h2certs/key.pem"
    local port; port=$(free_port)
    profile_nginx nginx-basic-200 ab "http://127.0.0.1:$port/index.html" "$(nginx_basic_server "$port")"
    port=$(free_port)
    profile_nginx nginx-h2-basic-200 h2load "https://127.0.0.1:$port/index.html" "$(nginx_h2_server "$port")"
    profile_row "Basic 200 ({SHA}), HTTP/1.1 keep-alive" basic-200 "nginx auth_basic" nginx-basic-200
    profile_row "Basic 200, against the bare SwiftNIO floor" basic-200 "NIOHTTP1 server answering 200 (Benchmarks/NIOFloor)" nio-floor-200
    profile_row "Basic 401, HTTP/1.1 keep-alive" basic-401 "NIOHTTP1 server answering 200 (floor)" nio-floor-200
    profile_row "Digest SHA-256 200, HTTP/1.1 keep-alive" digest-sha256-200 "NIOHTTP1 server answering 200 (floor)" nio-floor-200
    profile_row "Basic 200 over HTTP/2 (TLS 1.3, 4 connections × 32 streams)" h2-basic-200 "nginx auth_basic, http2" nginx-h2-basic-200
    profile_row "Basic 200 over HTTP/2, against the bare SwiftNIO floor" h2-basic-200 "NIOSSL + NIOHTTP2 server answering 200 (floor, --h2)" nio-floor-h2-200
    command_note "callgrind loads" "ab -q -k -n $PROFILE_REQUESTS -c 4 (HTTP/1.1); h2load -n $PROFILE_REQUESTS -c 4 -m 32 (HTTP/2), each after as many unmeasured requests"
    profile_perf
}
