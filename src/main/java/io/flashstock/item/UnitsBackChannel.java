package io.flashstock.item;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import io.flashstock.redis.RedisKeys;
import io.flashstock.redis.RedisSubscription;
import io.quarkus.redis.datasource.ReactiveRedisDataSource;
import io.quarkus.redis.datasource.RedisDataSource;
import io.smallrye.mutiny.Uni;
import jakarta.inject.Singleton;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * The news that units came back to an item at a change number ({@code "<item> <change number>"} on
 * {@link RedisKeys#unitsBackChannel()}): this pod's subscription to every pod's messages, with the heartbeat that
 * notices a subscription whose connection died without a word, the publisher for changes MySQL committed, and the news
 * this pod learned itself. Whoever keeps what it knows of the items ({@link Availability}) hears all of it through one
 * {@link Listener}; this class knows nothing of what it keeps.
 */
@Singleton
public class UnitsBackChannel {

    private static final Logger LOG = Logger.getLogger(UnitsBackChannel.class);

    /** What the keeper of the items' levels hears. */
    public interface Listener {

        /** Units came back to the item at change number {@code version}, or its sale window changed. */
        void unitsBack(String sku, long version);

        /** Anything may have changed without a message: the subscription ended, or the counters were lost. */
        void forgetAll();

        /** The subscription is up (again): messages sent while it was down were missed. */
        void subscribed();
    }

    private static final Listener NOBODY = new Listener() {
        @Override
        public void unitsBack(String sku, long version) {
        }

        @Override
        public void forgetAll() {
        }

        @Override
        public void subscribed() {
        }
    };

    private final RedisDataSource redis;
    /** Announces units back without waiting for Redis: a hung Redis must not slow a cancel or a restock. */
    private final ReactiveRedisDataSource announcer;
    private volatile Listener listener = NOBODY;
    private volatile RedisSubscription subscriber;
    /** How long a SUBSCRIBE (or UNSUBSCRIBE) is waited for: the Redis client's timeout. */
    private final Duration timeout;
    private volatile boolean listening;
    /** Which subscription is current: the end of one given up on already does not stop its successor. */
    private volatile int subscription;
    /**
     * This pod's own channel, on the same subscription: a heartbeat sent to it must come back, so that a subscription
     * whose connection died without a word (a Redis host gone, a half-open TCP connection) is noticed and replaced.
     */
    private final String heartbeatChannel = RedisKeys.unitsBackChannel() + ":heartbeat:" + UUID.randomUUID();
    /** The heartbeat sent and not heard back yet (its {@code nanoTime}); 0: none outstanding. */
    private volatile long heartbeat;

    UnitsBackChannel(RedisDataSource redis, ReactiveRedisDataSource announcer,
            @ConfigProperty(name = "quarkus.redis.timeout") Duration timeout) {
        this.redis = redis;
        this.announcer = announcer;
        this.timeout = timeout;
    }

    /** Subscribes, telling {@code listener} from now on everything this channel hears. */
    void start(Listener listener) {
        this.listener = listener;
        listen();
    }

    void stop() {
        RedisSubscription current = subscriber;
        if (current != null) {
            try {
                current.close().await().atMost(timeout);
            } catch (RuntimeException e) {
                LOG.debugf("Unsubscribing: %s", e.toString());
            }
        }
    }

    /**
     * Keeps the subscription alive: replaces a subscription that did not hear its last heartbeat back within one round,
     * subscribes again after Redis was unreachable, and sends the next heartbeat.
     */
    synchronized void upkeep() {
        if (listening && heartbeat != 0) {
            LOG.warnf("The subscription to %s did not hear its heartbeat back; subscribing again (sold-out is not "
                    + "answered from memory meanwhile)", RedisKeys.unitsBackChannel());
            replaceSubscription();
        }
        if (!listening) {
            listen();
        }
        if (listening) {
            sendHeartbeat();
        }
    }

    private synchronized void listen() {
        if (listening) {
            return;
        }
        int current = ++subscription;
        Uni<RedisSubscription> subscribing = RedisSubscription.open(announcer.getRedis(),
                List.of(RedisKeys.unitsBackChannel(), heartbeatChannel), this::onMessage, () -> stopped(current))
                .memoize().indefinitely();
        try {
            subscriber = subscribing.await().atMost(timeout);
            heartbeat = 0;
            listening = true;
            listener.subscribed();
        } catch (RuntimeException e) {
            // A SUBSCRIBE answered after it was given up on (a busy Redis or pod) would leave a subscription that no
            // one owns, on a connection never closed: a second listener of every message, for good. End it as soon
            // as it comes.
            subscribing.subscribe().with(late -> late.close().subscribe().with(done -> {
            }, failure -> LOG.debugf("Ending a late subscription: %s", failure.toString())), failure -> {
            });
            LOG.warnf("Cannot subscribe to %s (sold-out is not answered from memory until then): %s",
                    RedisKeys.unitsBackChannel(), e.toString());
        }
    }

    /** Whether the subscription is up: only then can what is known be trusted to hear of every change. */
    boolean listening() {
        return listening;
    }

    private void stopped(int which) {
        if (which == subscription) {
            listening = false;
            listener.forgetAll(); // messages may be missed from now on
        }
    }

    /** Gives up on the current subscription (its end, whenever it comes, changes nothing); everything is forgotten. */
    private synchronized void replaceSubscription() {
        RedisSubscription old = subscriber;
        subscription++;
        listening = false;
        listener.forgetAll();
        if (old != null) {
            try {
                old.close().await().atMost(timeout);
            } catch (RuntimeException e) {
                LOG.debugf("Unsubscribing the subscription given up on: %s", e.toString());
            }
        }
    }

    private void sendHeartbeat() {
        long sent = System.nanoTime();
        heartbeat = sent; // before the publish: the echo may come back before it returns
        try {
            redis.pubsub(String.class).publish(heartbeatChannel, Long.toString(sent));
        } catch (RuntimeException e) {
            heartbeat = 0; // not sent: nothing to judge the subscription by
            LOG.debugf("Could not send the units-back heartbeat: %s", e.toString());
        }
    }

    /** The subscription's heartbeat channel (tests). */
    String heartbeatChannel() {
        return heartbeatChannel;
    }

    /** The current subscription (tests). */
    RedisSubscription subscriber() {
        return subscriber;
    }

    private void onMessage(String channel, String message) {
        if (heartbeatChannel.equals(channel)) {
            if (message.equals(Long.toString(heartbeat))) {
                heartbeat = 0;
            }
            return;
        }
        int space = message.lastIndexOf(' ');
        if (space < 0) {
            return;
        }
        try {
            String item = message.substring(0, space);
            String sku = item.startsWith("fs:{") ? RedisKeys.skuOfStock(item) : item;
            listener.unitsBack(sku, Long.parseLong(message.substring(space + 1)));
        } catch (IllegalArgumentException e) {
            LOG.debugf("Ignoring units-back message %s", message);
        }
    }

    /**
     * Units came back to the item at change number {@code version}, and this pod learned it itself (it mirrored the
     * change): what is known from before is dropped at once, without waiting for the message.
     */
    public void learned(String sku, long version) {
        listener.unitsBack(sku, version);
    }

    /** The counters the levels came from may have changed without a message (Redis lost its data): forget all. */
    public void lostTrack() {
        listener.forgetAll();
    }

    /**
     * Tells every pod (this one at once) that units came back to the item, or its sale window changed, at
     * {@code version} in MySQL. Never throws nor waits for Redis: what is known expires after its TTL anyway.
     */
    public void announce(String sku, long version) {
        learned(sku, version);
        announcer.pubsub(String.class).publish(RedisKeys.unitsBackChannel(), sku + " " + version).subscribe().with(
                ignored -> {
                }, e -> LOG.debugf("Could not announce units back for %s: %s", sku, e.toString()));
    }
}
