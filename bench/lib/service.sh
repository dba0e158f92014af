# shellcheck shell=bash
# bench/run.sh: the service under test: its jar, the bearer tokens it trusts, starting and stopping it, creating
# items, and the CPU time and memory of a process.
# Sourced by bench/run.sh (set -euo pipefail); defines functions only.

# prepare_jar: JAR, the service jar (built from this checkout when missing or stale, unless --jar / FLASHSTOCK_JAR
# names one), made absolute; jar_root, the checkout it was built in; PURCHASE_LUA, that build's purchase script
# (for the raw Redis row), from the build output or its source tree (none: no such file).
prepare_jar() {
  local app_jar
  if [ -z "$JAR" ]; then
    JAR="$REPO_DIR/target/quarkus-app/quarkus-run.jar"
    if [ ! -f "$JAR" ] || [ -n "$(find "$REPO_DIR/src/main" "$REPO_DIR/pom.xml" -newer "$JAR" -print -quit)" ]; then
      say "building the service jar: ./mvnw -B -q package -DskipTests (log: $OUT/build.log)"
      build_jar "$REPO_DIR" "$OUT/build.log"
    fi
  fi
  [ -f "$JAR" ] || die "no service jar at $JAR"
  JAR="$(cd "$(dirname "$JAR")" && pwd)/$(basename "$JAR")"
  say "service jar: $JAR"

  # The script as the service sends it (LuaScript): purchase.lua, preceded by purchase_rules.lua and a newline in
  # builds that have that file, so that its SHA1 is the one the service's EVALSHA names.
  PURCHASE_LUA="$OUT/purchase.lua"
  rm -f "$PURCHASE_LUA"
  for app_jar in "$(dirname "$JAR")"/app/*.jar; do
    if [ -f "$app_jar" ] && command -v unzip >/dev/null && unzip -l "$app_jar" lua/purchase.lua >/dev/null 2>&1; then
      if unzip -l "$app_jar" lua/purchase_rules.lua >/dev/null 2>&1; then
        { unzip -p "$app_jar" lua/purchase_rules.lua; printf '\n'; unzip -p "$app_jar" lua/purchase.lua; } >"$PURCHASE_LUA"
      else
        unzip -p "$app_jar" lua/purchase.lua >"$PURCHASE_LUA"
      fi
    fi
  done
  jar_root="$(cd "$(dirname "$JAR")/../.." && pwd)"
  local lua_dir="$jar_root/src/main/resources/lua"
  if [ ! -s "$PURCHASE_LUA" ] && [ -f "$lua_dir/purchase.lua" ]; then
    if [ -f "$lua_dir/purchase_rules.lua" ]; then
      { cat "$lua_dir/purchase_rules.lua"; printf '\n'; cat "$lua_dir/purchase.lua"; } >"$PURCHASE_LUA"
    else
      cp "$lua_dir/purchase.lua" "$PURCHASE_LUA"
    fi
  fi
  [ -s "$PURCHASE_LUA" ] || rm -f "$PURCHASE_LUA"
}

# build_jar DIR LOG [MAVEN OPTION...]: ./mvnw -B -q [OPTION...] package -DskipTests in the checkout DIR (its jar:
# DIR/target/quarkus-app/quarkus-run.jar), the output in LOG; dies, with the end of LOG, when the build fails.
build_jar() {
  local dir="$1" log="$2"
  (cd "$dir" && ./mvnw -B -q "${@:3}" package -DskipTests) >"$log" 2>&1 \
    || { tail -40 "$log" >&2; die "the build failed (log: $log)"; }
}

# ---------------------------------------------------------------------------------------------------------------
# Bearer tokens (README, "Access"): a key pair of this run's own, trusted by the services it starts. The load runs
# as a shop (it names a buyer per purchase in the body, as a shop's backend does); the catalog is set up as admin.

JWT_ISSUER="https://bench.flashstock.invalid"
b64url() { openssl base64 -A | tr '+/' '-_' | tr -d '='; }
mint_token() { # subject role: an RS256 JWT valid for a day
  local now header claims
  now="$(date +%s)"
  header="$(printf '{"alg":"RS256","typ":"JWT"}' | b64url)"
  claims="$(printf '{"iss":"%s","aud":"flashstock","sub":"%s","groups":["%s"],"iat":%d,"exp":%d}' \
    "$JWT_ISSUER" "$1" "$2" "$now" $((now + 86400)) | b64url)"
  printf '%s.%s.%s' "$header" "$claims" \
    "$(printf '%s.%s' "$header" "$claims" | openssl dgst -sha256 -sign "$OUT/jwt/privateKey.pem" -binary | b64url)"
}

# make_tokens: make_auth, and BUYER_TOKENS, a file of TOKENS distinct buyer tokens for the token storms ("<sub>
# <token>" lines, subs b-1 .. b-TOKENS), minted by bench/MintTokens.java before any service runs, so that signing
# costs nothing in a storm.
make_tokens() {
  local t0
  make_auth
  BUYER_TOKENS="$OUT/jwt/buyers.txt"
  t0=$SECONDS
  mkdir -p "$OUT/classes"
  javac -d "$OUT/classes" "$BENCH_DIR/MintTokens.java" || die "cannot compile bench/MintTokens.java"
  java -cp "$OUT/classes" MintTokens "$OUT/jwt/privateKey.pem" "$JWT_ISSUER" b "$TOKENS" "$BUYER_TOKENS" \
    || die "bench/MintTokens.java could not mint the buyer tokens"
  say "minted $TOKENS distinct buyer tokens for the token storms in $((SECONDS - t0)) s ($BUYER_TOKENS)"
}

# make_auth: the key pair (in $OUT/jwt, trusted by every service started), ADMIN_AUTH and SHOP_AUTH (header lines),
# and BENCH_AUTH for bench/wrk_purchase.lua. Enough for purchases and items; the token storms need make_tokens.
make_auth() {
  mkdir -p "$OUT/jwt"
  openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$OUT/jwt/privateKey.pem" 2>/dev/null \
    || die "openssl could not make the bench's token key pair"
  openssl pkey -in "$OUT/jwt/privateKey.pem" -pubout -out "$OUT/jwt/publicKey.pem" \
    || die "openssl could not make the bench's token key pair"
  ADMIN_AUTH="Authorization: Bearer $(mint_token bench-admin admin)"
  SHOP_AUTH="Authorization: Bearer $(mint_token bench-shop shop)"
  export BENCH_AUTH="${SHOP_AUTH#Authorization: }" # wrk_purchase.lua sends it with every API request
}

# ---------------------------------------------------------------------------------------------------------------
# The service process

SERVICE_PORT=""
MANAGEMENT_PORT="" # where /q/metrics is
SERVICE_READY_MS=""
# Extra environment (NAME=value) and JVM options (after BENCH_JAVA_OPTS) of the next start; the memory run sets them.
SERVICE_ENV=()
SERVICE_JVM_OPTS=()

# image_setting NAME: the value of `ENV NAME="..."` (or `ENV NAME=value`) in src/main/docker/Dockerfile.jvm of the jar's
# checkout, else of this one; empty when neither has the file or the setting. Returns 1 when there is no such file.
image_setting() {
  local where
  for where in "$jar_root" "$REPO_DIR"; do
    if [ -f "$where/src/main/docker/Dockerfile.jvm" ]; then
      sed -n "s/^ENV $1=\"\\{0,1\\}\\([^\"]*\\)\"\\{0,1\\}[[:space:]]*\$/\\1/p" "$where/src/main/docker/Dockerfile.jvm" | tail -1
      return 0
    fi
  done
  return 1
}

# shipped_gc: the garbage collector the container image and the Deployment run the JVM with (GC_CONTAINER_OPTIONS of
# Dockerfile.jvm, see image_setting). The service runs with it, so that a hot sell measures the JVM as it ships rather
# than the JVM's own pick on this machine (G1, with 2 cores and 24 GiB; see docs/benchmarks.md, "Two levers
# measured"). Nothing when BENCH_JAVA_OPTS, the run's own JVM options or environment (JAVA_TOOL_OPTIONS of
# bench/compare.sh --candidate-env) name a collector: the JVM refuses two.
shipped_gc() {
  if [[ " ${BENCH_JAVA_OPTS:-} ${SERVICE_JVM_OPTS[*]} ${SERVICE_ENV[*]} " =~ -XX:\+Use[A-Za-z0-9]+GC ]]; then return 0; fi
  image_setting GC_CONTAINER_OPTIONS || true
}

# start_service STRATEGY PERSISTENCE LOG [READY_SECONDS]: on the data as it is (see fresh_data); times start to
# ready (/q/health/ready 200) in SERVICE_READY_MS. 0 ready; 3 strategy not in this build; 4 still not ready after
# READY_SECONDS (default 120; the service is left running); dies if it stops during startup. The service runs with
# its defaults, the access log (one line per request, docs/operations.md "Logs") included: a benchmark of the service
# as shipped. BENCH_ACCESS_LOG_LEVEL=WARN mutes it, to see what it costs.
start_service() {
  local strategy="$1" persistence="$2" log="$3" ready_seconds="${4:-120}" t0 code i gc
  gc="$(shipped_gc)"
  t0=$(date +%s%N)
  # shellcheck disable=SC2086 # BENCH_JAVA_OPTS and gc are lists of options
  env QUARKUS_PROFILE="$strategy" \
    QUARKUS_DATASOURCE_JDBC_URL="$JDBC_URL" \
    QUARKUS_DATASOURCE_USERNAME="$MYSQL_USER" QUARKUS_DATASOURCE_PASSWORD="$MYSQL_PWD" \
    QUARKUS_REDIS_HOSTS="redis://$REDIS_HOST:$REDIS_PORT/$REDIS_DB" \
    QUARKUS_HTTP_HOST=127.0.0.1 QUARKUS_HTTP_PORT=0 \
    QUARKUS_MANAGEMENT_HOST=127.0.0.1 QUARKUS_MANAGEMENT_PORT=0 \
    MP_JWT_VERIFY_ISSUER="$JWT_ISSUER" MP_JWT_VERIFY_PUBLICKEY_LOCATION="file:$OUT/jwt/publicKey.pem" \
    FLASHSTOCK_RESERVATION_TTL=6h \
    ${BENCH_ACCESS_LOG_LEVEL:+QUARKUS_LOG_CATEGORY__FLASHSTOCK_ACCESS__LEVEL="$BENCH_ACCESS_LOG_LEVEL"} \
    ${persistence:+FLASHSTOCK_LUA_PERSISTENCE="$persistence"} \
    "${SERVICE_ENV[@]}" \
    java $gc ${BENCH_JAVA_OPTS:-} "${SERVICE_JVM_OPTS[@]}" "${PROFILE_JVM_OPTS[@]}" -jar "$JAR" >"$log" 2>&1 &
  SERVICE_PID=$!
  SERVICE_PORT=""
  MANAGEMENT_PORT=""
  for ((i = 0; i < ready_seconds * 20; i++)); do
    if ! kill -0 "$SERVICE_PID" 2>/dev/null; then
      wait "$SERVICE_PID" 2>/dev/null || true
      SERVICE_PID=""
      if grep -q 'not implemented' "$log"; then return 3; fi
      tail -30 "$log" >&2
      die "the service ($strategy${persistence:+ $persistence}) stopped during startup (log: $log)"
    fi
    if [ -z "$SERVICE_PORT" ]; then
      SERVICE_PORT="$(grep -so 'Listening on: http://[^ ]*[0-9]' "$log" | head -1 | sed 's/.*://' || true)"
    fi
    if [ -n "$SERVICE_PORT" ]; then
      code="$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:$SERVICE_PORT/q/health/ready" || true)"
      if [ "$code" = 200 ]; then
        # the same line: "Listening on: http://...:P. Management interface listening on http://...:M."
        MANAGEMENT_PORT="$(grep -so 'Management interface listening on http://[^ ]*[0-9]' "$log" | head -1 | sed 's/.*://' || true)"
        SERVICE_READY_MS=$((($(date +%s%N) - t0) / 1000000))
        return 0
      fi
    fi
    sleep 0.05
  done
  return 4
}

# start_or_die LABEL STRATEGY PERSISTENCE LOG: start_service that dies unless the service is ready within 120 s
# (0) or its strategy is not in this build (3).
start_or_die() {
  local rc=0
  start_service "${@:2}" || rc=$?
  if ((rc == 4)); then
    tail -30 "$4" >&2
    die "the service ($1) was not ready within 120 s (log: $4)"
  fi
  return "$rc"
}

stop_service() {
  stop_pid "$SERVICE_PID" 20
  SERVICE_PID=""
}

# A profile of the hot sell alone (BENCH_PROFILE=1): the service runs with a JFR recording ("profile" settings) from its
# start (PROFILE_JVM_OPTS; started later, with jcmd, JFR instruments classes the JIT has compiled, and the hot sell
# then ran at a third of its rate); after the hot sell its last minutes are dumped with jcmd (the service's own JDK's)
# and bench/JfrBreakdown.java tables where the Java CPU samples of the hot sell's own seconds went (docs/
# benchmarks.md). Off by default: the service is measured as shipped.
JDK_BIN="$(dirname "$(readlink -f "$(command -v java)")")"
PROFILE_JVM_OPTS=()
if [ "${BENCH_PROFILE:-0}" = 1 ]; then
  PROFILE_JVM_OPTS=(-XX:StartFlightRecording=name=bench,settings=profile,maxage=3m
    -XX:FlightRecorderOptions=stackdepth=96)
fi
PROFILE_FROM_MS=""
profile_start() { # the hot sell begins
  PROFILE_FROM_MS="$(date +%s%3N)"
}
profile_stop() { # NAME: the hot sell ended; its recording as $OUT/profile-NAME.jfr, its tables as $OUT/profile-NAME.md
  if [ "${BENCH_PROFILE:-0}" != 1 ]; then return 0; fi
  local to_ms
  to_ms="$(date +%s%3N)"
  "$JDK_BIN/jcmd" "$SERVICE_PID" JFR.dump name=bench filename="$OUT/profile-$1.jfr" >/dev/null \
    || die "jcmd could not dump the service's JFR recording (pid $SERVICE_PID)"
  "$JDK_BIN/java" "$BENCH_DIR/JfrBreakdown.java" "$OUT/profile-$1.jfr" 15 "$PROFILE_FROM_MS" "$to_ms" \
    >"$OUT/profile-$1.md" || die "bench/JfrBreakdown.java could not read $OUT/profile-$1.jfr"
  say "  profile: $OUT/profile-$1.md (by thread: $(sed -n '/^| thread group/,/^$/s/^| \([^|]*\) | [0-9]* | \([0-9.]*%\) |$/\1 \2/p' \
    "$OUT/profile-$1.md" | head -3 | paste -sd, - | sed 's/,/, /g'))"
}

base_url() { echo "http://127.0.0.1:$SERVICE_PORT"; }

create_item() { # sku stock per_user_limit
  local code
  code="$(curl -s -o "$OUT/create-item.json" -w '%{http_code}' -X POST "$(base_url)/items" \
    -H 'Content-Type: application/json' -H "$ADMIN_AUTH" \
    -d "{\"sku\":\"$1\",\"name\":\"bench $1\",\"stock\":$2,\"perUserLimit\":$3}")"
  [ "$code" = 201 ] || die "POST /items $1 answered $code: $(cat "$OUT/create-item.json")"
}

# CPU time (clock ticks) of a process, and of MySQL + Redis servers (BACKEND_PIDS, see connect_backends) together.
CLK_TCK="$(getconf CLK_TCK)"
cpu_ticks() { # pid...
  local pid total=0 t
  for pid in "$@"; do
    t="$(sed 's/^.*) //' "/proc/$pid/stat" 2>/dev/null | awk '{print $12 + $13}')" || t=0
    total=$((total + ${t:-0}))
  done
  echo "$total"
}
# machine_ticks: the clock ticks all cores spent busy and idle so far (/proc/stat's cpu line), as "BUSY IDLE": busy is
# user + nice + system + irq + softirq + steal, idle is idle + iowait.
machine_ticks() {
  awk '$1 == "cpu" {print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6; exit}' /proc/stat
}
ticks_to_seconds() { awk -v t="$1" -v hz="$CLK_TCK" 'BEGIN {printf "%.3f", t / hz}'; }
# cpu_seconds BEFORE AFTER: the CPU seconds between two tick readings; nothing when either is empty (not measured).
cpu_seconds() {
  if [ -n "$1" ] && [ -n "$2" ]; then ticks_to_seconds $(($2 - $1)); fi
}
rss_kb() { # pid VmRSS|VmHWM: in kB (plain bash, no program run: run_wrk samples it every 0.1 s)
  local key value _
  while read -r key value _; do
    if [ "$key" = "$2:" ]; then echo "$value"; return 0; fi
  done <"/proc/$1/status"
}

