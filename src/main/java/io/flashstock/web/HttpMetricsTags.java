package io.flashstock.web;

import io.micrometer.core.instrument.config.MeterFilter;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/**
 * The API server and the management server register the same HTTP meters; Quarkus tags them with
 * {@code server.port} only when that server's port is fixed. With one port fixed and the other chosen at start
 * (port 0, as tests and some platforms do) the two sets of tag keys differ, Prometheus refuses the second server's
 * meters, and that server never starts listening. Without the tag both servers' meters share one set of keys;
 * requests stay apart by their {@code uri}.
 */
@ApplicationScoped
public class HttpMetricsTags {

    @Produces
    @Singleton
    MeterFilter withoutServerPort() {
        return MeterFilter.ignoreTags("server.port");
    }
}
