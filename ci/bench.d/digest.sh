# shellcheck shell=bash
# digest: Digest qop=auth with one precomputed Authorization header replayed by wrk (the bench scenarios
# disable nc checks and nonce expiry): authmock SHA-256 and MD5 against Apache mod_auth_digest (MD5 only
# in Debian's build) over the same htdigest file; the 401 path, which mints a nonce per request.
# shellcheck disable=SC2154  # work, URL_*, PID_* come from lib.sh and servers.sh

need_digest() { need wrk wrk; need apache2 apache2; }

section_digest() {
    say ""; say "### digest"
    start_authmock sha256 "$work/scen/digest-sha256.yaml"
    start_authmock md5 "$work/scen/digest-md5.yaml"
    local port; port=$(free_port)
    start_apache "$port"
    local apache="http://127.0.0.1:$port/index.html" h_sha256 h_md5 h_apache
    h_sha256="Authorization: $(py digest-header "$URL_sha256" alice wonderland)"
    h_md5="Authorization: $(py digest-header "$URL_md5" alice wonderland)"
    h_apache="Authorization: $(py digest-header "$apache" alice wonderland)"
    # The header computed once must keep working when replayed: check twice each.
    for _ in 1 2; do
        check_status 200 "$URL_sha256" -H "$h_sha256"; check_status 200 "$URL_md5" -H "$h_md5"; check_status 200 "$apache" -H "$h_apache"
    done
    check_status 401 "$URL_md5"; check_status 401 "$apache"
    throughput_row digest-sha256 "Digest SHA-256 qop=auth 200, replayed header (peer: MD5, all it offers)" "Apache mod_auth_digest MD5" 200 \
        "$URL_sha256" "$h_sha256" "$apache" "$h_apache"
    throughput_row digest-md5 "Digest MD5 qop=auth 200, replayed header, same htdigest file" "Apache mod_auth_digest MD5" 200 \
        "$URL_md5" "$h_md5" "$apache" "$h_apache"
    throughput_row digest-401 "Digest 401 challenge, a fresh nonce per request" "Apache mod_auth_digest MD5" 401 \
        "$URL_md5" "" "$apache" ""
    note "Digest: the bench scenarios (\`ci/bench-scenarios/digest-*.yaml\`) set \`nonce: {strict-nc: false}\` with no lifetime and no max-uses, so one header computed from a real challenge is replayed; every other check still runs. Apache: Debian's mod_auth_digest offers MD5 only; \`AuthDigestQop auth\`, \`AuthDigestNonceLifetime -1\`, no nc check (the default), mpm_event, \`MaxKeepAliveRequests 0\`, no access log. authmock MD5 and Apache read the same \`users.htdigest\`."
    note "Digest 401: authmock signs each nonce (HMAC-SHA-256) and remembers it (the oldest of 10,000 are evicted); Apache's nonce is a hash of a timestamp and a secret, kept nowhere."
    stop_pid "$PID_sha256"; stop_pid "$PID_md5"; stop_pid "$PID_apache"
}
