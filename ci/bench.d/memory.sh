# shellcheck shell=bash
# memory: idle RSS, then RSS after MEM_REQUESTS Basic 200s (against nginx) and after MEM_REQUESTS Digest
# 401s that each mint a nonce (against Apache): the journal (10,000 entries) and the nonce store (10,000
# nonces) must plateau.
# shellcheck disable=SC2154  # work, MEM_*, THREADS, CONNECTIONS, URL_*, PID_* come from ci/bench, lib.sh, servers.sh

need_memory() { need wrk wrk; need nginx nginx-light; need apache2 apache2; }

# drive NAME PID URL HEADER: wrk in MEM_CHUNK-second runs until MEM_REQUESTS responses; prints RSS on the way.
drive() {
    local name=$1 pid=$2 url=$3 header=$4 total=0 chunk=0 out requests r
    local -a args=()
    [ -z "$header" ] || args=(-H "$header")
    while [ "$total" -lt "$MEM_REQUESTS" ]; do
        chunk=$((chunk + 1))
        out=$work/mem-$name-$chunk.txt
        wrk -t"$THREADS" -c"$CONNECTIONS" -d"${MEM_CHUNK}s" "${args[@]}" "$url" > "$out"
        requests=$(awk '/ requests in / {print $1}' "$out")
        total=$((total + requests))
        read -r -a r <<< "$(py rss "$pid")"
        say "   $name: $total requests, RSS $(mib "${r[0]}") (high-water $(mib "${r[1]}"))"
        awk -v k="${r[0]}" 'BEGIN { printf "%.1f ", k / 1024 }' >> "$work/mem-$name.rss"
    done
    echo "$total"
}

# Basic 200s: the journal keeps 10,000 entries and evicts the rest.
memory_basic() {
    local port total journal
    start_authmock mem_basic "$work/scen/basic-htpasswd.yaml"
    port=$(free_port)
    start_nginx nginx_mem "$(nginx_basic_server "$port")"
    check_status 200 "$URL_mem_basic" -H "$BASIC_ALICE"; check_status 200 "http://127.0.0.1:$port/index.html" -H "$BASIC_ALICE"
    sleep 1
    local -a ai ni aa na
    read -r -a ai <<< "$(py rss "$PID_mem_basic")"
    read -r -a ni <<< "$(py rss "$PID_nginx_mem")"
    say "   idle: authmock RSS $(mib "${ai[0]}"); nginx $(mib "${ni[0]}") over ${ni[2]} processes"
    row "idle RSS after start (lower is better)" "$(mib "${ai[0]}")" "nginx (worker_connections ${NGINX_WORKER_CONNECTIONS:-768}), master + $((ni[2] - 1)) workers" "$(mib "${ni[0]}")" "$(ratio "${ai[0]}" "${ni[0]}")"

    total=$(drive authmock "$PID_mem_basic" "$URL_mem_basic" "$BASIC_ALICE")
    read -r -a aa <<< "$(py rss "$PID_mem_basic")"
    read -r -a journal <<< "$(py journal-state "${URL_mem_basic}_authmock/journal")"
    say "   authmock journal: last seq ${journal[0]}, ${journal[1]} entries kept, ${journal[2]} evicted"
    drive nginx "$PID_nginx_mem" "http://127.0.0.1:$port/index.html" "$BASIC_ALICE" >/dev/null
    read -r -a na <<< "$(py rss "$PID_nginx_mem")"
    row "RSS after $total Basic 200s (lower is better)" "$(mib "${aa[0]}") (VmHWM $(mib "${aa[1]}"))" "nginx auth_basic, master + workers" "$(mib "${na[0]}")" "$(ratio "${aa[0]}" "${na[0]}")"
    note "Memory, Basic: after $total requests the journal's last seq is ${journal[0]}, ${journal[1]} entries are kept in memory and ${journal[2]} were evicted (\`--journal-limit\`, 10,000 by default). authmock's RSS after each ${MEM_CHUNK}-second wrk run, MiB: $(cat "$work/mem-authmock.rss")(idle $(mib "${ai[0]}")). RSS is /proc's VmRSS (VmHWM: its high-water mark); for nginx and Apache, the sum over the master and its workers (shared pages counted twice)."
    stop_pid "$PID_mem_basic"; stop_pid "$PID_nginx_mem"
}

# Digest 401s: each mints and remembers a nonce (nonce.remember: 10,000, then the oldest go).
memory_digest() {
    local aport total
    start_authmock mem_digest "$work/scen/digest-sha256.yaml"
    aport=$(free_port)
    start_apache "$aport"
    check_status 401 "$URL_mem_digest"; check_status 401 "http://127.0.0.1:$aport/index.html"
    sleep 1
    local -a ai ni aa na
    read -r -a ai <<< "$(py rss "$PID_mem_digest")"
    read -r -a ni <<< "$(py rss "$PID_apache")"
    say "   idle: authmock (Digest) RSS $(mib "${ai[0]}"); Apache $(mib "${ni[0]}") over ${ni[2]} processes"
    total=$(drive authmock-digest "$PID_mem_digest" "$URL_mem_digest" "")
    read -r -a aa <<< "$(py rss "$PID_mem_digest")"
    drive apache-digest "$PID_apache" "http://127.0.0.1:$aport/index.html" "" >/dev/null
    read -r -a na <<< "$(py rss "$PID_apache")"
    note "Memory, Digest 401s (each mints a nonce; \`nonce.remember\` keeps 10,000): authmock's RSS after each ${MEM_CHUNK}-second wrk run, MiB: $(cat "$work/mem-authmock-digest.rss")(idle $(mib "${ai[0]}"))."
    row "RSS after $total Digest 401s, a new nonce each (lower is better)" "$(mib "${aa[0]}") (VmHWM $(mib "${aa[1]}"); idle $(mib "${ai[0]}"))" "Apache mod_auth_digest, master + children" "$(mib "${na[0]}") (idle $(mib "${ni[0]}"))" "$(ratio "${aa[0]}" "${na[0]}")"
    command_note "memory" "wrk -t$THREADS -c$CONNECTIONS -d${MEM_CHUNK}s [-H 'Authorization: Basic …'] URL, repeated until $MEM_REQUESTS responses; VmRSS/VmHWM from /proc/PID/status"
    stop_pid "$PID_mem_digest"; stop_pid "$PID_apache"
}

section_memory() {
    say ""; say "### memory ($MEM_REQUESTS requests each)"
    memory_basic
    memory_digest
}
