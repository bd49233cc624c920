# shellcheck shell=bash
# Measuring: a load generator run once (load_wrk), alternating rounds and medians (throughput_row),
# the figures' formats (krate, mib, ratio) and the sanity check every row starts with (check_status).
# shellcheck disable=SC2154  # work, ROUNDS, DURATION, CONNECTIONS, THREADS, WARMUP come from ci/bench and lib.sh

LOAD=wrk        # the load generator of throughput_row: load_$LOAD runs it, load_${LOAD}_command names it
WRK_PRELOAD=    # set to the TLS shim while measuring handshakes

# load_wrk OUT EXPECT URL [wrk args…]: prints "rate requests non2xx" (wrk's output stays in OUT);
# marks the row invalid when a 200 row saw anything else, or a 401 row anything but 401s.
load_wrk() {
    local out=$1 expect=$2 url=$3 rate requests non2xx errors
    shift 3
    if [ -n "$WRK_PRELOAD" ]; then
        LD_PRELOAD=$WRK_PRELOAD TLS_COUNT_FILE=$out.tls wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" "$@" "$url" > "$out"
    else
        wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" "$@" "$url" > "$out"
    fi
    rate=$(awk '/^Requests\/sec/ {print $2}' "$out")
    requests=$(awk '/ requests in / {print $1}' "$out")
    non2xx=$(awk '/Non-2xx or 3xx responses/ {print $NF}' "$out")
    non2xx=${non2xx:-0}
    errors=$(awk '/Socket errors/ {sub(/.*Socket errors: /, ""); print}' "$out")
    [ -n "$rate" ] || { cat "$out" >&2; die "wrk printed no rate for $url"; }
    if [ "$expect" = 200 ] && [ "$non2xx" != 0 ]; then
        say "WARNING: $non2xx of $requests responses from $url were not 2xx: the row is not valid"
        echo bad > "$work/invalid"
    elif [ "$expect" = 401 ] && [ "$non2xx" -lt $((requests * 99 / 100)) ]; then
        say "WARNING: only $non2xx of $requests responses from $url were 401s: the row is not valid"
        echo bad > "$work/invalid"
    fi
    [ -z "$errors" ] || say "   (wrk socket errors against $url: $errors)"
    echo "$rate $requests $non2xx"
}
load_wrk_command() { printf 'wrk -t%s -c%s -d%ss' "$THREADS" "$CONNECTIONS" "$DURATION"; }

median() { sort -g | awk '{a[NR]=$1} END {if (NR == 0) print 0; else print (NR % 2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
krate() { awk -v r="$1" 'BEGIN { if (r >= 10000) printf "%.1f k/s", r/1000; else if (r >= 1000) printf "%.2f k/s", r/1000; else printf "%.0f /s", r }'; }
mib() { awk -v k="$1" 'BEGIN { printf "%.1f MiB", k / 1024 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a/b; else print "—" }'; }
check_status() {  # EXPECT URL [curl args…]
    local expect=$1 url=$2 code
    shift 2
    code=$(curl -sk -o /dev/null -w '%{http_code}' "$@" "$url")
    [ "$code" = "$expect" ] || die "sanity check: $url answered $code, expected $expect (curl $* $url)"
}
quoted() {  # the arguments as a shell would need them, single-quoted where needed
    local out="" arg
    for arg in "$@"; do
        if [[ $arg =~ ^[A-Za-z0-9_./:=@%+-]+$ ]]; then out+="$arg "; else out+="'${arg//\'/\'\\\'\'}' "; fi
    done
    printf '%s' "$out"
}

# throughput_row ID LABEL PEER EXPECT AUTHMOCK_URL AUTHMOCK_HEADER PEER_URL PEER_HEADER [load args for both…]
# One row of requests per second: a warm-up of WARMUP seconds each, then ROUNDS rounds that alternate the
# order (authmock first, then the peer first…); the medians and their ratio go into the table, the rounds
# into the notes, both command lines into the commands. The outputs stay in $work/wrk-ID-{a,p}N.txt.
throughput_row() {
    local id=$1 label=$2 peer=$3 expect=$4 aurl=$5 ahdr=$6 purl=$7 phdr=$8 round a p
    shift 8
    local -a aargs=("$@") pargs=("$@")
    [ -z "$ahdr" ] || aargs+=(-H "$ahdr")
    [ -z "$phdr" ] || pargs+=(-H "$phdr")
    rm -f "$work/invalid"
    say "== $label: authmock vs $peer ($("load_${LOAD}_command"), $ROUNDS alternating rounds)"
    if [ "$WARMUP" != 0 ]; then
        DURATION=$WARMUP "load_$LOAD" "$work/warm-$id-a.txt" "$expect" "$aurl" "${aargs[@]}" >/dev/null
        DURATION=$WARMUP "load_$LOAD" "$work/warm-$id-p.txt" "$expect" "$purl" "${pargs[@]}" >/dev/null
    fi
    : > "$work/$id.a"; : > "$work/$id.p"
    for round in $(seq "$ROUNDS"); do
        if [ $((round % 2)) = 1 ]; then
            a=$("load_$LOAD" "$work/wrk-$id-a$round.txt" "$expect" "$aurl" "${aargs[@]}")
            p=$("load_$LOAD" "$work/wrk-$id-p$round.txt" "$expect" "$purl" "${pargs[@]}")
        else
            p=$("load_$LOAD" "$work/wrk-$id-p$round.txt" "$expect" "$purl" "${pargs[@]}")
            a=$("load_$LOAD" "$work/wrk-$id-a$round.txt" "$expect" "$aurl" "${aargs[@]}")
        fi
        echo "${a%% *}" >> "$work/$id.a"; echo "${p%% *}" >> "$work/$id.p"
        say "   round $round: authmock $(krate "${a%% *}")   $peer $(krate "${p%% *}")"
    done
    local A P flag=""
    A=$(median < "$work/$id.a"); P=$(median < "$work/$id.p")
    [ ! -f "$work/invalid" ] || { flag=" ⚠ invalid: unexpected statuses"; invalid_row; }
    say "   median:  authmock $(krate "$A")   $peer $(krate "$P")   ratio $(ratio "$A" "$P")$flag"
    row "$label" "$(krate "$A")" "$peer" "$(krate "$P")" "$(ratio "$A" "$P")$flag"
    note "Rounds, $label (req/s, in order): authmock $(awk '{printf "%.0f ", $1}' "$work/$id.a")| $peer $(awk '{printf "%.0f ", $1}' "$work/$id.p")"
    command_note "$label, authmock" "$("load_${LOAD}_command") $(quoted "${aargs[@]}")$aurl"
    command_note "$label, $peer" "$("load_${LOAD}_command") $(quoted "${pargs[@]}")$purl"
}
