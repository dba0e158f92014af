package io.flashstock.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.flashstock.testsupport.LocalServersResource;
import io.flashstock.testsupport.Pause;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Redis;
import io.vertx.mutiny.redis.client.Request;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link RedisSubscription} on the tests' Redis: every subscription is confirmed, hears its messages, and leaves no
 * subscriber behind once closed. Channels of this test's own (pub/sub ignores the db index).
 */
class RedisSubscriptionTest {

    private static final Duration WAIT = Duration.ofSeconds(2);
    /** Subscriptions one after the other, each checked from its confirmation to its end. */
    private static final int ROUNDS = 300;

    private static Vertx vertx;
    private static Redis client;

    @BeforeAll
    static void connect() {
        vertx = Vertx.vertx();
        client = Redis.createClient(vertx, LocalServersResource.redisHosts());
    }

    @AfterAll
    static void disconnect() {
        client.close();
        vertx.closeAndAwait();
    }

    @Test
    void everySubscriptionIsConfirmedHearsItsMessagesAndEndsWhenClosed() throws InterruptedException {
        String prefix = "flashstock-test:subscription:" + UUID.randomUUID() + ":";
        LinkedBlockingQueue<String> heard = new LinkedBlockingQueue<>();
        AtomicInteger ended = new AtomicInteger();
        for (int round = 0; round < ROUNDS; round++) {
            String first = prefix + round + ":a";
            String second = prefix + round + ":b";
            RedisSubscription subscription = RedisSubscription.open(client, List.of(first, second),
                    (channel, message) -> heard.add(channel + " " + message), ended::incrementAndGet)
                    .await().atMost(WAIT);
            assertEquals(2, subscribers(first) + subscribers(second), "round " + round + ": both channels");
            publish(second, "m" + round);
            assertEquals(second + " m" + round, heard.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS),
                    "round " + round + ": the message on the second channel");

            subscription.unsubscribe(first).await().atMost(WAIT);
            assertTrue(Pause.until(() -> subscribers(first) == 0, WAIT.toMillis()),
                    "round " + round + ": the first channel unsubscribed");
            subscription.close().await().atMost(WAIT);
            assertTrue(Pause.until(() -> subscribers(second) == 0, WAIT.toMillis()),
                    "round " + round + ": no subscriber left");
        }
        assertTrue(heard.isEmpty(), "nothing heard twice: " + heard);
        assertTrue(Pause.until(() -> ended.get() >= ROUNDS, WAIT.toMillis()),
                "each closed subscription told its end: " + ended.get());
    }

    private static long subscribers(String channel) {
        return client.send(Request.cmd(Command.PUBSUB).arg("NUMSUB").arg(channel)).await().atMost(WAIT).get(1)
                .toLong();
    }

    private static void publish(String channel, String message) {
        client.send(Request.cmd(Command.PUBLISH).arg(channel).arg(message)).await().atMost(WAIT);
    }
}
