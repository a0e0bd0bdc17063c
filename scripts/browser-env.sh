# shellcheck shell=bash
#
# Source this file (bash):   . scripts/browser-env.sh
#
# Makes sure `chromium`, `chromium-headless-shell` and `chromedriver` are on PATH
# for the browser tests (tests/api/browser.rs drives the shell: the same page
# engine without the browser around it, a fifth of the start-up and less CPU),
# and poppler's `pdftotext` and `pdftoppm` for the tests that read printed
# sheets, installing Debian's chromium, chromium-headless-shell, chromium-driver
# and poppler-utils packages with apt-get when they are missing (as db-env.sh
# does for PostgreSQL). Browsers cannot be downloaded any other way here.

if ! (return 0 2>/dev/null); then
    echo "browser-env.sh must be sourced, not executed: . scripts/browser-env.sh" >&2
    exit 1
fi

_tk_browser_env() {
    local sudo= log
    if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1 &&
        command -v chromium-headless-shell >/dev/null 2>&1 &&
        command -v pdftotext >/dev/null 2>&1 && command -v pdftoppm >/dev/null 2>&1; then
        return 0
    fi
    if ! command -v apt-get >/dev/null 2>&1; then
        printf 'browser-env: chromium/chromium-headless-shell/chromedriver/poppler-utils missing and apt-get is unavailable\n' >&2
        return 1
    fi
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null 2>&1 || {
            printf 'browser-env: chromium/chromium-headless-shell/chromedriver/poppler-utils missing and sudo is unavailable\n' >&2
            return 1
        }
        sudo=sudo
    fi
    log=$(mktemp)
    printf 'browser-env: installing chromium, chromium-headless-shell, chromium-driver and poppler-utils (log: %s)\n' "$log" >&2
    if ! {
        $sudo env DEBIAN_FRONTEND=noninteractive apt-get update &&
            $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium chromium-headless-shell chromium-driver poppler-utils
    } >"$log" 2>&1; then
        tail -n 20 "$log" >&2
        printf 'browser-env: installing chromium or poppler-utils failed\n' >&2
        return 1
    fi
}

if _tk_browser_env; then unset -f _tk_browser_env; else unset -f _tk_browser_env; false; fi
