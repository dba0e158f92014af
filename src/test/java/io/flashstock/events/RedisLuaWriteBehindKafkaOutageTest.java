package io.flashstock.events;

import io.flashstock.deduction.StrategyProfiles;
import io.flashstock.testsupport.Lane;
import io.flashstock.testsupport.OwnKafkaResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import org.junit.jupiter.api.Tag;

/** {@link KafkaOutage} under {@code redis-lua write-behind}. */
@Tag(Lane.FULL_TAG)
@QuarkusTest
@TestProfile(StrategyProfiles.RedisLuaWriteBehind.class)
@WithTestResource(OwnKafkaResource.class)
class RedisLuaWriteBehindKafkaOutageTest extends KafkaOutage {
}
