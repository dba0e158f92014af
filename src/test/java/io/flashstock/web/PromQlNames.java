package io.flashstock.web;

import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The metric names a PromQL expression (or a Grafana variable query) selects, for {@link MonitoringMetricNamesTest}.
 * Not a PromQL parser, but enough for the expressions we ship: strings, Grafana variables, label matchers, range and
 * subquery brackets, grouping clauses ({@code by}, {@code without}, {@code on}, {@code ignoring}, {@code group_left},
 * {@code group_right} with their label lists), numbers and durations are removed; what is left is names, functions
 * and aggregations (a name followed by {@code (}) and keywords, and only the names are kept. A selector written only as
 * {@code {__name__="..."}} is not seen: the shipped files must name their metrics.
 */
final class PromQlNames {

    private static final Pattern STRINGS = Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"|'(?:[^'\\\\]|\\\\.)*'|`[^`]*`");
    /** Grafana's {@code $name}, {@code ${name}}, {@code ${name:format}} and {@code [[name]]}. */
    private static final Pattern VARIABLES = Pattern.compile("\\$\\{[^}]*}|\\$\\w+|\\[\\[[^]]*]]");
    private static final Pattern MATCHERS = Pattern.compile("\\{[^}]*}");
    private static final Pattern BRACKETS = Pattern.compile("\\[[^]]*]");
    private static final Pattern GROUPING = Pattern.compile(
            "\\b(?:by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)", Pattern.CASE_INSENSITIVE);
    /** Numbers (decimal, hex, scientific) and durations ({@code 5m}, {@code 1h30m}), also after {@code offset}. */
    private static final Pattern NUMBERS = Pattern.compile(
            "(?<![\\w:])(?:0x[0-9a-fA-F]+|(?:\\d+(?:ms|[smhdwy]))+|\\d*\\.?\\d+(?:[eE][+-]?\\d+)?)(?![\\w:])");
    private static final Pattern IDENTIFIER = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*(\\s*\\()?");
    /** Words that are not metrics where no parenthesis follows them. */
    private static final Set<String> KEYWORDS = Set.of("and", "or", "unless", "bool", "offset", "by", "without", "on",
            "ignoring", "group_left", "group_right", "inf", "nan", "atan2", "start", "end");
    /** Grafana's {@code label_values(metric, label)}: only its first argument selects series. */
    private static final Pattern LABEL_VALUES = Pattern.compile("^\\s*label_values\\((.*),\\s*\\w+\\s*\\)\\s*$",
            Pattern.DOTALL);
    private static final Pattern GRAFANA_FUNCTIONS = Pattern.compile(
            "^\\s*(?:label_values\\(\\s*\\w+\\s*\\)|label_names\\(\\)|metrics\\(.*\\))\\s*$");

    private PromQlNames() {
    }

    /** The metric names {@code expression} selects. */
    static Set<String> of(String expression) {
        String text = STRINGS.matcher(expression).replaceAll(" ");
        text = VARIABLES.matcher(text).replaceAll(" ");
        text = MATCHERS.matcher(text).replaceAll(" ");
        text = BRACKETS.matcher(text).replaceAll(" ");
        text = GROUPING.matcher(text).replaceAll(" ");
        text = NUMBERS.matcher(text).replaceAll(" ");
        Set<String> names = new TreeSet<>();
        Matcher identifier = IDENTIFIER.matcher(text);
        while (identifier.find()) {
            String word = identifier.group();
            if (identifier.group(1) == null && !KEYWORDS.contains(word.toLowerCase(java.util.Locale.ROOT))) {
                names.add(word);
            }
        }
        return names;
    }

    /**
     * The metric names a Grafana Prometheus variable query selects: {@code label_values(<selector>, <label>)} its
     * selector's, {@code label_values(<label>)}, {@code label_names()} and {@code metrics(<regex>)} none, a
     * {@code query_result(<expr>)} or anything else as PromQL.
     */
    static Set<String> ofVariableQuery(String query) {
        Matcher labelValues = LABEL_VALUES.matcher(query);
        if (labelValues.matches()) {
            return of(labelValues.group(1));
        }
        if (GRAFANA_FUNCTIONS.matcher(query).matches()) {
            return Set.of();
        }
        return of(query.replaceFirst("^\\s*query_result\\((.*)\\)\\s*$", "$1"));
    }
}
