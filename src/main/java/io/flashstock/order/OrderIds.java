package io.flashstock.order;

import java.security.SecureRandom;
import java.util.UUID;

/**
 * Time-ordered order ids: UUID version 7 (RFC 9562), 48 bits of Unix milliseconds then 74 random bits. New
 * rows land at the end of the primary-key index, and ids sort by creation time.
 */
public final class OrderIds {

    private static final SecureRandom RANDOM = new SecureRandom();

    private OrderIds() {
    }

    public static String next() {
        return next(System.currentTimeMillis());
    }

    static String next(long epochMillis) {
        byte[] random = new byte[10];
        RANDOM.nextBytes(random);
        long msb = (epochMillis & 0xFFFF_FFFF_FFFFL) << 16
                | 0x7000L
                | ((random[0] & 0x0FL) << 8) | (random[1] & 0xFFL);
        long lsb = 0x8000_0000_0000_0000L | ((random[2] & 0x3FL) << 56);
        for (int i = 3; i < 10; i++) {
            lsb |= (random[i] & 0xFFL) << (8 * (9 - i));
        }
        return new UUID(msb, lsb).toString();
    }

    /** Whether {@code id} is one of ours (a version 7 UUID) issued within {@code window} of now. */
    public static boolean isRecent(String id, java.time.Duration window) {
        UUID uuid;
        try {
            uuid = UUID.fromString(id);
        } catch (IllegalArgumentException e) {
            return false;
        }
        if (uuid.version() != 7) {
            return false;
        }
        long issued = uuid.getMostSignificantBits() >>> 16;
        long now = System.currentTimeMillis();
        return issued <= now + 1_000 && now - issued <= window.toMillis();
    }
}
