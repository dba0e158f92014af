package io.flashstock.purchase;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import jakarta.inject.Singleton;

/**
 * The spans a test's Quarkus instance finished, kept in memory ({@code quarkus.otel.traces.exporter=cdi}, the
 * default, hands them to every {@code SpanExporter} bean). Only {@link TracesTest}'s profile turns the SDK on; in every
 * other instance nothing is recorded. (Not opentelemetry-sdk-testing's exporter: that jar registers a context storage
 * provider that breaks Connector/J's own tracing hook in the tests' plain JDBC connections.)
 */
@Singleton
public class InMemorySpans implements SpanExporter {

    private final List<SpanData> finished = new ArrayList<>();

    @Override
    public synchronized CompletableResultCode export(Collection<SpanData> spans) {
        finished.addAll(spans);
        return CompletableResultCode.ofSuccess();
    }

    public synchronized List<SpanData> finished() {
        return List.copyOf(finished);
    }

    public synchronized void reset() {
        finished.clear();
    }

    @Override
    public CompletableResultCode flush() {
        return CompletableResultCode.ofSuccess();
    }

    @Override
    public CompletableResultCode shutdown() {
        return CompletableResultCode.ofSuccess();
    }
}
