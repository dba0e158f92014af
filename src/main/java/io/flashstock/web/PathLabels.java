package io.flashstock.web;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

import jakarta.inject.Singleton;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * How a request's path may be named in a metric label or a log line: by one of a fixed set of names, never by what a
 * caller typed. The set: the endpoints' templates (the HTTP metrics' match patterns,
 * {@code quarkus.micrometer.binder.http-server.match-patterns}, name one for each templated path), the service's fixed
 * paths, Micrometer's own words ({@code root}, {@code NOT_FOUND}, {@code REDIRECTION}) and Quarkus's {@code /q/}
 * endpoints. Anything else is {@value #UNMATCHED}: a request no endpoint answered and that was not a 404, such as a 413
 * for a body too large on a made-up path (answered before any routing), which would otherwise add one series, or
 * one log value, per path a caller invents.
 */
@Singleton
public class PathLabels {

    /** The name of every path outside the fixed set. */
    public static final String UNMATCHED = "UNMATCHED";

    private static final Set<String> FIXED = Set.of("/items", "/orders", "/purchases", "root", "NOT_FOUND",
            "REDIRECTION", UNMATCHED);

    private final Map<Pattern, String> patterns = new LinkedHashMap<>();
    private final Set<String> names = new HashSet<>(FIXED);

    PathLabels(@ConfigProperty(name = "quarkus.micrometer.binder.http-server.match-patterns")
            Optional<List<String>> matchPatterns) {
        for (String pattern : matchPatterns.orElse(List.of())) {
            int split = pattern.lastIndexOf('=');
            String template = pattern.substring(split + 1).trim();
            patterns.put(Pattern.compile(pattern.substring(0, split).trim()), template);
            names.add(template);
        }
    }

    /**
     * Whether a label value the HTTP metrics chose ({@code uri}, with the answer's {@code status}) is one of the fixed
     * set. A {@code /q/} path is Quarkus's own unless it was answered 413 (no endpoint reads a body there).
     */
    public boolean fixed(String uri, String status) {
        return names.contains(uri) || uri.startsWith("/q/") && !"413".equals(status);
    }

    /**
     * The name of a request's {@code path} that no endpoint answered: the first match pattern that matches, else
     * {@code NOT_FOUND} for a 404, else the path itself when it is in the fixed set, else {@value #UNMATCHED}.
     */
    public String name(String path, int status) {
        for (Map.Entry<Pattern, String> pattern : patterns.entrySet()) {
            if (pattern.getKey().matcher(path).matches()) {
                return pattern.getValue();
            }
        }
        if (status == 404) {
            return "NOT_FOUND";
        }
        return fixed(path, Integer.toString(status)) ? path : UNMATCHED;
    }
}
