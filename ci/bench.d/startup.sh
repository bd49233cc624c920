# shellcheck shell=bash
# startup: exec to the ready line and to the first authenticated 200 (median of STARTUP_RUNS): authmock
# HTTPS with a generated CA + intermediate + leaf against nginx HTTPS auth_basic; authmock plain HTTP
# against httpbin on gunicorn (installed into .build/bench-venv). bench.py's `startup` does the timing.
# shellcheck disable=SC2154  # work, BIN, ROOT, STARTUP_RUNS come from ci/bench and lib.sh

need_startup() { need nginx nginx-light; }

# httpbin and gunicorn: the system Python's if they import, else a venv under .build.
httpbin_gunicorn() {
    if python3 -c 'import httpbin, gunicorn' 2>/dev/null && command -v gunicorn >/dev/null; then command -v gunicorn; return; fi
    local venv=$ROOT/.build/bench-venv
    if [ ! -x "$venv/bin/gunicorn" ] || ! "$venv/bin/python" -c 'import httpbin, gunicorn' 2>/dev/null; then
        say "installing httpbin and gunicorn into $venv…"
        if ! python3 -m venv "$venv" >&2 2>/dev/null; then
            [ "$(id -u)" = 0 ] && apt_install python3-venv && python3 -m venv "$venv" >&2 || return 1
        fi
        "$venv/bin/pip" install -q httpbin gunicorn >&2 || return 1
    fi
    echo "$venv/bin/gunicorn"
}

# nginx_startup_conf PORT: nginx over HTTPS with auth_basic, a P-256 certificate made beforehand.
nginx_startup_conf() {
    mkdir -p "$work/nginx-cert"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=localhost \
        -keyout "$work/nginx-cert/key.pem" -out "$work/nginx-cert/cert.pem" 2>/dev/null
    chmod -R a+rX "$work/nginx-cert"
    cat > "$work/nginx-startup.conf" <<CONF
$(nginx_common)
pid $work/nginx-startup.pid;
http {
    access_log off;
    server {
        listen 127.0.0.1:$1 ssl;
        ssl_certificate $work/nginx-cert/cert.pem;
        ssl_certificate_key $work/nginx-cert/key.pem;
        root $work/www;
        location / {
            auth_basic "authmock bench";
            auth_basic_user_file $work/scen/users.htpasswd;
        }
    }
}
CONF
}

# startup_httpbin PLAIN-FIGURES…: the HTTP row, against httpbin when it can be installed.
startup_httpbin() {
    local gunicorn label="start-up: exec → first authenticated 200 over HTTP, ms (lower is better)"
    if gunicorn=$(httpbin_gunicorn); then
        local -a hbr
        read -r -a hbr <<< "$(py startup httpbin "$STARTUP_RUNS" "$gunicorn")"
        say "   httpbin on gunicorn (1 sync worker), HTTP: first 200 ${hbr[0]} ms (p90 ${hbr[1]}, min ${hbr[2]})"
        row "$label" "$1 ms (ready line $4 ms)" "httpbin on gunicorn" "${hbr[0]} ms" "$(ratio "$1" "${hbr[0]}")"
        command_note "start-up, httpbin" "$gunicorn -b 127.0.0.1:PORT -w 1 httpbin:app, polled at /basic-auth/alice/wonderland"
    else
        say "   httpbin: could not be installed; row skipped"
        row "$label" "$1 ms (ready line $4 ms)" "httpbin (not installable here)" "—" "—"
    fi
}

section_startup() {
    say ""; say "### startup ($STARTUP_RUNS runs each, median)"
    local port; port=$(free_port)
    nginx_startup_conf "$port"
    local tls plain ng
    read -r -a tls <<< "$(py startup authmock "$STARTUP_RUNS" "$BIN" scenarios/tls-ca-signed.yaml tls)"
    say "   authmock HTTPS (scenarios/tls-ca-signed.yaml: generates CA, intermediate, P-256 leaf): ready line ${tls[3]} ms, first 200 ${tls[0]} ms (p90 ${tls[1]}, min ${tls[2]})"
    read -r -a plain <<< "$(py startup authmock "$STARTUP_RUNS" "$BIN" scenarios/basic.yaml http)"
    say "   authmock HTTP (scenarios/basic.yaml): ready line ${plain[3]} ms, first 200 ${plain[0]} ms (p90 ${plain[1]}, min ${plain[2]})"
    read -r -a ng <<< "$(py startup nginx "$STARTUP_RUNS" "$(command -v nginx)" "$work/nginx-startup.conf" "$port")"
    say "   nginx HTTPS auth_basic: first 200 ${ng[0]} ms (p90 ${ng[1]}, min ${ng[2]})"
    row "start-up: exec → first authenticated 200 over HTTPS, ms (lower is better)" "${tls[0]} ms (ready line ${tls[3]} ms)" "nginx auth_basic, P-256 cert from disk" "${ng[0]} ms" "$(ratio "${tls[0]}" "${ng[0]}")"
    startup_httpbin "${plain[@]}"
    command_note "start-up, authmock" "$BIN serve scenarios/tls-ca-signed.yaml --port 0 (and scenarios/basic.yaml): clock from spawn to the JSON line on stdout, then to the first 200 of GET / with Basic alice"
    command_note "start-up, nginx" "nginx -c nginx-startup.conf (daemon off, worker_processes auto), polled every 0.5 ms with GET /index.html over HTTPS"
    note "Start-up: medians of $STARTUP_RUNS runs after one discarded warm-up run; a Python loop spawns the server and polls every 0.5 ms (connection refused → retry). authmock generates its keys (ECDSA P-256 CA, intermediate and leaf) at every start; nginx loads a P-256 certificate from disk."
}
