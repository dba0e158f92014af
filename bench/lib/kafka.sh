# shellcheck shell=bash
# bench/compare.sh --events: a Kafka broker of the run's own for the service's sale events (bench/LocalBroker.java:
# the service's dev-mode broker, kafka_2.13 at the Quarkus BOM's version, on free ports, its data deleted at stop),
# and what the events runs read from the service: whether the outbox has drained, and the publisher's lag.
# Sourced by bench/compare.sh (set -euo pipefail); defines functions only.

BROKER_PID=""
BOOTSTRAP=""

# start_broker: the broker started and listening; its address in BOOTSTRAP. The class path: the service build's
# classes (JAR's app jars) and the test class path of this checkout's pom (kafka_2.13 is a provided-scope dependency
# there), resolved by Maven once per run.
start_broker() {
  local cp_file="$OUT/kafka.classpath" app i
  (cd "$REPO_DIR" && ./mvnw -B -q dependency:build-classpath -Dmdep.includeScope=test \
    -Dmdep.outputFile="$cp_file") >"$OUT/kafka-classpath.log" 2>&1 \
    || die "cannot resolve kafka_2.13's class path (log: $OUT/kafka-classpath.log)"
  app="$(find "$(dirname "$JAR")/app" -name '*.jar' | paste -sd: -)"
  [ -n "$app" ] || die "no application jar beside $JAR"
  mkdir -p "$OUT/classes"
  javac -d "$OUT/classes" -cp "$app" "$BENCH_DIR/LocalBroker.java" || die "cannot compile bench/LocalBroker.java"
  : >"$OUT/broker.out"
  java -cp "$OUT/classes:$app:$(cat "$cp_file")" LocalBroker >"$OUT/broker.out" 2>"$OUT/broker.err" &
  BROKER_PID=$!
  for ((i = 0; i < 1200; i++)); do # the broker listens within about 20 s; 120 s at most
    BOOTSTRAP="$(sed -n 's/^BOOTSTRAP //p' "$OUT/broker.out")"
    if [ -n "$BOOTSTRAP" ]; then
      say "Kafka broker listening on $BOOTSTRAP (pid $BROKER_PID)"
      return 0
    fi
    kill -0 "$BROKER_PID" 2>/dev/null || die "the Kafka broker stopped during startup (see $OUT/broker.err)"
    sleep 0.1
  done
  die "the Kafka broker did not listen within 120 s (see $OUT/broker.err)"
}

stop_broker() {
  stop_pid "$BROKER_PID" 30
  BROKER_PID=""
}

# events_drained SECONDS: waits until the publisher has published every movement (no item left in event_pending);
# fails after SECONDS.
events_drained() {
  local deadline=$((SECONDS + $1))
  until [ "$(sql 'SELECT COUNT(*) FROM event_pending')" = 0 ]; do
    ((SECONDS < deadline)) || return 1
    sleep 0.2
  done
}

# delivery_histogram: the service's flashstock_events_delivery_seconds buckets now (histogram_snapshot, load.sh).
delivery_histogram() {
  histogram_snapshot flashstock_events_delivery_seconds
}
