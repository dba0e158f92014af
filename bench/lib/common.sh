# shellcheck shell=bash
# bench/run.sh: messages, the one-run-at-a-time lock, stopping processes, the cleanup at exit, the tools it needs,
# and the lines of the results file that are not a load run's.
# Sourced by bench/run.sh (set -euo pipefail); defines functions and the process bookkeeping only.

say() { printf '[bench %s] %s\n' "$(date +%H:%M:%S)" "$*"; }
die() { printf '\n[bench] ERROR: %s\n' "$*" >&2; exit 1; }

# One run at a time: they would share the MySQL database (and, with an external Redis, its db 15).
take_lock() {
  exec 9>"${TMPDIR:-/tmp}/flashstock-bench.lock"
  if ! flock -n 9; then
    say "another bench/run.sh is running; waiting for it (at most 30 minutes)"
    flock -w 1800 9 || die "the other bench/run.sh did not finish within 30 minutes"
  fi
}

# ---------------------------------------------------------------------------------------------------------------
# Cleanup: every process this script started (its own redis-server last), and the one server setting it may
# have raised.

SERVICE_PID=""
MONITOR_PID=""
SHOP_PID="" # the steady shop of the token storms (shop_start)
WRK_PID=""
REDIS_PID=""
REDIS_TMP=""
RESTORE_MAX_CONNECTIONS=""

stop_pid() { # pid [seconds to wait before SIGKILL]
  local pid="$1" wait_for="${2:-20}" i
  [ -n "$pid" ] || return 0
  kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < wait_for * 10; i++)); do
    kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null || true; return 0; }
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

# The bench's own redis-server (see start_own_redis), and its data folder.
stop_own_redis() {
  stop_pid "$REDIS_PID" 10
  REDIS_PID=""
  if [ -n "$REDIS_TMP" ] && [ -d "$REDIS_TMP" ]; then rm -rf -- "$REDIS_TMP"; fi
  REDIS_TMP=""
}

cleanup() {
  if [ -n "$SHOP_PID" ]; then touch "$OUT/shop.stop"; stop_pid "$SHOP_PID" 2; fi
  stop_pid "$WRK_PID" 2
  stop_pid "$MONITOR_PID" 2
  stop_pid "$SERVICE_PID" 20
  stop_own_redis
  if [ -n "$RESTORE_MAX_CONNECTIONS" ]; then
    sql_server "SET GLOBAL max_connections = $RESTORE_MAX_CONNECTIONS" || true
  fi
}

# ---------------------------------------------------------------------------------------------------------------
# Tools

# ensure_tool COMMAND DEBIAN_PACKAGE [optional]
ensure_tool() {
  local cmd="$1" package="$2" optional="${3:-}"
  command -v "$cmd" >/dev/null && return 0
  say "$cmd is missing: installing the Debian package $package"
  local sudo=""
  if [ "$(id -u)" != 0 ]; then sudo="sudo -n"; fi
  if command -v apt-get >/dev/null \
    && { $sudo apt-get install -y -q "$package" >"$OUT/apt-$package.log" 2>&1 \
      || { $sudo apt-get update -q >>"$OUT/apt-$package.log" 2>&1 \
        && $sudo apt-get install -y -q "$package" >>"$OUT/apt-$package.log" 2>&1; }; } \
    && command -v "$cmd" >/dev/null; then
    say "installed $package"
    return 0
  fi
  if [ -n "$optional" ]; then
    say "could not install $package (see $OUT/apt-$package.log): $optional"
    return 1
  fi
  die "$cmd is needed and the package $package could not be installed (see $OUT/apt-$package.log); install it and run again"
}

# ensure_tools: every tool of the run, installed where missing; HAVE_JSTAT and HAVE_GNUPLOT say whether the
# optional ones are there.
ensure_tools() {
  ensure_tool curl curl
  ensure_tool java openjdk-17-jdk-headless
  ensure_tool javac openjdk-17-jdk-headless
  ensure_tool wrk wrk
  ensure_tool redis-cli redis-tools
  ensure_tool redis-benchmark redis-tools
  ensure_tool mariadb mariadb-client
  ensure_tool unzip unzip "purchase.lua is then read from the source tree only"
  ensure_tool openssl openssl
  HAVE_JSTAT=false
  if ensure_tool jstat openjdk-17-jdk-headless "the warm-up then runs its settle rounds without knowing whether the JIT has settled"; then
    HAVE_JSTAT=true
  fi
  HAVE_GNUPLOT=false
  if $WRITE_DOCS && ensure_tool gnuplot gnuplot-nox "docs/benchmarks.md gets no chart"; then HAVE_GNUPLOT=true; fi
}

# ---------------------------------------------------------------------------------------------------------------
# Lines of the results file (bench/report.awk reads them) other than the load runs'

record_info() { # label key value
  printf 'info\t%s\t%s\t%s\n' "$1" "$2" "$3" >>"$RESULTS"
}

# skipped WHAT WHY [MORE]: says that WHAT is not measured in this run, and why (MORE: said, not recorded); the
# report lists it under "Not measured".
skipped() {
  say "$1: skipped: $2${3:+ $3}"
  printf 'skip\t%s\t%s\n' "$1" "$2" >>"$RESULTS"
}

# thousandths N: N / 1000 with two decimals (microseconds as ms, milliseconds as s).
thousandths() { awk -v n="$1" 'BEGIN {printf "%.2f", n / 1000}'; }
