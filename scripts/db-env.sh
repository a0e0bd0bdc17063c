# shellcheck shell=bash
#
# Source this file (bash):   . scripts/db-env.sh
#
# Exports DATABASE_URL for tablekeeper and its tests:
#   1. an already set DATABASE_URL is kept as it is;
#   2. else a PostgreSQL answering on 127.0.0.1:5432 is used
#      (postgres://postgres@127.0.0.1:5432/tablekeeper, trust auth expected);
#   3. else a private cluster in <repo>/.pgdata is created/started on
#      127.0.0.1:55432 (trust auth, superuser "postgres"), installing the
#      distribution's PostgreSQL server with apt-get if none is installed.
#
# The database named in the URL need not exist: the binary creates it, and
# sqlx::test creates its own databases.
#
# Overrides (mainly for testing the fallback):
#   TABLEKEEPER_PG_PROBE_PORT    port probed on 127.0.0.1   (default 5432)
#   TABLEKEEPER_PG_PRIVATE_PORT  port of the private cluster (default 55432)
#
# Layout of .pgdata/: data/ (PGDATA), run/ (socket directory), log (server log).
# Stop the private cluster with:
#   pg_ctl -D .pgdata/data stop                               (as yourself), or
#   runuser -u postgres -- pg_ctl -D "$PWD/.pgdata/data" stop (as root)

if ! (return 0 2>/dev/null); then
    echo "db-env.sh must be sourced, not executed: . scripts/db-env.sh" >&2
    exit 1
fi

_tk_db_env_file=${BASH_SOURCE[0]}

_tk_log() { printf 'db-env: %s\n' "$*" >&2; }

# _tk_accepting HOST PORT [PG_ISREADY]: does a PostgreSQL accept connections?
_tk_accepting() {
    local host=$1 port=$2 isready=${3:-} rc=0
    if [ -z "$isready" ]; then
        isready=$(command -v pg_isready 2>/dev/null) || isready=
    fi
    if [ -n "$isready" ]; then
        "$isready" -q -h "$host" -p "$port" -t 3 >/dev/null 2>&1 || rc=$?
        case $rc in
            0) return 0 ;;      # accepting connections
            1 | 2) return 1 ;;  # rejecting / no response
        esac                    # 3 (no attempt) or a broken wrapper: try TCP
    fi
    # shellcheck disable=SC2016 # $0/$1 are expanded by the inner bash
    if command -v timeout >/dev/null 2>&1; then
        timeout 3 bash -c 'exec 3<>"/dev/tcp/$0/$1"' "$host" "$port" 2>/dev/null
    else
        bash -c 'exec 3<>"/dev/tcp/$0/$1"' "$host" "$port" 2>/dev/null
    fi
}

# _tk_pg_major BINARY: major version of a PostgreSQL binary ("15", "9.6").
_tk_pg_major() {
    local v
    v=$("$1" --version 2>/dev/null | awk '{print $3}') || return 1
    case $v in
        [0-9].*) printf '%s\n' "$v" | cut -d. -f1-2 ;;
        [0-9]*) printf '%s\n' "${v%%[!0-9]*}" ;;
        *) return 1 ;;
    esac
}

# _tk_find_pg [MAJOR]: sets _tk_bindir_initdb/_tk_bindir_pgctl/_tk_bindir_isready.
# Prefers /usr/lib/postgresql/MAJOR, then the highest /usr/lib/postgresql/*,
# then initdb/pg_ctl on PATH.
_tk_find_pg() {
    local want=${1:-} d best=
    _tk_bindir_initdb='' _tk_bindir_pgctl='' _tk_bindir_isready=''
    if [ -n "$want" ] && [ -x "/usr/lib/postgresql/$want/bin/initdb" ] &&
        [ -x "/usr/lib/postgresql/$want/bin/pg_ctl" ]; then
        best=$want
    else
        best=$(
            for d in /usr/lib/postgresql/*/bin; do
                [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && basename "$(dirname "$d")"
            done | sort -V | tail -n 1
        ) || best=
    fi
    if [ -n "$best" ]; then
        d=/usr/lib/postgresql/$best/bin
        _tk_bindir_initdb=$d/initdb
        _tk_bindir_pgctl=$d/pg_ctl
        [ -x "$d/pg_isready" ] && _tk_bindir_isready=$d/pg_isready
        return 0
    fi
    _tk_bindir_initdb=$(command -v initdb 2>/dev/null) || _tk_bindir_initdb=
    _tk_bindir_pgctl=$(command -v pg_ctl 2>/dev/null) || _tk_bindir_pgctl=
    if [ -n "$_tk_bindir_initdb" ] && [ -n "$_tk_bindir_pgctl" ]; then
        d=$(dirname "$_tk_bindir_initdb")
        [ -x "$d/pg_isready" ] && _tk_bindir_isready=$d/pg_isready
        return 0
    fi
    return 1
}

# _tk_install_pg LOGFILE: install the distribution's PostgreSQL server without
# creating or starting its own "main" cluster.
_tk_install_pg() {
    local logf=$1 rc=0 conf=/etc/postgresql-common/createcluster.d/zz-tablekeeper.conf
    local policy=/usr/sbin/policy-rc.d own_policy=0
    local sudo=
    if ! command -v apt-get >/dev/null 2>&1; then
        _tk_log "no PostgreSQL server found and apt-get is unavailable; install PostgreSQL or set DATABASE_URL"
        return 1
    fi
    if [ "$(id -u)" -ne 0 ]; then
        if ! command -v sudo >/dev/null 2>&1; then
            _tk_log "no PostgreSQL server found and sudo is unavailable; install PostgreSQL or set DATABASE_URL"
            return 1
        fi
        sudo=sudo
    fi
    _tk_log "no PostgreSQL server found; installing the distribution's postgresql package (log: $logf)"
    # No main cluster => the distribution's service has nothing to start;
    # policy-rc.d additionally forbids starting services during the install.
    $sudo mkdir -p "$(dirname "$conf")" &&
        printf 'create_main_cluster = false\n' | $sudo tee "$conf" >/dev/null || return 1
    if [ ! -e "$policy" ]; then
        printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null &&
            $sudo chmod 755 "$policy" && own_policy=1
    fi
    {
        $sudo env DEBIAN_FRONTEND=noninteractive apt-get update &&
            $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql
    } >"$logf" 2>&1 || rc=$?
    [ "$own_policy" = 1 ] && $sudo rm -f "$policy"
    $sudo rm -f "$conf"
    if [ "$rc" -ne 0 ]; then
        tail -n 20 "$logf" >&2
        _tk_log "installing postgresql failed"
    fi
    return "$rc"
}

# _tk_private_cluster ROOT PORT: make sure the private cluster in ROOT/.pgdata
# runs; prints "PORT STATE" (STATE: created|started|reused) on stdout.
# Runs in a subshell, so cd/exec/variables do not leak into the caller.
_tk_private_cluster() (
    root=$1 port=$2
    pgdir=$root/.pgdata
    data=$pgdir/data
    sock=$pgdir/run
    logf=$pgdir/log
    state=reused

    as_pg() {
        if [ "$is_root" = 1 ]; then
            if command -v runuser >/dev/null 2>&1; then
                runuser -u postgres -- "$@"
            else
                su postgres -s /bin/sh -c "$(printf '%q ' "$@")"
            fi
        else
            "$@"
        fi
    }

    is_root=0
    [ "$(id -u)" -eq 0 ] && is_root=1

    mkdir -p "$pgdir" || exit 1
    cd "$pgdir" || exit 1
    # Serialise concurrent callers (e.g. scripts/test and scripts/serve).
    if command -v flock >/dev/null 2>&1; then
        exec 9>>"$pgdir/.lock" || exit 1
        flock -w 300 9 || { _tk_log "timed out waiting for $pgdir/.lock"; exit 1; }
    fi

    want=
    [ -f "$data/PG_VERSION" ] && want=$(cat "$data/PG_VERSION")
    if ! _tk_find_pg "$want"; then
        _tk_install_pg "$pgdir/install.log" || exit 1
        _tk_find_pg "$want" || { _tk_log "PostgreSQL server binaries still not found"; exit 1; }
    fi
    initdb=$_tk_bindir_initdb pgctl=$_tk_bindir_pgctl isready=$_tk_bindir_isready
    if [ -n "$want" ]; then
        have=$(_tk_pg_major "$pgctl") || have=
        if [ "$have" != "$want" ]; then
            _tk_log "$data was created by PostgreSQL $want but only ${have:-unknown} is available; remove $pgdir or install PostgreSQL $want"
            exit 1
        fi
    fi

    if [ "$is_root" = 1 ]; then
        # initdb refuses to run as root: the cluster belongs to "postgres".
        if ! id -u postgres >/dev/null 2>&1; then
            _tk_log "running as root but there is no 'postgres' user to own the cluster; create it or set DATABASE_URL"
            exit 1
        fi
        chown postgres: "$pgdir" || exit 1
        [ -e "$logf" ] && chown postgres: "$logf"
        if ! as_pg test -w "$pgdir"; then
            _tk_log "user 'postgres' cannot reach $pgdir (check the permissions of its parent folders) or set DATABASE_URL"
            exit 1
        fi
    fi

    if as_pg "$pgctl" -D "$data" status >/dev/null 2>&1; then
        # Already running: reuse it on whatever port it listens on.
        running=$(sed -n 4p "$data/postmaster.pid" 2>/dev/null)
        case $running in
            '' | *[!0-9]*) ;;
            *) port=$running ;;
        esac
    else
        if [ ! -f "$data/PG_VERSION" ]; then
            if ! out=$(as_pg "$initdb" -D "$data" -U postgres --auth=trust \
                --encoding=UTF8 --no-locale 2>&1); then
                printf '%s\n' "$out" >&2
                _tk_log "initdb failed"
                exit 1
            fi
            printf "\n# Added by scripts/db-env.sh (settings are rewritten on every start).\ninclude_if_exists = 'tablekeeper.conf'\n" \
                >>"$data/postgresql.conf" || exit 1
            state=created
        else
            state=started
        fi

        as_pg mkdir -p "$sock" || exit 1
        sockdirs=$sock
        # A Unix socket path must fit in 107 bytes; fall back to TCP only.
        if [ $((${#sock} + 16)) -gt 107 ]; then
            sockdirs=
        fi
        esc() { printf '%s' "$1" | sed "s/'/''/g"; }
        conf=$(
            printf '# Written by scripts/db-env.sh on each start; do not edit.\n'
            printf "listen_addresses = '127.0.0.1'\n"
            printf 'port = %s\n' "$port"
            printf "unix_socket_directories = '%s'\n" "$(esc "$sockdirs")"
            printf '# Throw-away development/test cluster: trade durability for speed.\n'
            printf 'fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n'
            printf 'max_connections = 200\n'
        )
        printf '%s\n' "$conf" | as_pg tee "$data/tablekeeper.conf" >/dev/null || exit 1

        if ! as_pg "$pgctl" -D "$data" -l "$logf" -w -t 60 start >/dev/null 2>&1 9>&-; then
            tail -n 20 "$logf" >&2 2>/dev/null
            _tk_log "could not start the private PostgreSQL cluster (log: $logf)"
            exit 1
        fi
    fi

    # Wait until it accepts TCP connections.
    tries=0
    until _tk_accepting 127.0.0.1 "$port" "$isready"; do
        tries=$((tries + 1))
        if [ "$tries" -ge 60 ]; then
            _tk_log "private PostgreSQL on 127.0.0.1:$port does not accept connections (log: $logf)"
            exit 1
        fi
        sleep 0.5
    done
    printf '%s %s\n' "$port" "$state"
)

_tk_db_env() {
    local probe_port=${TABLEKEEPER_PG_PROBE_PORT:-5432}
    local private_port=${TABLEKEEPER_PG_PRIVATE_PORT:-55432}
    local root result port state

    if [ -n "${DATABASE_URL:-}" ]; then
        export DATABASE_URL
        _tk_log "using DATABASE_URL from the environment"
        return 0
    fi
    case $probe_port$private_port in
        *[!0-9]*)
            _tk_log "TABLEKEEPER_PG_PROBE_PORT and TABLEKEEPER_PG_PRIVATE_PORT must be port numbers"
            return 1
            ;;
    esac

    if _tk_accepting 127.0.0.1 "$probe_port"; then
        export DATABASE_URL="postgres://postgres@127.0.0.1:${probe_port}/tablekeeper"
        _tk_log "using PostgreSQL on 127.0.0.1:${probe_port}"
        return 0
    fi

    root=$(CDPATH='' cd -- "$(dirname -- "$_tk_db_env_file")/.." && pwd -P) || return 1
    result=$(_tk_private_cluster "$root" "$private_port") || return 1
    read -r port state <<<"$result"
    export DATABASE_URL="postgres://postgres@127.0.0.1:${port}/tablekeeper"
    _tk_log "using private PostgreSQL in .pgdata on 127.0.0.1:${port} (${state})"
}

# _tk_db_env_cleanup STATUS: forget the helpers; returns STATUS, which becomes
# the status of `. scripts/db-env.sh` (so `set -e` callers stop on failure).
_tk_db_env_cleanup() {
    unset -f _tk_log _tk_accepting _tk_pg_major _tk_find_pg _tk_install_pg \
        _tk_private_cluster _tk_db_env _tk_db_env_cleanup
    unset -v _tk_db_env_file _tk_db_env_rc _tk_bindir_initdb _tk_bindir_pgctl _tk_bindir_isready
    return "$1"
}

if _tk_db_env; then _tk_db_env_rc=0; else _tk_db_env_rc=1; fi
_tk_db_env_cleanup "$_tk_db_env_rc"
