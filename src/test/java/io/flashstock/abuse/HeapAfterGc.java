package io.flashstock.abuse;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import com.sun.management.HotSpotDiagnosticMXBean;
import io.flashstock.item.Availability;
import io.flashstock.testsupport.Lane;
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
     * The heap in use after a full collection; in the full lane, where its bound is meant to bite, the least of three
     * readings 100 ms apart (a buffer or a connection that is only briefly live counts in one reading, not in all).
     */
    public static long usedBytes() {
        long least = Long.MAX_VALUE;
        for (int i = 0; i < Lane.size(1, 3); i++) {
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

    /** What {@link #retained} found: skus held as strings of their own, and every occurrence (in buffers too). */
    public record Retained(long strings, long occurrences) {
    }

    /**
     * How many of the storm's skus ({@code prefix} and a number, see {@link MadeUpSkus#sku}) the live heap holds: a
     * dump of it ({@code HotSpotDiagnosticMXBean.dumpHeap}, live objects only, which collects first) to a file under
     * target/, searched byte by byte, then deleted. About a second for a heap of 200 MB.
     * <ul>
     * <li>{@link Retained#strings}: byte arrays whose whole content is one sku of the storm, that is, the value of a
     * {@code String} holding it (Latin-1): what a map, a lane or a lock kept per sku would hold. The test's own prefix
     * string is no sku (no number), so it does not count.</li>
     * <li>{@link Retained#occurrences}: every place a sku of the storm appears, in bigger arrays too: the reused
     * buffers of the connections (MySQL packets, the HTTP client of the test) keep the bytes of many earlier
     * requests, a few hundred skus, bounded by the buffers, not by the storm.</li>
     * </ul>
     */
    public static Retained retained(String prefix) {
        Path dump = Path.of("target", "abuse-heap-" + ProcessHandle.current().pid() + "-" + System.nanoTime()
                + ".hprof");
        try {
            Files.createDirectories(dump.getParent());
            ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(dump.toString(), true);
            try (FileChannel channel = FileChannel.open(dump)) {
                return search(channel, prefix.getBytes(StandardCharsets.ISO_8859_1));
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

    /** Bytes before a primitive array's content in an HPROF dump: tag, id (8), stack serial, length, type. */
    private static final int ARRAY_HEADER = 1 + 8 + 4 + 4 + 1;
    private static final int PRIMITIVE_ARRAY_DUMP = 0x23;
    private static final int BYTE_TYPE = 8;
    private static final int SEGMENT = 1 << 30;
    private static final int OVERLAP = 128;

    static Retained search(FileChannel channel, byte[] pattern) throws IOException {
        long size = channel.size();
        long strings = 0;
        long occurrences = 0;
        for (long base = 0; base < size; base += SEGMENT) {
            long length = Math.min(size - base, (long) SEGMENT + OVERLAP);
            MappedByteBuffer map = channel.map(FileChannel.MapMode.READ_ONLY, base, length);
            int own = (int) Math.min(SEGMENT, length); // matches starting here; the overlap belongs to the next
            for (int i = 0; i < own && i + pattern.length < length; i++) {
                if (map.get(i) != pattern[0] || !matches(map, i, pattern)) {
                    continue;
                }
                occurrences++;
                if (base + i >= ARRAY_HEADER && i >= ARRAY_HEADER && wholeSku(map, i, pattern.length, length)) {
                    strings++;
                }
            }
        }
        return new Retained(strings, occurrences);
    }

    /** The pattern at {@code at}, followed by a digit. */
    private static boolean matches(MappedByteBuffer map, int at, byte[] pattern) {
        for (int j = 1; j < pattern.length; j++) {
            if (map.get(at + j) != pattern[j]) {
                return false;
            }
        }
        byte next = map.get(at + pattern.length);
        return next >= '0' && next <= '9';
    }

    /** Whether the match at {@code at} is the whole content of a byte array: a sku (digits and dashes after it). */
    private static boolean wholeSku(MappedByteBuffer map, int at, int prefixLength, long mapped) {
        if ((map.get(at - ARRAY_HEADER) & 0xff) != PRIMITIVE_ARRAY_DUMP || map.get(at - 1) != BYTE_TYPE) {
            return false;
        }
        int arrayLength = map.getInt(at - 5); // big-endian, as HPROF and MappedByteBuffer both are
        if (arrayLength <= prefixLength || arrayLength > 64 || at + arrayLength > mapped) {
            return false;
        }
        for (int j = prefixLength; j < arrayLength; j++) {
            byte b = map.get(at + j);
            if (b != '-' && (b < '0' || b > '9')) {
                return false;
            }
        }
        return true;
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
