package io.flashstock.redis;

/**
 * Every Redis key flashstock uses, in one place. All keys of one item share the hash tag {@code {<sku>}}, so a
 * script that touches several of them stays in one Redis Cluster slot. The sku allow-list
 * ({@link io.flashstock.web.InputRules#SKU}) keeps braces, colons, asterisks and spaces out of keys.
 */
public final class RedisKeys {

    private RedisKeys() {
    }

    private static String prefix(String sku) {
        return "fs:{" + sku + "}:";
    }

    /** The item's lock token (redis-lock). Always carries a TTL (the lease). */
    public static String lock(String sku) {
        return prefix(sku) + "lock";
    }

    /** The item's fencing counter (redis-lock): last fencing token issued. */
    public static String fence(String sku) {
        return prefix(sku) + "fence";
    }

    /** Hot stock of an item (redis-lua): stock, available, reserved, sold, limit, seq. Never expires. */
    public static String stock(String sku) {
        return prefix(sku) + "stock";
    }

    /** Units each user holds in RESERVED + CONFIRMED orders of the item (redis-lua, items with a limit). */
    public static String users(String sku) {
        return prefix(sku) + "users";
    }

    /** The item's RESERVED orders: orderId → "userId quantity" (redis-lua). */
    public static String held(String sku) {
        return prefix(sku) + "held";
    }

    /**
     * Orders committed in MySQL while the item's hot stock was missing (redis-lua): orderId → "userId quantity
     * version"; the next warm-up takes in those its MySQL snapshot predates.
     */
    public static String late(String sku) {
        return prefix(sku) + "late";
    }

    /**
     * Orders that left RESERVED in MySQL (confirmed, cancelled, expired) while the item's hot stock held no record of
     * them (redis-lua): orderId → 'CONFIRMED' or 'RETURNED'. An order acknowledged before Redis lost its data and
     * committed after the snapshot the item was re-warmed from is taken in by its settle, which may come after such a
     * move: the settle then takes it in as it now stands (settle_entries.lua). Expires 10 minutes after its last write.
     */
    public static String left(String sku) {
        return prefix(sku) + "left";
    }

    /** Stream of acknowledged orders not yet in MySQL (redis-lua). */
    public static String orders(String sku) {
        return prefix(sku) + "orders";
    }

    /**
     * A user's Idempotency-Key of the item and its first order (redis-lua): {@code fs:{<sku>}:ukey:<n>:<userId>:<key>},
     * {@code n} the user id's length in decimal; the bare {@code fs:{<sku>}:ukey:} when the purchase has no key. The
     * length makes the name unambiguous whatever characters a user id or key holds (a key may hold ':'; a user id
     * allowed one later would not be read as part of its key), and bounds it: 64-character sku, user id and key make
     * 207 characters. The hash tag stays the item's, so the purchase script still touches one slot.
     */
    public static String idempotency(String sku, String userId, String key) {
        return key == null ? prefix(sku) + "ukey:" : prefix(sku) + "ukey:" + userId.length() + ":" + userId + ":" + key;
    }

    /**
     * An Idempotency-Key's name before keys were the user's ({@code fs:{<sku>}:idem:<key>}, shared by all users of the
     * item; the bare prefix without a key). No pod writes it any more; the purchase script still reads it, and
     * undoing a purchase deletes it, so that a retry of a purchase made before the upgrade is answered with its order
     * until the key expires ({@code flashstock.lua.idempotency-ttl} after its purchase). Drop it once every pod has run
     * this version for longer than that TTL.
     */
    public static String legacyIdempotency(String sku, String key) {
        return prefix(sku) + "idem:" + (key == null ? "" : key);
    }

    /** Tombstone of an order id whose purchase the caller gave up on (redis-lua); expires. */
    public static String voided(String sku, String orderId) {
        return prefix(sku) + "void:" + orderId;
    }

    /** Marker of a mirrored restock event (redis-lua). */
    public static String event(String sku, String eventId) {
        return prefix(sku) + "event:" + eventId;
    }

    /**
     * A cart's decision record (redis-lua, {@code lua/cart_decide.lua}), in its user's slot: the hash tag
     * {@code {u:<userId>}}, which no item's tag can equal (skus have no colon).
     */
    public static String cart(String userId, String purchaseId) {
        return "fs:{u:" + userId + "}:cart:" + purchaseId;
    }

    /** A cart Idempotency-Key of the user (redis-lua); the bare prefix when the cart has no key. */
    public static String cartIdempotency(String userId, String key) {
        return "fs:{u:" + userId + "}:cartkey:" + (key == null ? "" : key);
    }

    /** The item's sku, from its {@link #stock} key. */
    public static String skuOfStock(String stockKey) {
        int open = stockKey.indexOf('{');
        int close = stockKey.lastIndexOf('}');
        if (!stockKey.startsWith("fs:{") || close <= open || !stockKey.endsWith("}:stock")) {
            throw new IllegalArgumentException("not a stock key: " + stockKey);
        }
        return stockKey.substring(open + 1, close);
    }

    /**
     * A rate limit's state ({@code lua/rate_limit.lua}): {@code kind} "user" or "address", {@code who} a user id
     * (allow-listed characters) or a client address. Expires when idle.
     */
    public static String rate(String kind, String who) {
        return "fs:rate:" + kind + ":" + who;
    }

    /**
     * Sorted set of the items with recent work (redis-lua): sku → when a pod last announced it (epoch ms). Every pod's
     * relay and reconcile look at these items, and only at these, so their cost follows the sale, not the catalog.
     */
    public static String activeItems() {
        return "fs:active";
    }

    /**
     * Pub/sub channel of "units came back" messages ({@code <stock key> <seq>} from the redis-lua scripts,
     * {@code <sku> <version>} from the MySQL strategies): each pod forgets what it cached about the item before that.
     */
    public static String unitsBackChannel() {
        return "fs:units-back";
    }

    /**
     * The generation of the hot stock (redis-lua): written by the first warm-up; when it disappears or changes,
     * Redis restarted or lost its data, and the pods re-warm from MySQL.
     */
    public static String generation() {
        return "fs:generation";
    }

    /**
     * The strategy leases ({@code lua/strategy_lease.lua}): one field per serving pod, {@code <family>|<strategy>|<pod>}
     * → expiry (epoch ms, Redis's clock). Pods of redis-lua and of the MySQL strategies never hold leases at once.
     */
    public static String strategyLeases() {
        return "fs:strategies";
    }
}
