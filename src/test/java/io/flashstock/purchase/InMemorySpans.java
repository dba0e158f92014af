package io.flashstock.purchase;

import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/**
 * The spans a test's Quarkus instance finished, kept in memory ({@code quarkus.otel.traces.exporter=cdi}, the
 * default, hands them to every {@code SpanExporter} bean). Only {@link TracesTest}'s profile turns the SDK on; in every
 * other instance nothing is recorded.
 */
@ApplicationScoped
public class InMemorySpans {

    @Produces
    @Singleton
    InMemorySpanExporter exporter() {
        return InMemorySpanExporter.create();
    }
}
