package io.flashstock.abuse;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import com.sun.management.HotSpotDiagnosticMXBean;
import io.flashstock.item.Availability;
import io.flashstock.testsupport.Pause;
import io.quarkus.arc.Arc;
import io.quarkus.arc.ClientProxy;

/**
 * What a storm left in the heap of the service running in the test's JVM ({@code @QuarkusTest}), read two ways:
 * <ul>
 * <li>{@link #usedBytes}: the heap in use after full collections, as bench/abuse.sh reads it with {@code jcmd GC.run}
 * and jstat. Coarse: in this JVM it moves by up to about 4 MB between two readings with nothing leaking (connection
 * pools, buffers and caches of the service and of the test run come and go), so a bound on it only catches a leak
 * well above that.</li>
 * <li>{@link #retained}: a dump of the live heap (after a full collection) searched for the storm's skus, which counts
 * every sku still reachable from anything, whatever holds it: a map, a lane, a lock, a cache, a closure. Exact where
 * the first is coarse: the old bug kept each made-up sku's string in its lane, so it counts at least one per sku.</li>
 * </ul>
 * The service keeps made-up skus on purpose in one place: its bounded memory of skus found missing (at most 10,000,
 * each for {@code flashstock.availability.unknown-sku-ttl}). {@link #forgetMadeUpSkus} empties it before each reading,
 * so that what is left is what a storm should not leave.
 */
public final class HeapAfterGc {

    private static final double MB = 1024 * 1024;

    private HeapAfterGc() {
    }

    /**
     * The heap in use after a full collection, the least of three readings 100 ms apart (a buffer or a connection
     * that is only briefly live counts in one reading, not in all three).
     */
    public static long usedBytes() {
        long least = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            if (i > 0) {
                Pause.sleep(100);
            }
            System.gc();
            least = Math.min(least, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        }
        return least;
    }

    /** Bytes as MB, one decimal. */
    public static String mb(long bytes) {
        return String.format("%.1f MB", bytes / MB);
    }

    /**
     * How many of the storm's skus ({@code prefix} and a digit, see {@link MadeUpSkus#sku}) the live heap holds: a
     * dump of it ({@code HotSpotDiagnosticMXBean.dumpHeap}, live objects only, which collects first) to a file under
     * target/, searched byte by byte, then deleted. A sku is held as a Latin-1 byte array, so each string holding one
     * (and each buffer that still has one in it) counts once. The test's own prefix string is not followed by a
     * digit, so it does not count. About a second for a heap of 200 MB.
     */
    public static long retained(String prefix) {
        Path dump = Path.of("target", "abuse-heap-" + ProcessHandle.current().pid() + "-" + System.nanoTime()
                + ".hprof");
        try {
            Files.createDirectories(dump.getParent());
            ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(dump.toString(), true);
            try (InputStream in = Files.newInputStream(dump)) {
                return occurrences(in, prefix.getBytes(StandardCharsets.ISO_8859_1));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            try {
                Files.deleteIfExists(dump);
            } catch (IOException e) {
                // target/ is cleaned by the next build
            }
        }
    }

    /** Occurrences of {@code pattern} followed by an ASCII digit in the stream. */
    static long occurrences(InputStream in, byte[] pattern) throws IOException {
        int keep = pattern.length; // the pattern and its digit may straddle two reads
        byte[] buffer = new byte[8 << 20];
        int filled = 0;
        long count = 0;
        for (int read; (read = in.read(buffer, filled, buffer.length - filled)) > 0;) {
            filled += read;
            int end = filled - keep; // a match starting at or after end is looked at after the next read
            for (int i = 0; i < end; i++) {
                if (buffer[i] == pattern[0] && matches(buffer, i, pattern)) {
                    count++;
                }
            }
            if (end > 0) {
                System.arraycopy(buffer, end, buffer, 0, keep);
                filled = keep;
            }
        }
        for (int i = 0; i + keep < filled; i++) { // the tail: whatever of it has room for the digit
            if (buffer[i] == pattern[0] && matches(buffer, i, pattern)) {
                count++;
            }
        }
        return count;
    }

    private static boolean matches(byte[] buffer, int at, byte[] pattern) {
        for (int j = 1; j < pattern.length; j++) {
            if (buffer[at + j] != pattern[j]) {
                return false;
            }
        }
        byte next = buffer[at + pattern.length];
        return next >= '0' && next <= '9';
    }

    /**
     * Empties the service's memory of skus found missing (the bounded negative cache of
     * {@link Availability}), as the service itself does when its units-back subscription restarts: the only place
     * made-up skus are kept by design, so a reading after this shows only what they should not have left.
     */
    public static void forgetMadeUpSkus() {
        try {
            Object availability = ClientProxy.unwrap(Arc.container().instance(Availability.class).get());
            Field field = Availability.class.getDeclaredField("unknown");
            field.setAccessible(true);
            Object unknown = field.get(availability);
            Method clear = unknown.getClass().getDeclaredMethod("clear");
            clear.setAccessible(true);
            clear.invoke(unknown);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("the negative cache of Availability is not where this test expects it", e);
        }
    }
}
