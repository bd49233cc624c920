# shellcheck shell=bash
# The servers ci/bench measures, each on a free loopback port and registered in PIDS so that cleanup
# stops it: authmock (start_authmock), nginx (start_nginx, nginx_basic_server), Apache (start_apache).
# shellcheck disable=SC2154  # work, BIN, PIDS come from lib.sh; PID_apache is read by the sections

# start_authmock NAME SCENARIO [serve options…]: URL_<NAME> and PID_<NAME> are set.
start_authmock() {
    local name=$1 scenario=$2
    shift 2
    rm -f "$work/$name.ready"
    "$BIN" serve "$scenario" --port 0 --ready-file "$work/$name.ready" "$@" >/dev/null 2>"$work/logs/$name.log" &
    local pid=$!
    PIDS+=("$pid")
    for _ in $(seq 600); do [ -s "$work/$name.ready" ] && break; kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    [ -s "$work/$name.ready" ] || { cat "$work/logs/$name.log" >&2; die "authmock $scenario did not start"; }
    printf -v "PID_$name" '%s' "$pid"
    printf -v "URL_$name" '%s' "$(py field "$work/$name.ready" url)"
}
# Stops one of our servers (SIGTERM, then waits for it) and forgets its id, so that cleanup never
# signals an id the system may have given to another process since.
stop_pid() {
    local pid keep=()
    kill "$1" 2>/dev/null || true
    wait "$1" 2>/dev/null || true
    for pid in "${PIDS[@]}"; do [ "$pid" = "$1" ] || keep+=("$pid"); done
    PIDS=("${keep[@]}")
}

# The top of every nginx configuration (the profile section swaps in one process). worker_connections is
# Debian's default (768, NGINX_WORKER_CONNECTIONS to change it): nginx allocates its connection and event
# arrays for that many up front, so a larger figure would inflate the RSS authmock is compared with, and
# 768 is far above what any section opens (CONNECTIONS wrk connections, 4 h2load ones).
nginx_common() {
    cat <<CONF
worker_processes auto;
daemon off;
error_log $work/logs/nginx-error.log warn;
events { worker_connections ${NGINX_WORKER_CONNECTIONS:-768}; }
CONF
}
# nginx_http_block 'server { … }': the http block of the measured nginx servers (no access log, long
# keep-alive, temporary files in the scratch directory).
nginx_http_block() {
    cat <<CONF
http {
    access_log off;
    keepalive_requests 1000000;
    client_body_temp_path $work/logs;
    proxy_temp_path $work/logs;
    fastcgi_temp_path $work/logs;
    uwsgi_temp_path $work/logs;
    scgi_temp_path $work/logs;
    $1
}
CONF
}
# start_nginx NAME 'server { … }': PID_<NAME> is set. nginx runs as its default user (nobody) for workers.
start_nginx() {
    local name=$1 servers=$2 port
    {
        nginx_common
        echo "pid $work/$name.pid;"
        nginx_http_block "$servers"
    } > "$work/$name.conf"
    nginx -t -q -c "$work/$name.conf" || die "nginx refused $work/$name.conf"
    nginx -c "$work/$name.conf" &
    local pid=$!
    PIDS+=("$pid")
    port=$(grep -m1 -o 'listen 127.0.0.1:[0-9]*' "$work/$name.conf" | cut -d: -f2)
    wait_port "$port" "$pid" || die "nginx ($name) did not start; see $work/logs/nginx-error.log"
    printf -v "PID_$name" '%s' "$pid"
}

# nginx_h2_server PORT: auth_basic over http2 (TLS, Debian 12's nginx 1.22 predates `http2 on`) with the
# certificate and key authmock wrote to $work/h2certs (--certs-dir), the same users.htpasswd.
nginx_h2_server() {
    cat <<CONF
server {
        listen 127.0.0.1:$1 ssl http2;
        ssl_certificate $work/h2certs/chain.pem;
        ssl_certificate_key $work/h2certs/key.pem;
        root $work/www;
        location / {
            auth_basic "authmock bench";
            auth_basic_user_file $work/scen/users.htpasswd;
        }
    }
CONF
}

# The nginx auth_basic server: the same users.htpasswd, a file of the same 14 bytes, /public.html open.
nginx_basic_server() {
    cat <<CONF
server {
        listen 127.0.0.1:$1;
        root $work/www;
        location / {
            auth_basic "authmock bench";
            auth_basic_user_file $work/scen/users.htpasswd;
        }
        location = /public.html { auth_basic off; }
    }
CONF
}

# The users of users.htpasswd, as the sections send them.
# shellcheck disable=SC2034  # read by the sections
{
    BASIC_ALICE="Authorization: Basic $(printf 'alice:wonderland' | base64)"   # {SHA} in users.htpasswd
    BASIC_BOB="Authorization: Basic $(printf 'bob:builder' | base64)"          # $apr1$ in users.htpasswd
}

# start_apache PORT: PID_apache is set. mod_auth_digest, MD5 and qop=auth (all Debian's build offers),
# over the same htdigest file as authmock's MD5 scenario; no nonce expiry, no nc check (the default).
start_apache() {
    local port=$1
    mkdir -p "$work/apache/run"
    apache_conf "$port" > "$work/apache.conf"
    chmod -R a+rX "$work/apache"
    apache2 -f "$work/apache.conf" -DFOREGROUND &
    PID_apache=$!
    PIDS+=("$PID_apache")
    wait_port "$port" "$PID_apache" || { cat "$work/logs/apache-error.log" >&2; die "Apache did not start"; }
}
apache_conf() {
    local modules=/usr/lib/apache2/modules
    cat <<CONF
ServerRoot "$work/apache"
ServerName localhost
Listen 127.0.0.1:$1
PidFile "$work/apache/apache.pid"
DefaultRuntimeDir "$work/apache/run"
ErrorLog "$work/logs/apache-error.log"
LogLevel warn
LoadModule mpm_event_module $modules/mod_mpm_event.so
LoadModule authn_core_module $modules/mod_authn_core.so
LoadModule authn_file_module $modules/mod_authn_file.so
LoadModule authz_core_module $modules/mod_authz_core.so
LoadModule authz_user_module $modules/mod_authz_user.so
LoadModule auth_digest_module $modules/mod_auth_digest.so
$( [ "$(id -u)" = 0 ] && printf 'User nobody\nGroup nogroup\n' )
KeepAlive On
MaxKeepAliveRequests 0
DocumentRoot "$work/www"
<Directory "$work/www">
    AuthType Digest
    AuthName "authmock bench"
    AuthDigestProvider file
    AuthUserFile "$work/scen/users.htdigest"
    AuthDigestAlgorithm MD5
    AuthDigestQop auth
    AuthDigestNonceLifetime -1
    Require valid-user
</Directory>
CONF
}
