package io.flashstock.events;

import io.flashstock.deduction.StrategyProfiles;
import io.flashstock.testsupport.LocalKafkaResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** {@link EventsContract} under {@code redis-lua write-behind}. */
@QuarkusTest
@TestProfile(StrategyProfiles.RedisLuaWriteBehind.class)
@WithTestResource(LocalKafkaResource.class)
class RedisLuaWriteBehindEventsTest extends EventsContract {
}
