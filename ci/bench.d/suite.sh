# shellcheck shell=bash
# suite: `authmock check --client curl` over the whole conformance suite: wall time, curl's own time, and
# the runner's overhead per case (also measured with the client `true`).
# shellcheck disable=SC2154  # work, BIN, SUITE_RUNS come from ci/bench and lib.sh

need_suite() { need hyperfine hyperfine; }

section_suite() {
    say ""; say "### suite (hyperfine, $SUITE_RUNS runs each)"
    local q; q=$(printf '%q' "$BIN")
    # hyperfine -N runs the commands without a shell; -i: a suite with failing cases exits 1.
    hyperfine -N -i --warmup 1 --runs "$SUITE_RUNS" --export-json "$work/suite-hyperfine.json" \
        "$q check --client curl --no-color --json $work/suite-curl.json" \
        "$q check --no-color -- true" >&2
    local -a s
    read -r -a s <<< "$(py suite "$work/suite-hyperfine.json" "$work/suite-curl.json")"
    local cases=${s[0]} wall=${s[1]} wall_true=${s[2]} client=${s[3]}
    local per_case per_true
    per_case=$(awk -v w="$wall" -v c="$client" -v n="$cases" 'BEGIN { printf "%.1f", (w - c) * 1000 / n }')
    per_true=$(awk -v w="$wall_true" -v n="$cases" 'BEGIN { printf "%.1f", w * 1000 / n }')
    say "   $cases cases against curl: ${wall} s wall, curl's own time ${client} s (summed; cases run side by side), wall less curl ${per_case} ms per case (verdicts: ${s[4]})"
    say "   the same cases against \`true\`: ${wall_true} s wall, ${per_true} ms per case"
    # Cases run side by side (`check`'s default jobs), so curl's summed time can exceed the wall time: the
    # wall time less curl's says nothing per case then, and the runner's own cost is the `true` row's.
    row "conformance suite against curl ($cases cases, run side by side), wall time" "${wall} s" "curl's own time, summed over the cases" "${client} s" "$(ratio "$wall" "$client")"
    row "runner overhead per case (client: \`true\`)" "${per_true} ms" "—" "—" "—"
    local -a phases
    read -r -a phases <<< "$(py suite-phases "$SUITE_RUNS" "$BIN" check --no-color -- true)"
    say "   where the time goes with \`true\`: ${phases[0]} ms to the first case's line, ${phases[1]} ms per case, ${phases[2]} ms from the last case's line to exit"
    note "Suite with the client \`true\` (medians of $SUITE_RUNS runs): ${phases[0]} ms from spawn to the first case's progress line (loading the suite), ${phases[1]} ms per case between progress lines, ${phases[2]} ms from the last case's line to exit."
    command_note "suite" "hyperfine -N -i --warmup 1 --runs $SUITE_RUNS '$BIN check --client curl --no-color --json suite-curl.json' '$BIN check --no-color -- true'"
    note "Suite: curl's own time is the sum of each case's client time in \`--json\` (spawn to exit, as the runner measures it); the rest of the wall time is the runner: loading the cases, generating TLS identities, starting a server per case, waiting for the connections to close, judging. The runner learns of the client's exit from Foundation's termination handler (a SIGCHLD source, \`ClientProcess\`), not a poll, so a case's client time is the client's own. Verdicts of the curl run: ${s[4]}."
}
