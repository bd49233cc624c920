# shellcheck shell=bash
# tls: new ECDSA P-256 handshakes per second (`Connection: close` over HTTPS), authmock against nginx
# serving the very certificate and key authmock generated. An LD_PRELOAD shim around wrk's SSL_connect
# (tls-shim.c) forces full handshakes (wrk otherwise resumes sessions) and counts full and resumed ones;
# the section also reports whether authmock resumes when allowed.
# shellcheck disable=SC2154  # work, BENCH_D, PID_* come from lib.sh and servers.sh

need_tls() { need wrk wrk; need nginx nginx-light; need gcc gcc; need openssl openssl; }

tls_counts() {  # FILES…: "full resumed" summed
    cat "$@" 2>/dev/null | awk '{f += $1; r += $2} END {printf "%d %d", f, r}'
}
# s_client_resumes PORT -tls1_2|-tls1_3: one request saving the session (tickets included), then one
# offering it; prints "yes" when the server resumed it.
s_client_resumes() {
    local session=$work/session$2-$1
    local second
    printf 'GET / HTTP/1.0\r\n\r\n' | timeout 10 openssl s_client -connect "127.0.0.1:$1" "$2" -sess_out "$session" -ign_eof >/dev/null 2>&1 || true
    second=$(printf 'GET / HTTP/1.0\r\n\r\n' | timeout 10 openssl s_client -connect "127.0.0.1:$1" "$2" -sess_in "$session" -ign_eof 2>/dev/null || true)
    if grep -q '^Reused' <<< "$second"; then
        echo yes
    else
        echo no
    fi
}

# tls_resumption AUTHMOCK_PORT NGINX_PORT AUTHMOCK_URL NGINX_URL: does each server resume a session the
# client offers (openssl s_client), and what plain wrk gets for 2 s; a finding, not a row.
tls_resumption() {
    local aport=$1 port=$2 aurl=$3 nurl=$4 a12 a13 n12 n13 ar pr
    a12=$(s_client_resumes "$aport" -tls1_2); a13=$(s_client_resumes "$aport" -tls1_3)
    n12=$(s_client_resumes "$port" -tls1_2); n13=$(s_client_resumes "$port" -tls1_3)
    WRK_PRELOAD=$work/tls-shim.so TLS_FORCE_FULL=0 DURATION=2 load_wrk "$work/wrk-tls-resume-a.txt" 200 "$aurl" -H 'Connection: close' >/dev/null
    WRK_PRELOAD=$work/tls-shim.so TLS_FORCE_FULL=0 DURATION=2 load_wrk "$work/wrk-tls-resume-p.txt" 200 "$nurl" -H 'Connection: close' >/dev/null
    ar=$(tls_counts "$work/wrk-tls-resume-a.txt.tls"); pr=$(tls_counts "$work/wrk-tls-resume-p.txt.tls")
    say "   does the server resume a session the client offers? authmock: TLS 1.2 $a12, TLS 1.3 $a13 (openssl s_client -sess_out/-sess_in); plain wrk for 2 s: ${ar% *} full, ${ar#* } resumed handshakes"
    say "   nginx (ssl_session_tickets off, ssl_session_cache off): TLS 1.2 $n12, TLS 1.3 $n13; plain wrk: ${pr% *} full, ${pr#* } resumed"
    note "TLS resumption when the client offers a session: authmock (NIOSSL's defaults) resumes: TLS 1.2 $a12, TLS 1.3 $a13 (\`openssl s_client -sess_out\`, then \`-sess_in\`); plain wrk, which offers its last session on every reconnect, got ${ar% *} full and ${ar#* } resumed handshakes in 2 s. nginx with \`ssl_session_tickets off; ssl_session_cache off;\`: TLS 1.2 $n12, TLS 1.3 $n13; plain wrk ${pr% *} full, ${pr#* } resumed."
}

section_tls() {
    say ""; say "### tls"
    gcc -O2 -shared -fPIC -o "$work/tls-shim.so" "$BENCH_D/tls-shim.c" -ldl
    start_authmock tls "$work/scen/tls-handshake.yaml" --certs-dir "$work/certs"
    chmod -R a+rX "$work/certs"
    local port; port=$(free_port)
    start_nginx nginx_tls "server {
        listen 127.0.0.1:$port ssl;
        ssl_certificate $work/certs/chain.pem;
        ssl_certificate_key $work/certs/key.pem;
        ssl_session_tickets off;
        ssl_session_cache off;
        root $work/www;
    }"
    local aport aurl nurl="https://127.0.0.1:$port/index.html"
    aport=$(py field "$work/tls.ready" port)
    aurl="https://127.0.0.1:$aport/"
    check_status 200 "$aurl"; check_status 200 "$nurl"
    local key; key=$(openssl pkey -in "$work/certs/key.pem" -noout -text 2>/dev/null | grep -m1 -o 'NIST CURVE: P-256\|prime256v1' || true)
    [ -n "$key" ] || die "the generated key is not ECDSA P-256"
    # Does authmock resume sessions when the client offers one? (nginx here: tickets and cache off.)
    tls_resumption "$aport" "$port" "$aurl" "$nurl"

    TLS_FORCE_FULL=1 WRK_PRELOAD=$work/tls-shim.so throughput_row tls "new TLS handshakes (ECDSA P-256), \`Connection: close\`" "nginx, the same cert and key" 200 \
        "$aurl" "" "$nurl" "" -H 'Connection: close'
    local ac pc
    ac=$(tls_counts "$work"/wrk-tls-a*.txt.tls); pc=$(tls_counts "$work"/wrk-tls-p*.txt.tls)
    say "   handshakes counted in wrk: authmock ${ac% *} full / ${ac#* } resumed; nginx ${pc% *} full / ${pc#* } resumed"
    if [ "${ac#* }" != 0 ] || [ "${pc#* }" != 0 ]; then invalid_row; say "WARNING: resumed handshakes in the TLS row"; fi
    note "TLS row: wrk runs with an LD_PRELOAD shim around \`SSL_connect\` that drops the session before each connect (so neither server can resume) and counts: authmock ${ac% *} full / ${ac#* } resumed, nginx ${pc% *} full / ${pc#* } resumed. Both serve the self-signed P-256 leaf authmock generated (\`--certs-dir\`: chain.pem, key.pem); TLS 1.3 with wrk's defaults."
    command_note "TLS shim" "LD_PRELOAD=tls-shim.so TLS_FORCE_FULL=1 TLS_COUNT_FILE=… wrk … (the shim's source is ci/bench.d/tls-shim.c)"
    stop_pid "$PID_tls"; stop_pid "$PID_nginx_tls"
}
