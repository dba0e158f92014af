package io.flashstock.web;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.flashstock.deduction.StrategyProfiles;
import io.flashstock.testsupport.LocalServersResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.vertx.core.Vertx;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * On Linux x86_64, the platform the image ships for, Vert.x runs on Netty's epoll transport: the pom brings its
 * library and application.properties asks for it. Fails if a dependency change drops the library or the setting, so
 * the service would silently fall back to NIO. Runs in the db-optimistic profile's Quarkus instance.
 */
@QuarkusTest
@TestProfile(StrategyProfiles.DbOptimistic.class)
@WithTestResource(LocalServersResource.class)
@EnabledOnOs(value = OS.LINUX, architectures = "amd64")
class NetworkTransportTest {

    @Inject
    Vertx vertx;

    @Test
    void vertxRunsOnEpoll() {
        assertTrue(vertx.isNativeTransportEnabled(),
                () -> "Vert.x fell back to NIO: " + vertx.unavailableNativeTransportCause());
    }
}
