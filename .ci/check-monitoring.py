#!/usr/bin/env python3
"""Checks the PromQL of the dashboard and alert rules in src/main/kubernetes/monitoring/ with Prometheus's promtool.

Usage: python3 .ci/check-monitoring.py   (from the repository root)

That every metric they name is served is MonitoringMetricNamesTest's job (./mvnw verify); this checks the rest:
  - prometheus-rules.yml: its groups, written as a plain rule file, pass `promtool check rules` (PromQL syntax, rule
    shape, templates) and the unit tests of src/test/prometheus/rules-test.yml (`promtool test rules`: which alert
    fires when, with which labels and annotations);
  - grafana-dashboard.json: every panel query, with Grafana's variables filled in, parses as PromQL (each is checked
    as a recording rule).
Writes under target/monitoring-check/. Needs PyYAML (python3-yaml) and promtool (Debian: apt-get install prometheus).
"""

import json
import os
import re
import shutil
import subprocess
import sys

try:
    import yaml
except ImportError:
    sys.exit("ERROR: check-monitoring: PyYAML is missing; install python3-yaml")

MONITORING = "src/main/kubernetes/monitoring"
RULES_TEST = "src/test/prometheus/rules-test.yml"
OUT = "target/monitoring-check"
# What Grafana puts in for its variables, so that a query parses as PromQL.
GRAFANA_VALUES = {"__rate_interval": "1m", "__interval": "1m", "__range": "1h"}

if shutil.which("promtool") is None:
    sys.exit("ERROR: check-monitoring: promtool is missing; install it (Debian: apt-get install prometheus)")
os.makedirs(OUT, exist_ok=True)

with open(os.path.join(MONITORING, "prometheus-rules.yml")) as f:
    rule = yaml.safe_load(f)
with open(os.path.join(OUT, "prometheus-rules.yml"), "w") as f:
    yaml.safe_dump({"groups": rule["spec"]["groups"]}, f, sort_keys=False)
shutil.copy(RULES_TEST, os.path.join(OUT, "rules-test.yml"))


def grafana(expr):
    """expr with $var, ${var} and ${var:format} filled in: the interval variables with durations, others with .*"""
    return re.sub(r"\$\{(\w+)(?::\w+)?}|\$(\w+)",
                  lambda m: GRAFANA_VALUES.get(m.group(1) or m.group(2), ".*"), expr)


with open(os.path.join(MONITORING, "grafana-dashboard.json")) as f:
    dashboard = json.load(f)
panels = dashboard["panels"] + [p for row in dashboard["panels"] for p in row.get("panels", [])]
records = []
for panel in panels:
    for target in panel.get("targets", []):
        records.append({"record": "dashboard:query_%d" % len(records), "expr": grafana(target["expr"])})
with open(os.path.join(OUT, "dashboard-queries.yml"), "w") as f:
    yaml.safe_dump({"groups": [{"name": "dashboard", "rules": records}]}, f, sort_keys=False)

failed = False
for command in (["promtool", "check", "rules", "prometheus-rules.yml", "dashboard-queries.yml"],
                ["promtool", "test", "rules", "rules-test.yml"]):
    print("+ " + " ".join(command) + "   (in " + OUT + ")", flush=True)
    failed |= subprocess.run(command, cwd=OUT).returncode != 0
if failed:
    sys.exit("ERROR: check-monitoring: promtool found problems (above)")
print("monitoring: the alert rules and %d dashboard queries parse; the alert rules' unit tests pass" % len(records))
