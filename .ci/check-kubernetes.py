#!/usr/bin/env python3
"""Checks the Kubernetes manifests that `./mvnw package` writes to target/kubernetes/kubernetes.yml.

Usage: python3 .ci/check-kubernetes.py [path]   (default: target/kubernetes/kubernetes.yml)

Fails (exit 1, every problem listed) unless the file parses as YAML and holds:
  - a Deployment with 2 replicas whose container has the startup, readiness and liveness probes on
    /q/health/started, /q/health/ready and /q/health/live (port 8080), CPU and memory requests and limits,
    the datasource and Redis settings from Secrets, FLASHSTOCK_STRATEGY and QUARKUS_PROFILE from a ConfigMap
    of the file, and a heap capped by -XX:MaxRAMPercentage that leaves room for the JVM's off-heap memory;
  - a Service on port 80 to the container's 8080 and a PodDisruptionBudget with minAvailable 1, both selecting
    the Deployment's pods;
  - in the ConfigMap flashstock-config, the per-user rate limit turned on (FLASHSTOCK_RATE_LIMIT_PER_USER above 0,
    FLASHSTOCK_RATE_LIMIT_PER_USER_BURST at least 1), FLASHSTOCK_RATE_LIMIT_ON_REDIS_ERROR allow or refuse and
    FLASHSTOCK_DEFAULT_PER_USER_LIMIT 0 or more, every ConfigMap value a string;
  - in the same ConfigMap, the sale events' settings: KAFKA_BOOTSTRAP_SERVERS a comma-separated host:port list (no
    scheme, no credentials), FLASHSTOCK_EVENTS_ENABLED true or false, FLASHSTOCK_EVENTS_TOPIC a valid topic name;
  - a NetworkPolicy selecting the Deployment's pods that admits the management port 9000 only from pods labelled
    flashstock.io/monitoring: "true" and leaves 8080 open to every client (egress, if restricted, has rules);
  - the token issuer and public key configured (a key file must lie on a volume mount);
  - one collector: GC_CONTAINER_OPTIONS (the launcher's, default -XX:+UseParallelGC) agrees with JAVA_OPTS_APPEND;
  - a read-only root filesystem, and every path the process writes (/tmp, and any that the JVM options or the
    Quarkus variables point elsewhere) on a writable, disk-backed emptyDir with a sizeLimit;
  - no literal credentials anywhere (no Secret with values, no password-like env value or ConfigMap entry, no
    password in a URL) and no unfilled ${...} placeholder.
Needs PyYAML (Debian/Ubuntu: apt-get install python3-yaml).
"""

import re
import sys

try:
    import yaml
except ImportError:
    sys.exit("ERROR: check-kubernetes: PyYAML is missing (python3 -c 'import yaml' fails); "
             "install python3-yaml")

PATH = sys.argv[1] if len(sys.argv) > 1 else "target/kubernetes/kubernetes.yml"

PROBES = {
    "startupProbe": "/q/health/started",
    "readinessProbe": "/q/health/ready",
    "livenessProbe": "/q/health/live",
}
FROM_SECRET = ["QUARKUS_DATASOURCE_JDBC_URL", "QUARKUS_DATASOURCE_USERNAME", "QUARKUS_DATASOURCE_PASSWORD",
               "QUARKUS_REDIS_HOSTS"]
FROM_CONFIGMAP = ["FLASHSTOCK_STRATEGY", "QUARKUS_PROFILE"]
STRATEGIES = {"db-optimistic", "redis-lua", "redis-lock"}
# Names whose value is a credential or may carry one: never a literal value in an env entry or a ConfigMap.
SENSITIVE = re.compile(r"PASSWORD|PASSWD|SECRET|TOKEN|CREDENTIAL|USERNAME|JDBC_URL|REDIS_HOSTS|JAAS|_KEY$",
                       re.IGNORECASE)
# Off-heap memory the JVM needs besides the heap: measured about 225Mi with the serial collector the options choose
# (270Mi with G1): metaspace, code cache, GC, symbols, thread stacks, malloc arenas; plus a margin. See docs/operations.md, "Running on Kubernetes".
MIN_OFF_HEAP_MI = 320
# A collector option, and the one the image's launcher adds when GC_CONTAINER_OPTIONS is unset.
GC_FLAG = re.compile(r"-XX:\+Use(Serial|Parallel|G1|Z|Shenandoah|Epsilon)GC\b")
LAUNCHER_DEFAULT_GC = "-XX:+UseParallelGC"
# Purchase limits the ConfigMap flashstock-config must turn on: key -> (type, valid, what it must be).
LIMITS_CONFIGMAP = "flashstock-config"
PURCHASE_LIMITS = {
    "FLASHSTOCK_RATE_LIMIT_PER_USER": (float, lambda v: v > 0, "purchases per second per user, above 0 (0: off)"),
    "FLASHSTOCK_RATE_LIMIT_PER_USER_BURST": (int, lambda v: v >= 1, "purchases at once per user, at least 1"),
    "FLASHSTOCK_RATE_LIMIT_ON_REDIS_ERROR": (str, lambda v: v in ("allow", "refuse"), "allow or refuse"),
    "FLASHSTOCK_DEFAULT_PER_USER_LIMIT": (int, lambda v: v >= 0, "units per user of an item without its own "
                                                                 "limit, 0 or more (0: none)"),
}
# Sale events (issue 34) in the ConfigMap flashstock-config: key -> (valid, what it must be).
EVENTS_SETTINGS = {
    "KAFKA_BOOTSTRAP_SERVERS": (lambda v: all(re.fullmatch(r"[A-Za-z0-9.-]+:\d{1,5}", a.strip()) for a in v.split(",")),
                                "a comma-separated host:port list (kafka.bootstrap.servers), no scheme or credentials"),
    "FLASHSTOCK_EVENTS_ENABLED": (lambda v: v in ("true", "false"), "true or false"),
    "FLASHSTOCK_EVENTS_TOPIC": (lambda v: re.fullmatch(r"[A-Za-z0-9._-]{1,249}", v) is not None,
                                "a Kafka topic name (letters, digits, . _ -)"),
}
# The label of the pods (Prometheus) that may reach the management port, 9000.
MONITORING_LABEL = ("flashstock.io/monitoring", "true")
# Paths the process writes at runtime (the root filesystem is read-only): each must lie on a writable emptyDir mount.
# /tmp always: java.io.tmpdir's default (Vert.x's file cache, multipart uploads) and the JVM's hsperfdata and crash
# reports, which use /tmp whatever java.io.tmpdir says. Options and variables that move a write elsewhere add theirs.
WRITABLE_PATHS = {"/tmp": "java.io.tmpdir, hsperfdata, crash reports"}
WRITABLE_OPTIONS = [
    (r"-Djava\.io\.tmpdir=(\S+)", "java.io.tmpdir"),
    (r"-Dvertx\.cacheDirBase=(\S+)", "Vert.x file cache"),
    (r"-XX:HeapDumpPath=(\S+)", "heap dumps"),
    (r"-XX:ErrorFile=(\S+)/[^/\s]*", "crash reports"),
    (r"-Xlog:\S*:file=(\S+)/[^/:\s]*", "JVM log"),
]
WRITABLE_ENV = {"QUARKUS_VERTX_CACHE_DIRECTORY": "Vert.x file cache",
                "QUARKUS_HTTP_BODY_UPLOADS_DIRECTORY": "multipart uploads",
                "QUARKUS_LOG_FILE_PATH": "log file"}

failures = []
passed = []


def fail(message):
    failures.append(message)


def ok(message):
    passed.append(message)


def memory_mi(quantity):
    """A Kubernetes memory quantity in MiB, or None if it cannot be read."""
    match = re.fullmatch(r"([0-9]+(?:\.[0-9]+)?)([KMGT]i?|k|)", str(quantity).strip())
    if not match:
        return None
    factor = {"": 1, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12,
              "Ki": 1024, "Mi": 1024 ** 2, "Gi": 1024 ** 3, "Ti": 1024 ** 4}[match.group(2)]
    return float(match.group(1)) * factor / 1024 ** 2


def cpu_millis(quantity):
    match = re.fullmatch(r"([0-9]+(?:\.[0-9]+)?)(m?)", str(quantity).strip())
    if not match:
        return None
    return float(match.group(1)) * (1 if match.group(2) else 1000)


def selects(selector, labels):
    match_labels = (selector or {}).get("matchLabels") or {}
    return bool(match_labels) and all(labels.get(k) == v for k, v in match_labels.items())


def walk_strings(node, where):
    if isinstance(node, dict):
        for key, value in node.items():
            yield from walk_strings(value, f"{where}.{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from walk_strings(value, f"{where}[{index}]")
    elif isinstance(node, str):
        yield where, node


# --- Parse -----------------------------------------------------------------------------------------------------
try:
    with open(PATH, encoding="utf-8") as stream:
        text = stream.read()
except OSError as error:
    sys.exit(f"ERROR: check-kubernetes: cannot read {PATH}: {error}")
try:
    documents = [doc for doc in yaml.safe_load_all(text) if doc is not None]
except yaml.YAMLError as error:
    sys.exit(f"ERROR: check-kubernetes: {PATH} is not valid YAML: {error}")
if not documents:
    sys.exit(f"ERROR: check-kubernetes: {PATH} holds no Kubernetes object")

by_kind = {}
for index, doc in enumerate(documents):
    if not isinstance(doc, dict) or not doc.get("apiVersion") or not doc.get("kind") \
            or not (doc.get("metadata") or {}).get("name"):
        fail(f"document {index + 1} is not a Kubernetes object (apiVersion, kind and metadata.name)")
        continue
    by_kind.setdefault(doc["kind"], []).append(doc)
ok(f"{PATH} parses: " + ", ".join(f"{d.get('kind')}/{(d.get('metadata') or {}).get('name')}"
                                  for d in documents if isinstance(d, dict)))

placeholders = sorted(set(re.findall(r"\$\{[^}]*\}", text)))
if placeholders:
    fail(f"unfilled placeholders (resource filtering did not run?): {', '.join(placeholders)}")

configmaps = {c["metadata"]["name"]: c for c in by_kind.get("ConfigMap", [])}

# --- Purchase limits in the ConfigMap flashstock-config ----------------------------------------------------------
def number(value, kind):
    try:
        return kind(value)
    except (TypeError, ValueError):
        return None


for cm_name, configmap in configmaps.items():
    for key, value in (configmap.get("data") or {}).items():
        if not isinstance(value, str):
            fail(f"ConfigMap {cm_name}: {key} is {type(value).__name__} {value!r}, not a string (quote it): "
                 "kubectl refuses the ConfigMap")
limits = (configmaps.get(LIMITS_CONFIGMAP) or {}).get("data") or {}
if LIMITS_CONFIGMAP not in configmaps:
    fail(f"no ConfigMap {LIMITS_CONFIGMAP}")
else:
    for key, (kind, valid, meaning) in PURCHASE_LIMITS.items():
        if key not in limits:
            fail(f"ConfigMap {LIMITS_CONFIGMAP}: {key} is missing ({meaning})")
            continue
        value = number(limits[key], kind) if kind is not str else limits[key]
        if value is None or not valid(value):
            fail(f"ConfigMap {LIMITS_CONFIGMAP}: {key}={limits[key]!r} is not {meaning}")
        else:
            ok(f"ConfigMap {LIMITS_CONFIGMAP}: {key}={limits[key]}")

# --- Sale events in the ConfigMap flashstock-config --------------------------------------------------------------
if LIMITS_CONFIGMAP in configmaps:
    for key, (valid, meaning) in EVENTS_SETTINGS.items():
        if key not in limits:
            fail(f"ConfigMap {LIMITS_CONFIGMAP}: {key} is missing ({meaning})")
        elif not isinstance(limits[key], str) or not valid(limits[key]):
            fail(f"ConfigMap {LIMITS_CONFIGMAP}: {key}={limits[key]!r} is not {meaning}")
        else:
            ok(f"ConfigMap {LIMITS_CONFIGMAP}: {key}={limits[key]}")

# --- Deployment --------------------------------------------------------------------------------------------------
deployments = by_kind.get("Deployment", [])
pod_labels = {}
if len(deployments) != 1:
    fail(f"expected exactly one Deployment, found {len(deployments)}")
else:
    deployment = deployments[0]
    name = deployment["metadata"]["name"]
    spec = deployment.get("spec") or {}
    template = spec.get("template") or {}
    pod_labels = (template.get("metadata") or {}).get("labels") or {}
    pod_spec = template.get("spec") or {}
    if deployment["apiVersion"] != "apps/v1":
        fail(f"Deployment {name}: apiVersion {deployment['apiVersion']}, expected apps/v1")
    if spec.get("replicas") != 2:
        fail(f"Deployment {name}: replicas {spec.get('replicas')!r}, expected 2")
    else:
        ok(f"Deployment {name}: replicas 2")
    if not selects(spec.get("selector"), pod_labels):
        fail(f"Deployment {name}: selector {spec.get('selector')} does not match the pod labels {pod_labels}")

    containers = pod_spec.get("containers") or []
    if len(containers) != 1:
        fail(f"Deployment {name}: expected one container, found {len(containers)}")
    container = containers[0] if containers else {}
    cname = container.get("name", "?")
    ports = {p.get("name"): p.get("containerPort") for p in container.get("ports") or []}
    if 8080 not in ports.values():
        fail(f"container {cname}: no containerPort 8080")

    def resolves_to_8080(port):
        return port == 8080 or (isinstance(port, str) and ports.get(port) == 8080)

    # Probes
    for probe_name, path in PROBES.items():
        probe = container.get(probe_name)
        if not isinstance(probe, dict):
            fail(f"container {cname}: no {probe_name}")
            continue
        get = probe.get("httpGet") or {}
        if get.get("path") != path:
            fail(f"container {cname}: {probe_name} path {get.get('path')!r}, expected {path}")
            continue
        if not resolves_to_8080(get.get("port")):
            fail(f"container {cname}: {probe_name} port {get.get('port')!r} is not the container's 8080")
            continue
        timings = {k: probe.get(k) for k in ("periodSeconds", "timeoutSeconds", "failureThreshold")}
        bad = [k for k, v in timings.items() if not isinstance(v, int) or v < 1]
        if bad:
            fail(f"container {cname}: {probe_name} needs explicit positive {', '.join(bad)}")
            continue
        window = (probe.get("initialDelaySeconds") or 0) + timings["periodSeconds"] * timings["failureThreshold"]
        if probe_name == "startupProbe" and window < 60:
            fail(f"container {cname}: startupProbe allows only {window}s; Flyway and pods waiting for its lock "
                 "need at least 60s")
        elif probe_name == "livenessProbe" and window < 30:
            fail(f"container {cname}: livenessProbe restarts after {window}s of failures; keep it at least 30s")
        else:
            ok(f"{probe_name}: GET {path} on 8080, every {timings['periodSeconds']}s, "
               f"timeout {timings['timeoutSeconds']}s, gives up after {window}s")

    # Resources
    resources = container.get("resources") or {}
    requests, limits = resources.get("requests") or {}, resources.get("limits") or {}
    missing = [f"{kind}.{res}" for kind, values in (("requests", requests), ("limits", limits))
               for res in ("cpu", "memory") if res not in values]
    if missing:
        fail(f"container {cname}: resources without {', '.join(missing)}")
    limit_mi = memory_mi(limits.get("memory")) if "memory" in limits else None
    request_mi = memory_mi(requests.get("memory")) if "memory" in requests else None
    if "memory" in limits and limit_mi is None:
        fail(f"container {cname}: cannot read limits.memory {limits.get('memory')!r}")
    if limit_mi and request_mi and request_mi > limit_mi:
        fail(f"container {cname}: requests.memory is above limits.memory")
    if "cpu" in requests and "cpu" in limits:
        req_cpu, lim_cpu = cpu_millis(requests["cpu"]), cpu_millis(limits["cpu"])
        if req_cpu is None or lim_cpu is None or req_cpu > lim_cpu:
            fail(f"container {cname}: cpu request {requests['cpu']!r} / limit {limits['cpu']!r} unreadable "
                 "or request above limit")
    if not missing:
        ok(f"resources: requests cpu {requests['cpu']} memory {requests['memory']}, "
           f"limits cpu {limits['cpu']} memory {limits['memory']}")

    # Environment
    env = {}
    for entry in container.get("env") or []:
        if entry.get("name") in env:
            fail(f"container {cname}: env {entry.get('name')} is defined twice")
        env[entry.get("name")] = entry
    env_from = container.get("envFrom") or []
    secret_refs = [e["secretRef"].get("name") for e in env_from if isinstance(e.get("secretRef"), dict)]
    configmap_refs = [e["configMapRef"].get("name") for e in env_from if isinstance(e.get("configMapRef"), dict)]

    for variable in FROM_SECRET:
        entry = env.get(variable)
        if entry is None:
            if secret_refs:
                ok(f"{variable}: from envFrom secretRef {', '.join(secret_refs)}")
            else:
                fail(f"container {cname}: {variable} is not set (expected a secretKeyRef or an envFrom secretRef)")
            continue
        ref = (entry.get("valueFrom") or {}).get("secretKeyRef") or {}
        if "value" in entry or not ref.get("name") or not ref.get("key"):
            fail(f"container {cname}: {variable} must come from a Secret (valueFrom.secretKeyRef with name and "
                 "key), not a literal value or a ConfigMap")
        else:
            ok(f"{variable}: from Secret {ref['name']}, key {ref['key']}")

    for variable in FROM_CONFIGMAP:
        entry = env.get(variable)
        if entry is not None:
            ref = (entry.get("valueFrom") or {}).get("configMapKeyRef") or {}
            source = configmaps.get(ref.get("name"), {})
            value = (source.get("data") or {}).get(ref.get("key"))
            if not ref or value is None:
                fail(f"container {cname}: {variable} must come from a ConfigMap of this file "
                     "(configMapKeyRef to an existing key)")
                continue
            where = f"ConfigMap {ref['name']}, key {ref['key']}"
        else:
            found = [(n, (configmaps[n].get("data") or {}).get(variable)) for n in configmap_refs
                     if n in configmaps and variable in (configmaps[n].get("data") or {})]
            if not found:
                fail(f"container {cname}: {variable} is not provided by a ConfigMap of this file "
                     f"(envFrom configMapRef {configmap_refs or 'none'})")
                continue
            where, value = f"ConfigMap {found[-1][0]} (envFrom)", found[-1][1]
        if variable == "FLASHSTOCK_STRATEGY" and value not in STRATEGIES:
            fail(f"{variable}={value!r} in {where} is not one of {sorted(STRATEGIES)}")
        elif variable == "QUARKUS_PROFILE" and not {p.strip() for p in str(value).split(",")} & (STRATEGIES | {"prod"}):
            fail(f"{variable}={value!r} in {where} activates neither a strategy profile nor prod")
        else:
            ok(f"{variable}={value}: from {where}")
    for missing_cm in [n for n in configmap_refs if n not in configmaps]:
        fail(f"container {cname}: envFrom configMapRef {missing_cm} is not defined in this file")

    # Shutdown: the pre-shutdown delay and the running requests' timeout, then the service's own shutdown steps one
    # after the other, each bounded in the code: the relay's last round 5 s (OrderRelay), the event publisher's round
    # send-timeout + 5 s = 15 s by default (EventPublisher), the strategy lease's release one Redis timeout, 2 s
    # (StrategyLease), the Kafka producer's close 5 s (EventSink). A grace period shorter than all of them gets the
    # pod killed in the middle (the lease then held until it expires).
    def seconds(entry):
        match = re.fullmatch(r"(\d+)s", str((entry or {}).get("value", "")))
        return int(match.group(1)) if match else None

    delay, timeout = seconds(env.get("QUARKUS_SHUTDOWN_DELAY")), seconds(env.get("QUARKUS_SHUTDOWN_TIMEOUT"))
    grace = pod_spec.get("terminationGracePeriodSeconds")
    shutdown_steps = 5 + 15 + 2 + 5
    if delay is None or timeout is None:
        fail(f"container {cname}: QUARKUS_SHUTDOWN_DELAY and QUARKUS_SHUTDOWN_TIMEOUT must be set as '<n>s'")
    elif not isinstance(grace, int) or grace < delay + timeout + shutdown_steps + 5:
        fail(f"Deployment {name}: terminationGracePeriodSeconds {grace!r} is under the shutdown's worst case: "
             f"{delay} s delay + {timeout} s for requests + {shutdown_steps} s of shutdown steps + 5 s margin")
    else:
        ok(f"shutdown: grace {grace} s >= {delay} s delay + {timeout} s requests + {shutdown_steps} s steps + 5 s")

    # Bearer token verification: without an issuer and a public key the service refuses to start.
    if "MP_JWT_VERIFY_ISSUER" not in env:
        fail(f"container {cname}: MP_JWT_VERIFY_ISSUER is not set (the service does not start without it)")
    if "MP_JWT_VERIFY_PUBLICKEY_LOCATION" not in env and "MP_JWT_VERIFY_PUBLICKEY" not in env:
        fail(f"container {cname}: neither MP_JWT_VERIFY_PUBLICKEY_LOCATION nor MP_JWT_VERIFY_PUBLICKEY is set")
    else:
        location = str((env.get("MP_JWT_VERIFY_PUBLICKEY_LOCATION") or {}).get("value", ""))
        if location.startswith("file:"):
            path = location[len("file:"):]
            mounts = [m.get("mountPath", "") for m in container.get("volumeMounts") or []]
            if not any(path.startswith(m.rstrip("/") + "/") for m in mounts):
                fail(f"container {cname}: the token key {path} is on no volume mount ({mounts})")
            else:
                ok(f"token key: {path}, on a volume mount")
        ok("token issuer and key: configured")

    # JVM heap
    java_options = " ".join(str(env[n].get("value", "")) for n in ("JAVA_OPTS_APPEND", "JAVA_TOOL_OPTIONS",
                                                                    "JAVA_OPTS") if n in env)
    percentages = re.findall(r"-XX:MaxRAMPercentage=([0-9]+(?:\.[0-9]+)?)", java_options)
    if not percentages:
        fail(f"container {cname}: no -XX:MaxRAMPercentage in JAVA_OPTS_APPEND/JAVA_TOOL_OPTIONS: the heap would "
             "follow the image default, not the memory limit")
    elif re.search(r"-Xmx", java_options):
        fail(f"container {cname}: -Xmx next to -XX:MaxRAMPercentage; -Xmx wins and ignores the memory limit")
    else:
        percentage = float(percentages[-1])
        if not 10 <= percentage <= 75:
            fail(f"container {cname}: -XX:MaxRAMPercentage={percentage} is outside 10..75")
        elif limit_mi:
            heap_mi = limit_mi * percentage / 100
            off_heap_mi = limit_mi - heap_mi
            if off_heap_mi < MIN_OFF_HEAP_MI:
                fail(f"container {cname}: heap {heap_mi:.0f}Mi leaves {off_heap_mi:.0f}Mi of the {limit_mi:.0f}Mi "
                     f"limit for off-heap memory; flashstock needs at least {MIN_OFF_HEAP_MI}Mi (raise the limit "
                     "or lower MaxRAMPercentage)")
            else:
                ok(f"JVM heap: -XX:MaxRAMPercentage={percentage:g} of {limit_mi:.0f}Mi = {heap_mi:.0f}Mi, "
                   f"{off_heap_mi:.0f}Mi left for off-heap memory")

    # Collector: the image's launcher (run-java.sh) puts GC_CONTAINER_OPTIONS, by default -XX:+UseParallelGC, before
    # JAVA_OPTS_APPEND; a JVM given two different collectors refuses to start. JAVA_OPTS replaces both.
    if "JAVA_OPTS" not in env:
        appended = set(GC_FLAG.findall(str((env.get("JAVA_OPTS_APPEND") or {}).get("value", ""))))
        launcher_gc = (env.get("GC_CONTAINER_OPTIONS") or {}).get("value", LAUNCHER_DEFAULT_GC)
        selected = appended | set(GC_FLAG.findall(str(launcher_gc)))
        if len(selected) > 1:
            fail(f"container {cname}: collectors {sorted(selected)} selected together (GC_CONTAINER_OPTIONS "
                 f"{launcher_gc!r} and JAVA_OPTS_APPEND): the JVM refuses to start; set GC_CONTAINER_OPTIONS to the "
                 "collector of JAVA_OPTS_APPEND")
        else:
            ok(f"collector: {', '.join(sorted(selected)) or 'the JVM default'}"
               " (GC_CONTAINER_OPTIONS and JAVA_OPTS_APPEND agree)")

    # Read-only root filesystem: every path the JVM, Quarkus or flashstock writes must be a writable emptyDir mount.
    csc = container.get("securityContext") or {}
    if csc.get("readOnlyRootFilesystem") is not True:
        fail(f"container {cname}: securityContext.readOnlyRootFilesystem is not true")
    else:
        ok("root filesystem: read-only")
    options = " ".join(str((env.get(n) or {}).get("value", "")) for n in ("JAVA_OPTS", "JAVA_OPTS_APPEND",
                                                                         "JAVA_TOOL_OPTIONS"))
    writable = dict(WRITABLE_PATHS)
    for pattern, what in WRITABLE_OPTIONS:
        for value in re.findall(pattern, options):
            writable[value] = what
    for variable, what in WRITABLE_ENV.items():
        value = (env.get(variable) or {}).get("value")
        if value:
            writable[str(value)] = what
    volumes = {v.get("name"): v for v in pod_spec.get("volumes") or []}
    mounts = container.get("volumeMounts") or []
    for path, what in sorted(writable.items()):
        covering = [m for m in mounts if path == m.get("mountPath", "").rstrip("/")
                    or path.startswith(m.get("mountPath", "").rstrip("/") + "/")]
        mount = max(covering, key=lambda m: len(m.get("mountPath", "")), default=None)
        if mount is None:
            fail(f"container {cname}: {path} ({what}) is on no volume mount, so on the read-only root filesystem")
            continue
        empty_dir = (volumes.get(mount.get("name")) or {}).get("emptyDir")
        if mount.get("readOnly"):
            fail(f"container {cname}: {path} ({what}) is on the read-only mount {mount.get('mountPath')}")
        elif not isinstance(empty_dir, dict):
            fail(f"container {cname}: {path} ({what}) is on volume {mount.get('name')!r}, not an emptyDir")
        elif empty_dir.get("medium") == "Memory":
            fail(f"container {cname}: {path} ({what}) is on a memory-backed emptyDir, which counts against the "
                 "memory limit sized for the JVM")
        elif memory_mi(empty_dir.get("sizeLimit", "")) is None:
            fail(f"container {cname}: the emptyDir {mount.get('name')!r} for {path} has no sizeLimit (it could fill "
                 "the node's disk)")
        else:
            ok(f"writable: {path} ({what}) on emptyDir {mount.get('name')!r} at {mount.get('mountPath')}, "
               f"sizeLimit {empty_dir['sizeLimit']}")

    # Literal credentials in env
    for variable, entry in env.items():
        if variable and SENSITIVE.search(variable) and "value" in entry:
            fail(f"container {cname}: env {variable} has a literal value; take it from a Secret")

# --- Service -----------------------------------------------------------------------------------------------------
services = by_kind.get("Service", [])
if not services:
    fail("no Service")
for service in services:
    sname = service["metadata"]["name"]
    sspec = service.get("spec") or {}
    if not selects({"matchLabels": sspec.get("selector")}, pod_labels):
        fail(f"Service {sname}: selector {sspec.get('selector')} does not select the Deployment's pods")
    port80 = [p for p in sspec.get("ports") or [] if p.get("port") == 80]
    container_ports = {}
    for deployment in deployments:
        for c in ((deployment.get("spec") or {}).get("template") or {}).get("spec", {}).get("containers") or []:
            container_ports.update({p.get("name"): p.get("containerPort") for p in c.get("ports") or []})
    if not port80:
        fail(f"Service {sname}: no port 80")
    else:
        target = port80[0].get("targetPort", 80)
        if not (target == 8080 or (isinstance(target, str) and container_ports.get(target) == 8080)):
            fail(f"Service {sname}: port 80 targets {target!r}, not the container's 8080")
        else:
            ok(f"Service {sname}: port 80 -> {target} (8080)")

# --- PodDisruptionBudget -----------------------------------------------------------------------------------------
pdbs = by_kind.get("PodDisruptionBudget", [])
if not pdbs:
    fail("no PodDisruptionBudget")
for pdb in pdbs:
    pname = pdb["metadata"]["name"]
    pspec = pdb.get("spec") or {}
    if pdb["apiVersion"] != "policy/v1":
        fail(f"PodDisruptionBudget {pname}: apiVersion {pdb['apiVersion']}, expected policy/v1")
    if pspec.get("minAvailable") != 1:
        fail(f"PodDisruptionBudget {pname}: minAvailable {pspec.get('minAvailable')!r}, expected 1")
    elif not selects(pspec.get("selector"), pod_labels):
        fail(f"PodDisruptionBudget {pname}: selector does not select the Deployment's pods")
    else:
        ok(f"PodDisruptionBudget {pname}: minAvailable 1")

# --- NetworkPolicy -----------------------------------------------------------------------------------------------
def selects_all_or(selector, labels):
    """A NetworkPolicy podSelector: {} selects every pod of the namespace; matchExpressions are not read here."""
    selector = selector or {}
    if selector.get("matchExpressions"):
        return False
    return all(labels.get(k) == v for k, v in (selector.get("matchLabels") or {}).items())


def admits_port(rule, number):
    """Whether an ingress rule admits TCP `number` of the container (no ports: every port)."""
    rule_ports = rule.get("ports")
    if not rule_ports:
        return True
    for entry in rule_ports:
        if (entry.get("protocol") or "TCP") != "TCP":
            continue
        port = entry.get("port")
        if port is None:
            return True
        if isinstance(port, str):
            port = container_ports_by_name.get(port)
        end = entry.get("endPort") or port
        if port is not None and port <= number <= end:
            return True
    return False


def monitoring_peer(peer):
    labels = ((peer.get("podSelector") or {}).get("matchLabels") or {})
    return "ipBlock" not in peer and "podSelector" in peer \
        and labels.get(MONITORING_LABEL[0]) == MONITORING_LABEL[1]


container_ports_by_name = {}
for deployment in deployments:
    for c in ((deployment.get("spec") or {}).get("template") or {}).get("spec", {}).get("containers") or []:
        container_ports_by_name.update({p.get("name"): p.get("containerPort") for p in c.get("ports") or []})

policies = [p for p in by_kind.get("NetworkPolicy", [])
            if pod_labels and selects_all_or((p.get("spec") or {}).get("podSelector"), pod_labels)]
ingress_policies = []
for policy in policies:
    pname, pspec = policy["metadata"]["name"], policy.get("spec") or {}
    if policy["apiVersion"] != "networking.k8s.io/v1":
        fail(f"NetworkPolicy {pname}: apiVersion {policy['apiVersion']}, expected networking.k8s.io/v1")
    types = pspec.get("policyTypes") or (["Ingress"] + (["Egress"] if "egress" in pspec else []))
    if "Ingress" in types:
        ingress_policies.append(policy)
    if "Egress" in types and not pspec.get("egress"):
        fail(f"NetworkPolicy {pname}: Egress without egress rules cuts the pods off MySQL, Redis and DNS")
if not ingress_policies:
    fail("no NetworkPolicy of type Ingress selects the Deployment's pods: the management port (9000) is open to "
         "every pod of the cluster")
else:
    rules = [r for p in ingress_policies for r in (p.get("spec") or {}).get("ingress") or []]
    names = ", ".join(p["metadata"]["name"] for p in ingress_policies)
    # 9000: every rule that admits it must admit only pods carrying the monitoring label.
    management = [r for r in rules if admits_port(r, 9000)]
    loose = [r for r in management if not r.get("from") or not all(monitoring_peer(p) for p in r["from"])]
    if loose:
        fail(f"NetworkPolicy {names}: port 9000 is admitted from more than pods labelled "
             f"{MONITORING_LABEL[0]}={MONITORING_LABEL[1]} (rules {loose})")
    elif not management:
        fail(f"NetworkPolicy {names}: nothing may reach port 9000, so Prometheus cannot scrape /q/metrics; admit "
             f"pods labelled {MONITORING_LABEL[0]}={MONITORING_LABEL[1]}")
    else:
        scopes = sorted({"namespaces labelled the same" if "namespaceSelector" in peer and
                         ((peer["namespaceSelector"].get("matchLabels") or {}).get(MONITORING_LABEL[0])
                          == MONITORING_LABEL[1]) else
                         "any namespace" if "namespaceSelector" in peer else "the same namespace"
                         for r in management for peer in r["from"]})
        ok(f"NetworkPolicy {names}: port 9000 only from pods labelled {MONITORING_LABEL[0]}={MONITORING_LABEL[1]} "
           f"({', '.join(scopes)})")
    # 8080: open to every client (the Service, ingress controllers); probes come from the node.
    if not any(admits_port(r, 8080) and not r.get("from") for r in rules):
        fail(f"NetworkPolicy {names}: port 8080 is not open to every client")
    else:
        ok(f"NetworkPolicy {names}: port 8080 open to every client")

# --- No literal credentials anywhere -----------------------------------------------------------------------------
failures_before_credentials = len(failures)
for secret in by_kind.get("Secret", []):
    values = {**(secret.get("data") or {}), **(secret.get("stringData") or {})}
    filled = [k for k, v in values.items() if v not in (None, "")]
    if filled:
        fail(f"Secret {secret['metadata']['name']} carries values ({', '.join(filled)}); create Secrets with "
             "kubectl, never in this file")
for cm_name, configmap in configmaps.items():
    for key in (configmap.get("data") or {}):
        if SENSITIVE.search(key):
            fail(f"ConfigMap {cm_name}: {key} looks like a credential; put it in a Secret")
for where, value in walk_strings(documents, "manifests"):
    if re.search(r"[a-z][a-z0-9+.-]*://[^/\s@]*:[^/\s@]+@", value, re.IGNORECASE) \
            or re.search(r"password=[^&;\s]+", value, re.IGNORECASE):
        fail(f"{where}: a URL with a password in it (value not shown)")
if len(failures) == failures_before_credentials and not any("literal value" in f for f in failures):
    ok("no literal credentials: no Secret values, no password-like env values or ConfigMap entries, "
       "no password in a URL")

# --- Report ------------------------------------------------------------------------------------------------------
for line in passed:
    print(f"ok   {line}")
if failures:
    for line in failures:
        print(f"FAIL {line}", file=sys.stderr)
    sys.exit(f"ERROR: check-kubernetes: {len(failures)} problem(s) in {PATH}")
print(f"kubernetes manifests OK: {PATH}")
