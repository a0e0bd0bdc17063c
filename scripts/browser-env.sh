# shellcheck shell=bash
#
# Source this file (bash):   . scripts/browser-env.sh
#
# Makes sure `chromium` and `chromedriver` are on PATH for the browser tests
# (tests/api/browser.rs), installing Debian's chromium and chromium-driver
# packages with apt-get when they are missing (as db-env.sh does for
# PostgreSQL). Browsers cannot be downloaded any other way here.

if ! (return 0 2>/dev/null); then
    echo "browser-env.sh must be sourced, not executed: . scripts/browser-env.sh" >&2
    exit 1
fi

_tk_browser_env() {
    local sudo= log
    if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then
        return 0
    fi
    if ! command -v apt-get >/dev/null 2>&1; then
        printf 'browser-env: chromium/chromedriver missing and apt-get is unavailable\n' >&2
        return 1
    fi
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null 2>&1 || {
            printf 'browser-env: chromium/chromedriver missing and sudo is unavailable\n' >&2
            return 1
        }
        sudo=sudo
    fi
    log=$(mktemp)
    printf 'browser-env: installing chromium and chromium-driver (log: %s)\n' "$log" >&2
    if ! {
        $sudo env DEBIAN_FRONTEND=noninteractive apt-get update &&
            $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium chromium-driver
    } >"$log" 2>&1; then
        tail -n 20 "$log" >&2
        printf 'browser-env: installing chromium failed\n' >&2
        return 1
    fi
}

if _tk_browser_env; then unset -f _tk_browser_env; else unset -f _tk_browser_env; false; fi
