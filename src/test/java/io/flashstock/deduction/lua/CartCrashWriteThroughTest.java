package io.flashstock.deduction.lua;

import io.flashstock.testsupport.OwnRedisResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** {@link CartCrashes} with write-through persistence. */
@QuarkusTest
@TestProfile(CartCrashes.WriteThroughProfile.class)
@WithTestResource(OwnRedisResource.class)
class CartCrashWriteThroughTest extends CartCrashes {
}
