package io.flashstock.events;

import io.flashstock.deduction.StrategyProfiles;
import io.flashstock.testsupport.LocalKafkaResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** {@link EventsContract} under {@code db-optimistic}. */
@QuarkusTest
@TestProfile(StrategyProfiles.DbOptimistic.class)
@WithTestResource(LocalKafkaResource.class)
class DbOptimisticEventsTest extends EventsContract {
}
