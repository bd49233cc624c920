# shellcheck shell=bash
# basic: Basic 200s with keep-alive, authmock against nginx auth_basic over the same htpasswd file
# ({SHA} alice, $apr1$ bob); the open resource against nginx's static file (the machine's ceiling);
# the 401 challenge path.
# shellcheck disable=SC2154  # work, URL_basic, PID_* come from lib.sh and servers.sh

need_basic() { need wrk wrk; need nginx nginx-light; }

section_basic() {
    say ""; say "### basic"
    start_authmock basic "$work/scen/basic-htpasswd.yaml"
    local port; port=$(free_port)
    cp "$work/www/index.html" "$work/www/public.html"
    start_nginx nginx_basic "$(nginx_basic_server "$port")"
    local n="http://127.0.0.1:$port"
    check_status 200 "$URL_basic" -H "$BASIC_ALICE"; check_status 200 "$n/index.html" -H "$BASIC_ALICE"
    check_status 200 "$URL_basic" -H "$BASIC_BOB";   check_status 200 "$n/index.html" -H "$BASIC_BOB"
    check_status 401 "$URL_basic";                   check_status 401 "$n/index.html"
    check_status 200 "${URL_basic}public";           check_status 200 "$n/public.html"
    throughput_row basic-sha "Basic 200, {SHA} user file, keep-alive" "nginx auth_basic" 200 \
        "$URL_basic" "$BASIC_ALICE" "$n/index.html" "$BASIC_ALICE"
    throughput_row basic-apr1 "Basic 200, \$apr1\$ user file, keep-alive" "nginx auth_basic" 200 \
        "$URL_basic" "$BASIC_BOB" "$n/index.html" "$BASIC_BOB"
    throughput_row basic-401 "401 challenge (no credentials), keep-alive" "nginx auth_basic" 401 \
        "$URL_basic" "" "$n/index.html" ""
    throughput_row ceiling "open resource, no auth (nginx: the machine's ceiling)" "nginx static file" 200 \
        "${URL_basic}public" "" "$n/public.html" ""
    note "Basic: authmock and nginx read the same \`ci/bench-scenarios/users.htpasswd\` (alice \`{SHA}\`, bob \`\$apr1\$\`); both answer the same 14-byte body. authmock journals every exchange in memory (nginx: \`access_log off\`). nginx: \`worker_processes auto\`, \`keepalive_requests 1000000\`; authmock: one event loop per core (NIO's singleton group). authmock remembers each (hash, password) pair it verified (4,096 of them), so bob's \`\$apr1\$\` (1,000 rounds of MD5) is computed once; nginx computes it on every request."
    stop_pid "$PID_basic"; stop_pid "$PID_nginx_basic"
}
