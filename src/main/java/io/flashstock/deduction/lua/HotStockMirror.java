package io.flashstock.deduction.lua;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import io.flashstock.config.FlashstockConfig;
import io.flashstock.deduction.ActiveStrategy;
import io.flashstock.deduction.StrategyName;
import io.flashstock.error.UnavailableException;
import io.flashstock.item.StockEvent;
import io.flashstock.item.StockMirror;
import io.flashstock.redis.RedisKeys;
import io.flashstock.support.Timestamps;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.redis.datasource.RedisDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

/**
 * The {@link StockMirror} of {@code redis-lua}: confirm, cancel, expiry and restock commit in MySQL first, with a
 * {@link StockEvent} row (the outbox); the event is then applied to the hot stock by an idempotent script and
 * deleted. {@link #sweep()} applies rows a crashed pod left behind. Does nothing under the other strategies.
 */
@ApplicationScoped
public class HotStockMirror implements StockMirror {

    private static final Logger LOG = Logger.getLogger(HotStockMirror.class);
    /** What the mirror scripts answer for an item without hot stock. */
    private static final long COLD = -1;
    /** Longest an order lookup waits for a relay round under way before answering 503 (retry). */
    private static final Duration LOOKUP_WAIT = Duration.ofSeconds(2);

    private final RedisDataSource redis;
    private final HotStockScripts scripts;
    private final HotStockWarmer warmer;
    private final OrderRelay relay;
    private final ActiveStrategy strategy;
    private final FlashstockConfig.Lua settings;

    HotStockMirror(RedisDataSource redis, HotStockScripts scripts, HotStockWarmer warmer, OrderRelay relay,
            ActiveStrategy strategy, FlashstockConfig config) {
        this.redis = redis;
        this.scripts = scripts;
        this.warmer = warmer;
        this.relay = relay;
        this.strategy = strategy;
        this.settings = config.lua();
    }

    @Override
    public boolean active() {
        return strategy.is(StrategyName.REDIS_LUA);
    }

    @Override
    public void apply(List<StockEvent> events) {
        if (!active() || events.isEmpty()) {
            return;
        }
        List<String> done = new ArrayList<>(events.size());
        for (StockEvent event : events) {
            relay.track(event.sku);
            try {
                if (applyOne(event) != COLD) {
                    done.add(event.id); // a cold item keeps its event: applied after its warm-up (or moot)
                }
            } catch (RuntimeException e) {
                LOG.warnf("Could not mirror %s of %s now; the sweeper retries: %s", event.kind, event.sku,
                        e.toString());
            }
        }
        if (!done.isEmpty()) {
            try {
                QuarkusTransaction.requiringNew().run(() -> StockEvent.delete("id in ?1", done));
            } catch (RuntimeException e) {
                LOG.warnf("Could not delete %d mirrored stock events (applying them again is harmless): %s",
                        done.size(), e.toString());
            }
        }
    }

    private long applyOne(StockEvent event) {
        String sku = event.sku;
        return switch (event.kind) {
            case RESTOCKED -> scripts.restock.run(redis, List.of(RedisKeys.stock(sku), RedisKeys.event(sku, event.id)),
                    List.of(Integer.toString(event.quantity), event.id,
                            Long.toString(Math.max(3600, settings.idempotencyTtl().toSeconds())),
                            Long.toString(event.itemVersion))).toLong();
            case CONFIRMED, RETURNED -> scripts.transition.run(redis,
                    List.of(RedisKeys.stock(sku), RedisKeys.users(sku), RedisKeys.held(sku)),
                    List.of(event.orderId, event.kind.name())).toLong();
        };
    }

    /** Applies events older than two watch intervals: their pod crashed between commit and mirror. */
    void sweep() {
        Instant before = Timestamps.now().minus(settings.watchInterval().multipliedBy(2));
        List<StockEvent> left = QuarkusTransaction.requiringNew().call(() -> StockEvent.recordedBefore(before, 500));
        if (!left.isEmpty()) {
            LOG.infof("Mirroring %d stock event(s) left behind", left.size());
            apply(left);
        }
    }

    @Override
    public void itemCreated(String sku) {
        if (!active()) {
            return;
        }
        try {
            warmer.warm(sku);
        } catch (RuntimeException e) {
            // The first purchase finds the hash missing and warms it.
            LOG.warnf("Could not warm new item %s now: %s", sku, e.toString());
        }
    }

    @Override
    public boolean persistPending(String orderId) {
        if (!active() || settings.persistence() != FlashstockConfig.Persistence.WRITE_BEHIND) {
            return false;
        }
        try {
            return !relay.drainFor(orderId, LOOKUP_WAIT).isEmpty();
        } catch (UnavailableException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new UnavailableException("Recent orders cannot be read now; try again.", e);
        }
    }
}
