package io.flashstock.config;

import java.time.Duration;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * Every flashstock setting, under the {@code flashstock.} prefix. Environment variables follow the usual
 * MicroProfile mapping, e.g. {@code FLASHSTOCK_STRATEGY}, {@code FLASHSTOCK_RESERVATION_TTL}.
 */
@ConfigMapping(prefix = "flashstock")
public interface FlashstockConfig {

    /**
     * Deduction strategy, read once at startup: {@code db-optimistic}, {@code redis-lua} or {@code redis-lock}.
     * The config profiles of the same names set it too. An unknown value stops startup.
     */
    @WithDefault("db-optimistic")
    String strategy();

    /** How long a RESERVED order holds its units before the expiry job returns them to stock. */
    @WithDefault("15m")
    Duration reservationTtl();

    /**
     * The longest a reservation may last, counted from the purchase: {@code POST /orders/{id}/extend} never moves an
     * order's expiry beyond its creation plus this (never below {@code reservation-ttl}).
     */
    @WithDefault("2h")
    Duration reservationMaxTtl();

    /** The longest any reservation lasts from its purchase: {@link #reservationMaxTtl()}, never below the default. */
    default Duration reservationCap() {
        return reservationMaxTtl().compareTo(reservationTtl()) < 0 ? reservationTtl() : reservationMaxTtl();
    }

    /** Largest quantity a single purchase may ask for; larger requests get 400 {@code invalid-request}. */
    @WithDefault("10")
    int maxQuantityPerRequest();

    /**
     * Units one user may hold (RESERVED + CONFIRMED) of an item created without a {@code perUserLimit} of its own; 0:
     * none. An item created with {@code perUserLimit: 0} has no limit whatever this says. Read when the item is
     * created: changing it does not change existing items.
     */
    @WithDefault("0")
    int defaultPerUserLimit();

    /**
     * Largest request body; larger ones get 413 {@code payload-too-large}. Keep
     * {@code quarkus.http.limits.max-body-size} (the transport's hard ceiling) above it.
     */
    @WithDefault("16K")
    io.quarkus.runtime.configuration.MemorySize maxBodySize();

    /**
     * Longest a purchase that joined another request's batch (db-optimistic, redis-lua write-through) waits for it.
     * Past it the batch may still commit the order, so the answer is 503 {@code outcome-unknown}; a retry with the
     * same Idempotency-Key returns the order if it was stored. Keep it above the JDBC socket timeout.
     */
    @WithDefault("6s")
    Duration decideWithin();

    /** Seconds sent in {@code Retry-After} with a 503 {@code unavailable}. */
    @WithDefault("1")
    int retryAfterSeconds();

    /** Prefix of the {@code type} URI of every problem+json answer; the problem code is appended. */
    @WithDefault("urn:flashstock:problem:")
    String problemTypePrefix();

    /**
     * Conflict retries of MySQL transactions (a version mismatch, MariaDB 1020, a deadlock, a lock wait timeout), for
     * every strategy, not only {@code db-optimistic} (the name is historical): purchases and carts of db-optimistic,
     * order reads, confirm, cancel and extend, restocks and sale-window changes, the expiry job, and redis-lua's order
     * writes. Also the lane wait of db-optimistic and redis-lua write-through, and db-optimistic's combining.
     */
    Optimistic optimistic();

    /** The reservation expiry job. */
    Expiry expiry();

    /** Redis lock tokens of the {@code redis-lock} strategy. */
    Lock lock();

    /** The Redis hot stock and its order relay ({@code redis-lua}). */
    Lua lua();

    /** The readiness checks. */
    Health health();

    /** What each pod keeps in memory of the items' availability (sold-out answers, availability reads). */
    Availability availability();

    /** Purchase rate limits, shared by every pod through Redis. */
    RateLimit rateLimit();

    /** What each pod remembers of bearer tokens it has verified. */
    TokensConfig tokens();

    /** Dev mode and tests only: embedded servers where none answers. */
    LocalServersConfig localServers();

    /** Sale events on Kafka (docs/events.md). */
    EventsConfig events();

    /** What /q/metrics reports per item (README, "Metrics"). */
    MetricsConfig metrics();

    /** The lease that keeps pods of redis-lua and of the MySQL strategies from serving at the same time. */
    StrategyLease strategyLease();

    /** See {@link #optimistic()}: what every retried MySQL transaction may take. */
    interface Optimistic {
        /**
         * Attempts per operation (the first included) before it gives up, nothing changed (a request: 503
         * {@code unavailable}).
         */
        @WithDefault("30")
        int maxAttempts();

        /**
         * Time budget per operation across all its attempts before it gives up likewise. Also the longest a
         * db-optimistic or redis-lua write-through purchase waits to take its item's lane.
         */
        @WithDefault("3s")
        Duration maxTime();

        /** First backoff ceiling; each retry sleeps a random time up to a ceiling that doubles per attempt. */
        @WithDefault("2ms")
        Duration initialBackoff();

        /** Largest backoff ceiling. */
        @WithDefault("64ms")
        Duration maxBackoff();

        /**
         * db-optimistic only: most concurrent purchases of one item that this pod combines into one transaction (one
         * versioned update, one batch of order inserts). 1 turns combining off.
         */
        @WithDefault("200")
        int maxBatch();
    }

    interface Expiry {
        /** Run the expiry job in this pod. Every pod may run it: claims use FOR UPDATE SKIP LOCKED. */
        @WithDefault("true")
        boolean enabled();

        /** How often each pod looks for expired reservations, e.g. {@code 5s}. */
        @WithDefault("5s")
        String interval();

        /** Orders claimed per transaction. */
        @WithDefault("200")
        int batchSize();
    }

    interface Lock {
        /** Lease of a lock token; renewed every third of it while held, so a holder that stops renewing loses it. */
        @WithDefault("2s")
        Duration lease();

        /** Longest wait for an item's lock before answering 503 {@code unavailable}. */
        @WithDefault("5s")
        Duration maxWait();

        /** First backoff ceiling while waiting; doubles per try, with full jitter. */
        @WithDefault("1ms")
        Duration initialBackoff();

        /** Largest backoff ceiling while waiting. */
        @WithDefault("20ms")
        Duration maxBackoff();

        /**
         * Most concurrent purchases of one item that this pod decides under one grant of its lock, in one transaction.
         * 1: one purchase per grant.
         */
        @WithDefault("200")
        int maxBatch();
    }

    /** How {@code redis-lua} orders reach MySQL. */
    enum Persistence {
        /** The order is committed in MySQL before the 201; if that fails the units go back and the answer is 503. */
        WRITE_THROUGH,
        /** 201 once Redis holds the pending order; the relay persists pending orders to MySQL in batches. */
        WRITE_BEHIND
    }

    interface Lua {
        /** {@code write-through} or {@code write-behind}: see the README for the trade-off. */
        @WithDefault("write-through")
        Persistence persistence();

        /** How long Redis remembers an Idempotency-Key's first order (MySQL keeps it for good). */
        @WithDefault("24h")
        Duration idempotencyTtl();

        /**
         * Write-behind: most acknowledged orders of one item that may wait in Redis for MySQL. Past it, purchases of
         * the item get 503 {@code unavailable} (nothing deducted) until the relays catch up. It bounds what
         * write-behind can lose per item when Redis loses its data (and how much a MySQL outage may pile up there);
         * 0 removes the bound. Keep it well above what a relay round takes ({@code relay-batch-size}) so that a burst,
         * or a relay frozen with a batch until {@code claim-after}, does not refuse sales.
         */
        @WithDefault("2000")
        int maxPending();

        /**
         * Most purchases of one item one script call decides. Purchases of an item that arrive while its call is in
         * flight go to Redis together in the next call, each decided as alone, in arrival order: one round trip per
         * batch instead of per purchase, and no wait when the item is idle. 1: one call per purchase. At most
         * 1000 (a larger value counts as 1000): a call's values pass through Lua's {@code unpack}, which takes
         * 8000 at most, and a call that large would hold Redis up for everyone else anyway.
         */
        @WithDefault("64")
        int batchMax();

        /** Most pending orders the relay persists in one MySQL transaction. */
        @WithDefault("500")
        int relayBatchSize();

        /** Longest pause of the relay between rounds when no purchase wakes it. */
        @WithDefault("200ms")
        Duration relayInterval();

        /**
         * A pending order older than this is taken over by any pod's relay: its own pod crashed, or (write-through)
         * its request died before persisting it. Keep it well above the longest a write-through request can take
         * ({@code flashstock.optimistic.max-time} twice: lane wait plus retries), or a slow request and another
         * pod's relay race for the same order.
         */
        @WithDefault("30s")
        Duration claimAfter();

        /**
         * How long a multi-item purchase may take to reserve its lines before any pod's relay may abort it and give
         * back what it holds (its request died or hangs). Keep it well above the time a purchase script call can
         * take for every line ({@code 20} lines at most).
         */
        @WithDefault("5s")
        Duration cartDecideWithin();

        /**
         * How often each pod checks the hot-stock generation in Redis (a restart or data loss is found within
         * this), re-applies counter changes a crashed pod left unmirrored, and reconciles quiet items.
         */
        @WithDefault("1s")
        Duration watchInterval();

        /** An item whose hot stock did not change for this long is compared with MySQL and corrected. */
        @WithDefault("5s")
        Duration reconcileAfterQuiet();

        /**
         * How long an item stays in each pod's relay and reconcile rounds after it last took units or changed.
         * Items quiet for longer, with no pending order, cost nothing until touched again, so a pod's Redis traffic
         * follows the items on sale, not the catalog (reads and refusals never touch). Keep it above
         * {@code reconcile-after-quiet}.
         */
        @WithDefault("2m")
        Duration activeFor();
    }

    interface Availability {
        /**
         * Longest a pod answers from what it knows of an item's available units: availability reads load an item at
         * most once per this (their {@code Cache-Control: max-age} is this in whole seconds, at most 1), and a sold-out
         * purchase is answered 409 from memory within it. Units coming back reach every pod at once over Redis
         * pub/sub; this bounds how long a pod that missed the message (Redis unreachable) can be wrong.
         */
        @WithDefault("1s")
        Duration cacheTtl();

        /**
         * How long a pod answers 404 {@code item-not-found} from memory for a sku it found missing (at most 10,000 such
         * skus per pod): repeated made-up skus cost neither MySQL nor Redis. A new item is announced to every pod over
         * Redis pub/sub at once; this bounds how long a pod that missed the announcement answers 404 for it.
         */
        @WithDefault("5s")
        Duration unknownSkuTtl();
    }

    /** What a purchase does when its rate limit cannot be checked (Redis unreachable). */
    enum OnRedisError {
        /** It goes on unchecked (counted in {@code flashstock.rate.unchecked}): the limit must not stop the sale. */
        ALLOW,
        /** 503 {@code unavailable}, nothing changed: no caller gets past the limit while it cannot be checked. */
        REFUSE
    }

    interface RateLimit {
        /**
         * Units per second one user may buy or hold on to, across all pods: a purchase counts its quantity, a cart its
         * units summed, an extension of a reservation one. Over it the answer is 429 {@code too-many-requests} with
         * Retry-After and nothing is changed. 0 turns the limit off. Checked in Redis before any stock work. A request
         * of more units than the burst passes only when the user's limit is idle, and then paces what follows.
         */
        @WithDefault("0")
        double perUser();

        /** Units one user may buy at once before {@code per-user} paces them (at least 1). */
        @WithDefault("5")
        int perUserBurst();

        /** When Redis cannot be asked: {@code allow} (go on unchecked) or {@code refuse} (503). */
        @WithDefault("allow")
        OnRedisError onRedisError();

        /**
         * Purchases per second from one client address, across all pods (burst {@code per-address-burst}); 0 turns
         * it off. The address is the connection's, or the one a proxy forwarded when
         * {@code quarkus.http.proxy.proxy-address-forwarding} is on and the proxy is trusted
         * ({@code quarkus.http.proxy.trusted-proxies}): behind a Kubernetes ingress, enable both, or every buyer has
         * the ingress's address.
         */
        @WithDefault("0")
        double perAddress();

        /** Purchases one client address may make at once before {@code per-address} paces them. */
        @WithDefault("50")
        int perAddressBurst();
    }

    interface Health {
        /**
         * Longest a readiness check waits for MySQL to validate a connection. A database that accepts connections
         * but does not answer (hung) makes readiness DOWN after this, instead of making the probe itself hang.
         */
        @WithDefault("2s")
        Duration databaseTimeout();

        /**
         * Longest a readiness check waits for Redis to answer a PING. Redis is required for readiness only where
         * purchases need it (redis-lua, redis-lock); a db-optimistic pod reports it and stays ready.
         */
        @WithDefault("2s")
        Duration redisTimeout();
    }

    interface StrategyLease {
        /**
         * How long a pod's lease lives in Redis without renewal (renewed every third of it). A pod that dies without
         * shutting down keeps pods of the other family (redis-lua versus db-optimistic/redis-lock) waiting this long;
         * a redis-lua pod that cannot renew stops serving when its own copy of the lease runs out.
         */
        @WithDefault("15s")
        Duration ttl();
    }
}
