# shellcheck shell=bash disable=SC2034,SC2154 # variables shared with the script that sources it
# What scripts/failover (a promotion by hand) and scripts/failover-patroni (Patroni's) share:
# two tablekeeper replicas on a multi-host DATABASE_URL, 16 scorers of one session with
# Idempotency-Keys (examples/load.rs --acks), and the checks after the failover. Sourced, with
# `say` set up by the caller, from the repository's root; uses `$work` (a scratch folder).

fail() {
    say "FAILED: $*"
    exit 1
}
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
as_pg() {
    if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
now_ms() { date +%s%3N; }

scripts/sqlx-core # vendor/sqlx-core, the patched sqlx-core Cargo builds (patches/README.md)
cargo build --quiet --bin tablekeeper --example load
bin=$PWD/target/debug/tablekeeper
load_bin=$PWD/target/debug/examples/load

export JWT_SECRET=failover-check-secret-failover-check-secret-0123456789
export AUDIT_SIGNING_KEY=6f2e1d0c9b8a7f6e5d4c3b2a1f0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e
export RUST_LOG=${RUST_LOG:-warn}
export WORKERS=2
email=failover@check.invalid
password='load test password'
servers=()
bases=()
load=
acks=

# Stops the scorers and the replicas (for the caller's trap).
stop_service() {
    [ -n "$load" ] && kill "$load" 2>/dev/null
    for pid in "${servers[@]}"; do kill "$pid" 2>/dev/null && { wait "$pid" 2>/dev/null || true; }; done
    return 0
}

# start_replicas PORT...: migrates DATABASE_URL and serves it on each port, once all are ready.
start_replicas() {
    "$bin" migrate >"$work/migrate.log" 2>&1 || { cat "$work/migrate.log" >&2; fail "cannot migrate"; }
    local port base
    for port in "$@"; do
        BIND="127.0.0.1:$port" "$bin" serve >"$work/server-$port.log" 2>&1 &
        servers+=($!)
        bases+=("http://127.0.0.1:$port")
    done
    for base in "${bases[@]}"; do
        for _ in $(seq 100); do
            curl -sf "$base/api/v1/readyz" >/dev/null && break
            sleep 0.2
        done
        curl -sf "$base/api/v1/readyz" >/dev/null || { cat "$work"/server-*.log >&2; fail "$base did not become ready"; }
    done
}

# start_scorers SECONDS RETRY_FOR: 16 scorers over the replicas, in the background; each
# acknowledged move is written to $acks.
start_scorers() {
    acks=$work/acks
    : >"$acks"
    "$load_bin" --base "$(IFS=,; echo "${bases[*]}")" --tables 16 --deals 13 \
        --seconds "$1" --session --email "$email" --acks "$acks" --retry-for "$2" >"$work/load.log" 2>&1 &
    load=$!
}

# wait_for_acks N TENTHS: until N moves are acknowledged, or TENTHS tenths of a second.
wait_for_acks() {
    for _ in $(seq "$2"); do
        [ "$(wc -l <"$acks")" -ge "$1" ] && break
        sleep 0.1
    done
}

finish_scorers() {
    wait "$load" || { load=; cat "$work/load.log" >&2; fail "a scorer gave up (see above)"; }
    load=
    cat "$work/load.log" >&2
}

# check_log URL: every acknowledged move is in the log at URL, once: each table's log holds as
# many moves as its scorer was answered for (a scorer waits for each answer, and gives up on
# anything but a 2xx after its retries, so a move recorded twice or without an answer shows).
check_log() {
    local counts lost extra
    total=$(wc -l <"$acks")
    counts=$(psql "$1" -XAtq -F ' ' -v ON_ERROR_STOP=1 \
        -c "create temp table acks (table_id uuid, seq bigint, acknowledged_ms bigint, sent_ms bigint)" \
        -c "\\copy acks from pstdin with (delimiter ' ')" \
        -c "select (select count(*) from acks a where not exists
                    (select 1 from moves m where m.table_id = a.table_id and m.seq = a.seq)),
                   (select count(*) from moves m join game_tables t on t.id = m.table_id
                    where t.session_id = (select t2.session_id from game_tables t2
                                          where t2.id = (select table_id from acks limit 1)))
                   - (select count(*) from (select distinct table_id, seq from acks) d)" \
        <"$acks") || fail "cannot read the log at $1"
    read -r lost extra <<<"$counts"
    [ "$lost" = 0 ] || fail "$lost of $total acknowledged moves are not in the log"
    [ "$extra" = 0 ] || fail "the log holds $extra moves more than the $total acknowledged (a retry recorded twice?)"
}

# check_audits: every table of the organiser's sessions audits consistent and each session's
# bundle verifies with the service's public key.
check_audits() {
    local api token key audit session table
    api=${bases[0]}/api/v1
    token=$(curl -sf -H 'Content-Type: application/json' "$api/auth/login" \
        -d "$(jq -n --arg e "$email" --arg p "$password" '{email: $e, password: $p}')" | jq -er .token) ||
        fail "cannot log in after the failover"
    key=$(curl -sf "$api/audit-key" | jq -er .public_key) || fail "no audit key"
    tables=0
    sessions=0
    for session in $(curl -sf -H "Authorization: Bearer $token" "$api/sessions?limit=500" | jq -r '.items[].id'); do
        for table in $(curl -sf -H "Authorization: Bearer $token" "$api/tables?session_id=$session&limit=500" | jq -r '.items[].id'); do
            audit=$(curl -sf -H "Authorization: Bearer $token" "$api/tables/$table/audit") || fail "no audit of table $table"
            [ "$(jq -r .consistent <<<"$audit")" = true ] || fail "table $table does not audit consistent: $audit"
            tables=$((tables + 1))
        done
        curl -sf -H "Authorization: Bearer $token" "$api/sessions/$session/audit-bundle" -o "$work/bundle.json" ||
            fail "no audit bundle of session $session"
        "$bin" verify "$work/bundle.json" --key "$key" >/dev/null || fail "the bundle of session $session does not verify"
        sessions=$((sessions + 1))
    done
    [ "$tables" -ge 16 ] || fail "expected 16 tables or more, found $tables"
}

# check_followed URL DATABASE: both replicas followed the new primary at URL without a restart,
# their live streams' LISTEN connection included.
check_followed() {
    local i failovers
    listeners=$(psql "$1" -XAtqc \
        "select count(*) from pg_stat_activity where datname = '$2' and query ilike 'listen %'") ||
        fail "cannot read the new primary's pg_stat_activity"
    [ "$listeners" -ge 2 ] || fail "the replicas' LISTEN connections did not follow ($listeners on the new primary)"
    for i in "${!servers[@]}"; do
        kill -0 "${servers[$i]}" 2>/dev/null || fail "replica ${bases[$i]} died"
        failovers=$(curl -sf "${bases[$i]}/metrics" | awk '/^tablekeeper_database_failovers_total/ {print $2}')
        [ "${failovers:-0}" -ge 1 ] || fail "replica ${bases[$i]} did not fail over (tablekeeper_database_failovers_total=${failovers:-none})"
    done
}

# first_accepted KILLED_MS: sets `first` to when the first move accepted among those sent after
# the kill was acknowledged (an answer that arrived after it may be to a move committed before
# it), and `after_kill` to how many were acknowledged after the kill.
first_accepted() {
    first=$(awk -v k="$1" '$4 > k && (m == "" || $3 < m) {m = $3} END {print m}' "$acks")
    [ -n "$first" ] || fail "no move sent after the kill was accepted"
    after_kill=$(awk -v k="$1" '$3 > k' "$acks" | wc -l)
}
