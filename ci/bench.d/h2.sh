# shellcheck shell=bash
# h2: Basic 200s over HTTP/2 with many streams per connection (h2load: H2_CONNECTIONS connections,
# H2_STREAMS concurrent streams each), authmock (`http2: offer`) against nginx (`listen … ssl http2`,
# Debian 12's nginx 1.22 predates `http2 on`) with auth_basic over the same users.htpasswd, the same
# certificate and key.
# shellcheck disable=SC2154  # work, BENCH_D, PID_*, URL_*, BASIC_ALICE come from lib.sh and servers.sh

H2_CONNECTIONS=${H2_CONNECTIONS:-4}
H2_STREAMS=${H2_STREAMS:-32}

need_h2() { need h2load nghttp2-client; need nginx nginx-light; }

# load_h2load OUT EXPECT URL [h2load args…]: prints "rate requests non2xx", as load_wrk does.
load_h2load() {
    local out=$1 expect=$2 url=$3 rate requests ok
    shift 3
    h2load -c"$H2_CONNECTIONS" -m"$H2_STREAMS" -t"$THREADS" -D"$DURATION" "$@" "$url" > "$out" 2>&1
    rate=$(awk '/^finished in/ {gsub(",", "", $4); print $4}' "$out")
    requests=$(awk '/^requests:/ {print $2}' "$out")
    ok=$(awk '/^status codes:/ {print $3}' "$out")
    [ -n "$rate" ] || { cat "$out" >&2; die "h2load printed no rate for $url"; }
    if [ "$expect" = 200 ] && [ "${ok:-0}" != "${requests:-x}" ]; then
        say "WARNING: ${ok:-0} of $requests responses from $url were 2xx: the row is not valid"
        echo bad > "$work/invalid"
    fi
    grep -q "Application protocol: h2" "$out" || { say "WARNING: h2load did not negotiate h2 with $url"; echo bad > "$work/invalid"; }
    echo "$rate $requests $((requests - ${ok:-0}))"
}
load_h2load_command() { printf 'h2load -c%s -m%s -t%s -D%s' "$H2_CONNECTIONS" "$H2_STREAMS" "$THREADS" "$DURATION"; }

section_h2() {
    say ""; say "### h2"
    mkdir -p "$work/h2certs"
    start_authmock h2 "$work/scen/h2-basic.yaml" --certs-dir "$work/h2certs"
    chmod -R a+rX "$work/h2certs"
    local port; port=$(free_port)
    start_nginx nginx_h2 "$(nginx_h2_server "$port")"
    local aport aurl nurl="https://127.0.0.1:$port/index.html"
    aport=$(py field "$work/h2.ready" port)
    aurl="https://127.0.0.1:$aport/"
    check_status 200 "$aurl" --http2 -H "$BASIC_ALICE"; check_status 200 "$nurl" --http2 -H "$BASIC_ALICE"
    LOAD=h2load throughput_row h2-basic "Basic 200 over HTTP/2, $H2_CONNECTIONS connections × $H2_STREAMS streams" "nginx auth_basic, http2" 200 \
        "$aurl" "$BASIC_ALICE" "$nurl" "$BASIC_ALICE"
    note "h2: both servers negotiate h2 in ALPN over TLS 1.3 with the same self-signed P-256 certificate (authmock's, from \`--certs-dir\`) and read the same \`users.htpasswd\` (alice \`{SHA}\`); h2load keeps $H2_STREAMS streams in flight on each of $H2_CONNECTIONS connections. authmock journals every stream in memory."
    stop_pid "$PID_h2"; stop_pid "$PID_nginx_h2"
}
