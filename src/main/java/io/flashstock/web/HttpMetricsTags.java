package io.flashstock.web;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.config.MeterFilter;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/**
 * The tags of the HTTP server meters. The API server and the management server register the same HTTP meters;
 * Quarkus tags them with {@code server.port} only when that server's port is fixed. With one port fixed and the other
 * chosen at start (port 0, as tests and some platforms do) the two sets of tag keys differ, Prometheus refuses the
 * second server's meters, and that server never starts listening. Without the tag both servers' meters share one set
 * of keys; requests stay apart by their {@code uri}, which {@link #fixedUris} keeps to a fixed set of names.
 */
@ApplicationScoped
public class HttpMetricsTags {

    @Produces
    @Singleton
    MeterFilter withoutServerPort() {
        return MeterFilter.ignoreTags("server.port");
    }

    /**
     * The {@code uri} of the HTTP server meters is one of a fixed set of names ({@link PathLabels}): a request that
     * no endpoint answered and no match pattern names (a 413 on a made-up path, answered before any routing) is
     * {@code UNMATCHED}, not a series of its own per path a caller invents. Runs once per new meter, not per request
     * (Micrometer keeps the filtered meter of each id).
     */
    @Produces
    @Singleton
    MeterFilter fixedUris(PathLabels paths) {
        return new MeterFilter() {
            @Override
            public Meter.Id map(Meter.Id id) {
                String uri = id.getName().startsWith("http.server") ? id.getTag("uri") : null;
                if (uri == null || paths.fixed(uri, id.getTag("status"))) {
                    return id;
                }
                return id.replaceTags(Tags.of(id.getTags()).and("uri", PathLabels.UNMATCHED));
            }
        };
    }
}
