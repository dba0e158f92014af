import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The raw MySQL limit of bench/run.sh: N clients, each on its own autocommit connection, take one unit of one hot
 * item row at a time, as fast as they can, for a fixed time. No service, no pool, no HTTP: only the row lock.
 *
 * <pre>
 * java -cp mysql-connector-j.jar:classes RawMysql JDBC_URL USER PASSWORD SKU MODE CLIENTS SECONDS WARMUP_SECONDS
 * </pre>
 *
 * MODE {@code versioned}: read the row's version, then
 * {@code UPDATE item SET available=available-1, reserved=reserved+1, version=version+1 WHERE sku=? AND version=?},
 * again from the read when no row changed (a lost race). MODE {@code conditional}:
 * {@code UPDATE item SET available=available-1, reserved=reserved+1 WHERE sku=? AND available>=1}.
 * One operation is one unit taken; its latency includes the retries (an operation still retrying when the time is
 * up is dropped: under heavy contention the percentiles describe the updates that got through). The units move
 * from available to reserved so the table's CHECK constraints hold, as in the service.
 *
 * Prints one line {@code RAW_RESULT ops=.. seconds=.. rps=.. p50_us=.. p99_us=.. max_us=.. retries=..}, and exits
 * non-zero when the row did not change by exactly the operations counted (warm-up included).
 */
public class RawMysql {

    public static void main(String[] args) throws Exception {
        if (args.length != 8) {
            System.err.println("usage: RawMysql JDBC_URL USER PASSWORD SKU versioned|conditional CLIENTS SECONDS WARMUP_SECONDS");
            System.exit(2);
        }
        String url = args[0];
        String user = args[1];
        String password = args[2];
        String sku = args[3];
        boolean versioned = switch (args[4]) {
            case "versioned" -> true;
            case "conditional" -> false;
            default -> throw new IllegalArgumentException("mode must be versioned or conditional: " + args[4]);
        };
        int clients = Integer.parseInt(args[5]);
        double seconds = Double.parseDouble(args[6]);
        double warmupSeconds = Double.parseDouble(args[7]);

        long reservedBefore = reserved(url, user, password, sku);

        List<Client> all = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            all.add(new Client(DriverManager.getConnection(url, user, password), sku, versioned));
        }
        CountDownLatch started = new CountDownLatch(clients);
        List<Thread> threads = new ArrayList<>();
        for (Client client : all) {
            Thread t = new Thread(() -> client.run(started), "raw-client");
            threads.add(t);
            t.start();
        }
        started.await();
        Thread.sleep((long) (warmupSeconds * 1000));
        long start = System.nanoTime();
        all.forEach(c -> c.recording = true);
        Thread.sleep((long) (seconds * 1000));
        all.forEach(c -> c.recording = false);
        long elapsed = System.nanoTime() - start;
        Client.stop.set(true);
        for (Thread t : threads) {
            t.join();
        }

        long ops = 0;
        long allOps = 0;
        long retries = 0;
        int samples = 0;
        for (Client c : all) {
            ops += c.recorded;
            allOps += c.total;
            retries += c.retries;
            samples += c.latencyCount;
            if (c.failure != null) {
                System.err.println("raw MySQL client failed: " + c.failure);
                System.exit(1);
            }
        }
        long[] latencies = new long[samples];
        int at = 0;
        for (Client c : all) {
            System.arraycopy(c.latencies, 0, latencies, at, c.latencyCount);
            at += c.latencyCount;
            c.connection.close();
        }
        Arrays.sort(latencies);

        long reservedAfter = reserved(url, user, password, sku);
        double secs = elapsed / 1e9;
        System.out.printf("RAW_RESULT ops=%d seconds=%.3f rps=%.1f p50_us=%d p99_us=%d max_us=%d retries=%d%n",
                ops, secs, ops / secs, percentile(latencies, 50), percentile(latencies, 99),
                latencies.length == 0 ? 0 : latencies[latencies.length - 1], retries);
        if (reservedAfter - reservedBefore != allOps) {
            System.err.printf("raw MySQL check failed: reserved grew by %d, but %d units were taken%n",
                    reservedAfter - reservedBefore, allOps);
            System.exit(1);
        }
    }

    static long percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        int index = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }

    static long reserved(String url, String user, String password, String sku) throws SQLException {
        try (Connection c = DriverManager.getConnection(url, user, password);
                PreparedStatement s = c.prepareStatement("SELECT reserved FROM item WHERE sku = ?")) {
            s.setString(1, sku);
            try (ResultSet r = s.executeQuery()) {
                if (!r.next()) {
                    throw new IllegalStateException("no item " + sku);
                }
                return r.getLong(1);
            }
        }
    }

    static final class Client {
        static final AtomicBoolean stop = new AtomicBoolean();

        final Connection connection;
        final PreparedStatement read;
        final PreparedStatement update;
        final boolean versioned;
        volatile boolean recording;
        long[] latencies = new long[1 << 14];
        int latencyCount;
        long recorded;
        long total;
        long retries;
        Exception failure;

        Client(Connection connection, String sku, boolean versioned) throws SQLException {
            this.connection = connection;
            this.versioned = versioned;
            connection.setAutoCommit(true);
            read = connection.prepareStatement("SELECT version, available FROM item WHERE sku = ?");
            read.setString(1, sku);
            update = connection.prepareStatement(versioned
                    ? "UPDATE item SET available = available - 1, reserved = reserved + 1, version = version + 1 "
                            + "WHERE sku = ? AND version = ? AND available >= 1"
                    : "UPDATE item SET available = available - 1, reserved = reserved + 1 "
                            + "WHERE sku = ? AND available >= 1");
            update.setString(1, sku);
        }

        void run(CountDownLatch started) {
            started.countDown();
            try {
                while (!stop.get()) {
                    boolean measured = recording;
                    long begin = System.nanoTime();
                    Outcome outcome = takeOne();
                    if (outcome == Outcome.ABANDONED) {
                        break;
                    }
                    if (outcome == Outcome.OUT_OF_STOCK) {
                        throw new IllegalStateException("the raw item ran out of stock");
                    }
                    long micros = (System.nanoTime() - begin) / 1000;
                    total++;
                    if (measured && recording) {
                        recorded++;
                        if (latencyCount == latencies.length) {
                            latencies = Arrays.copyOf(latencies, latencies.length * 2);
                        }
                        latencies[latencyCount++] = micros;
                    }
                }
            } catch (Exception e) {
                failure = e;
                stop.set(true);
            }
        }

        enum Outcome { TAKEN, OUT_OF_STOCK, ABANDONED }

        /** Takes one unit. A versioned attempt still losing races when the run ends is abandoned (row unchanged). */
        Outcome takeOne() throws SQLException {
            if (!versioned) {
                return update.executeUpdate() == 1 ? Outcome.TAKEN : Outcome.OUT_OF_STOCK;
            }
            while (true) {
                if (stop.get()) {
                    return Outcome.ABANDONED;
                }
                long version;
                try (ResultSet r = read.executeQuery()) {
                    r.next();
                    version = r.getLong(1);
                    if (r.getLong(2) < 1) {
                        return Outcome.OUT_OF_STOCK;
                    }
                }
                update.setLong(2, version);
                if (update.executeUpdate() == 1) {
                    return Outcome.TAKEN;
                }
                retries++;
            }
        }
    }
}
