package io.flashstock.order;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.OptionalInt;
import java.util.UUID;
import java.util.zip.CRC32;

/**
 * Time-ordered order ids: UUID version 7 (RFC 9562), 48 bits of Unix milliseconds, 58 random bits, and in the last
 * 16 bits the item's tag (a hash of its sku). New rows land at the end of the primary-key index, ids sort by
 * creation time, and an id names the few items it can belong to, so that looking up an order not yet in MySQL
 * (write-behind) touches those items only, whatever id a client sends.
 */
public final class OrderIds {

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final long TAG_MASK = 0xFFFFL;

    private OrderIds() {
    }

    public static String next(String sku) {
        return next(sku, System.currentTimeMillis());
    }

    static String next(String sku, long epochMillis) {
        byte[] random = new byte[8];
        RANDOM.nextBytes(random);
        long msb = (epochMillis & 0xFFFF_FFFF_FFFFL) << 16
                | 0x7000L
                | ((random[0] & 0x0FL) << 8) | (random[1] & 0xFFL);
        long lsb = 0x8000_0000_0000_0000L | ((random[2] & 0x3FL) << 56);
        for (int i = 3; i < 8; i++) {
            lsb |= (random[i] & 0xFFL) << (8 * (9 - i));
        }
        return new UUID(msb, lsb | itemTag(sku)).toString();
    }

    /**
     * The order id of line {@code index} (of {@code sku}) of the multi-item purchase {@code purchaseId}: the first
     * line's is the purchase's own id, the others are new. So the purchase's id names an order its first item holds,
     * and a look-up of a purchase not yet in MySQL (write-behind) asks that item for that order, as for any order id,
     * instead of persisting whatever the item has pending.
     */
    public static String ofLine(String purchaseId, int index, String sku) {
        return index == 0 ? purchaseId : next(sku);
    }

    /** The 16-bit tag every order id of {@code sku} carries. */
    public static int itemTag(String sku) {
        CRC32 crc = new CRC32();
        crc.update(sku.getBytes(StandardCharsets.UTF_8));
        return (int) (crc.getValue() & TAG_MASK);
    }

    /** The item tag of one of our ids (a version 7 UUID); empty for anything else. */
    public static OptionalInt itemTagOf(String id) {
        UUID uuid = parse(id);
        return uuid == null ? OptionalInt.empty() : OptionalInt.of((int) (uuid.getLeastSignificantBits() & TAG_MASK));
    }

    /** Whether {@code id} is one of ours (a version 7 UUID) issued within {@code window} of now. */
    public static boolean isRecent(String id, Duration window) {
        UUID uuid = parse(id);
        if (uuid == null) {
            return false;
        }
        long issued = uuid.getMostSignificantBits() >>> 16;
        long now = System.currentTimeMillis();
        return issued <= now + 1_000 && now - issued <= window.toMillis();
    }

    private static UUID parse(String id) {
        try {
            UUID uuid = UUID.fromString(id);
            return uuid.version() == 7 ? uuid : null;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
