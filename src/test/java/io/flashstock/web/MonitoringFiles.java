package io.flashstock.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

/**
 * The Grafana dashboard and Prometheus resources shipped beside the Kubernetes manifests, read and checked for shape:
 * the dashboard is JSON with panels whose queries go to the templated Prometheus data source; the PrometheusRule is
 * YAML whose every alert has an {@code expr}, a {@code for}, a {@code severity} label and {@code summary},
 * {@code description} and {@code runbook} annotations, the runbook a section of docs/operations.md that exists; the
 * alerts the issue asked for are there; the PodMonitor parses. {@link #metricNames()} gives every metric they use.
 */
final class MonitoringFiles {

    static final String DIRECTORY = "src/main/kubernetes/monitoring";
    static final Path DASHBOARD = Path.of(DIRECTORY, "grafana-dashboard.json");
    static final Path RULES = Path.of(DIRECTORY, "prometheus-rules.yml");
    static final Path POD_MONITOR = Path.of(DIRECTORY, "pod-monitor.yml");
    static final Path OPERATIONS = Path.of("docs/operations.md");
    static final Set<String> ALERTS = Set.of("FlashstockHigh5xxRate", "FlashstockOutcomeUnknown",
            "FlashstockRelayLagging", "FlashstockEventsLagging", "FlashstockPodNotReady",
            "FlashstockOpenSaleNotSelling");
    private static final Set<String> SEVERITIES = Set.of("critical", "warning", "info");
    private static final Pattern HEADING = Pattern.compile("(?m)^#{1,6} +(.+?) *$");

    private MonitoringFiles() {
    }

    /** Every metric name the dashboard and the rules use, each with where (file and panel or alert). */
    static Map<String, Set<String>> metricNames() throws IOException {
        Map<String, Set<String>> used = new TreeMap<>();
        dashboardQueries().forEach((where, query) -> PromQlNames.ofVariableQuery(query)
                .forEach(name -> used.computeIfAbsent(name, n -> new TreeSet<>()).add(where)));
        ruleExpressions().forEach((where, expr) -> PromQlNames.of(expr)
                .forEach(name -> used.computeIfAbsent(name, n -> new TreeSet<>()).add(where)));
        assertFalse(used.isEmpty(), "the dashboard and the rules use metrics");
        return used;
    }

    /** The dashboard's queries (panel targets and variable queries), by where they are; checks its shape. */
    static Map<String, String> dashboardQueries() throws IOException {
        JsonNode dashboard = new ObjectMapper().readTree(DASHBOARD.toFile());
        assertTrue(dashboard.path("title").isTextual() && dashboard.path("uid").isTextual(), "dashboard title, uid");
        assertTrue(dashboard.path("schemaVersion").isInt(), "dashboard schemaVersion");
        Map<String, String> queries = new TreeMap<>();
        Set<String> variables = new TreeSet<>();
        for (JsonNode variable : dashboard.path("templating").path("list")) {
            String name = variable.path("name").asText();
            variables.add(name);
            if ("datasource".equals(variable.path("type").asText())) {
                assertEquals("prometheus", variable.path("query").asText(), "data source variable " + name);
            } else if ("query".equals(variable.path("type").asText())) {
                JsonNode query = variable.path("query");
                queries.put(DASHBOARD.getFileName() + " variable " + name,
                        query.isObject() ? query.path("query").asText() : query.asText());
            }
        }
        assertTrue(variables.contains("datasource"), "a templated Prometheus data source, ${datasource}");
        List<JsonNode> panels = new ArrayList<>();
        dashboard.path("panels").forEach(panels::add);
        dashboard.path("panels").forEach(row -> row.path("panels").forEach(panels::add)); // collapsed rows
        int queried = 0;
        for (JsonNode panel : panels) {
            if ("row".equals(panel.path("type").asText())) {
                continue;
            }
            String where = DASHBOARD.getFileName() + " panel '" + panel.path("title").asText() + "'";
            assertTrue(panel.path("gridPos").isObject(), where + ": gridPos");
            assertEquals("${datasource}", panel.path("datasource").path("uid").asText(), where + ": data source");
            assertFalse(panel.path("targets").isEmpty(), where + ": queries");
            for (JsonNode target : panel.path("targets")) {
                String expr = target.path("expr").asText();
                assertFalse(expr.isBlank(), where + " " + target.path("refId").asText() + ": expr");
                queries.put(where + " " + target.path("refId").asText(), expr);
                queried++;
            }
        }
        assertTrue(queried > 0, "the dashboard has queries");
        return queries;
    }

    /** Each alert's {@code expr}, by where it is; checks the PrometheusRule's shape and the PodMonitor's. */
    static Map<String, String> ruleExpressions() throws IOException {
        ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
        JsonNode podMonitor = yaml.readTree(POD_MONITOR.toFile());
        assertEquals("PodMonitor", podMonitor.path("kind").asText(), POD_MONITOR + " kind");
        JsonNode rule = yaml.readTree(RULES.toFile());
        assertEquals("monitoring.coreos.com/v1", rule.path("apiVersion").asText(), RULES + " apiVersion");
        assertEquals("PrometheusRule", rule.path("kind").asText(), RULES + " kind");
        Set<String> sections = sections();
        Map<String, String> expressions = new TreeMap<>();
        for (JsonNode group : rule.path("spec").path("groups")) {
            for (JsonNode alert : group.path("rules")) {
                String name = alert.path("alert").asText(alert.path("record").asText());
                String where = RULES.getFileName() + " " + name;
                assertFalse(alert.path("expr").asText().isBlank(), where + ": expr");
                expressions.put(where, alert.path("expr").asText());
                if (alert.has("record")) {
                    continue;
                }
                assertTrue(alert.path("for").asText().matches("\\d+[smh]"), where + ": for");
                assertTrue(SEVERITIES.contains(alert.path("labels").path("severity").asText()), where + ": severity");
                JsonNode annotations = alert.path("annotations");
                for (String annotation : List.of("summary", "description", "runbook")) {
                    assertFalse(annotations.path(annotation).asText().isBlank(), where + ": " + annotation);
                }
                String runbook = annotations.path("runbook").asText();
                assertTrue(runbook.startsWith(OPERATIONS + "#")
                        && sections.contains(runbook.substring(runbook.indexOf('#') + 1)),
                        where + ": runbook " + runbook + " is a section of " + OPERATIONS);
            }
        }
        Set<String> alerts = new TreeSet<>();
        expressions.keySet().forEach(where -> alerts.add(where.substring(where.indexOf(' ') + 1)));
        assertTrue(alerts.containsAll(ALERTS), "alerts " + ALERTS + " among " + alerts);
        return expressions;
    }

    /** The anchors of docs/operations.md's headings (outside code blocks), as GitHub makes them. */
    static Set<String> sections() throws IOException {
        Set<String> anchors = new TreeSet<>();
        String text = Files.readString(OPERATIONS).replaceAll("(?ms)^[ \\t]*```.*?^[ \\t]*```", "");
        Matcher heading = HEADING.matcher(text);
        while (heading.find()) {
            anchors.add(heading.group(1).toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "")
                    .replace(' ', '-'));
        }
        return anchors;
    }
}
