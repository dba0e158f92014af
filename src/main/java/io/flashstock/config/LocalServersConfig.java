package io.flashstock.config;

import io.smallrye.config.WithDefault;

/**
 * {@code flashstock.local-servers.*}: a group of {@link FlashstockConfig} ({@link FlashstockConfig#localServers()}).
 * Dev mode and tests only: {@code devservices/LocalServersConfigSourceFactory} reads it before the application starts;
 * it is mapped here so that the {@code flashstock} mapping accepts it from every config source.
 */
public interface LocalServersConfig {
    /**
     * Dev mode and tests: where nothing answers at the configured MySQL or Redis, start an embedded MariaDB or Redis
     * on a free port and point the service at it. {@code false}: a missing server fails the start. Ignored in prod.
     */
    @WithDefault("true")
    boolean enabled();
}
