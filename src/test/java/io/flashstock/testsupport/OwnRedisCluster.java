package io.flashstock.testsupport;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * A Redis Cluster of the test's own: {@code masters} redis-servers ({@link OwnRedis}, cluster mode on) on free ports
 * of 127.0.0.1, no replicas, the 16384 slots split evenly in order, so node {@code i} owns a contiguous range. Built
 * with plain CLUSTER ADDSLOTS and CLUSTER MEET (what {@code redis-cli --cluster create} sends), so no redis-cli is
 * needed. Only the test that started it may flush, kill or restart its nodes.
 */
public final class OwnRedisCluster implements AutoCloseable {

    private static final int SLOTS = 16384;

    private final List<OwnRedis> masters;

    private OwnRedisCluster(List<OwnRedis> masters) {
        this.masters = masters;
    }

    /** Starts {@code count} masters, assigns every slot and waits until each node reports the cluster ok. */
    public static OwnRedisCluster start(int count) {
        List<OwnRedis> nodes = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                nodes.add(OwnRedis.start(true));
            }
            OwnRedisCluster cluster = new OwnRedisCluster(nodes);
            for (int i = 0; i < count; i++) {
                List<String> command = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
                IntStream.range(cluster.first(i), cluster.first(i + 1)).forEach(slot -> command.add(Integer.toString(slot)));
                nodes.get(i).call(command.toArray(String[]::new));
            }
            for (int i = 1; i < count; i++) {
                nodes.get(0).call("CLUSTER", "MEET", "127.0.0.1", Integer.toString(nodes.get(i).port()));
            }
            cluster.awaitOk();
            return cluster;
        } catch (RuntimeException e) {
            nodes.forEach(OwnRedis::close);
            throw e;
        }
    }

    /** The seed addresses for {@code quarkus.redis.hosts}: every master, comma-separated. */
    public String hosts() {
        return masters.stream().map(OwnRedis::hosts).collect(Collectors.joining(","));
    }

    public List<OwnRedis> masters() {
        return masters;
    }

    /** The master that owns {@code key}'s slot (its hash tag's, when it has one). */
    public OwnRedis masterOf(String key) {
        int slot = Integer.parseInt(masters.get(0).call("CLUSTER", "KEYSLOT", key).get(0));
        for (int i = 0; i < masters.size(); i++) {
            if (slot < first(i + 1)) {
                return masters.get(i);
            }
        }
        throw new IllegalStateException("slot " + slot + " has no master");
    }

    /** Index of {@code master} in {@link #masters()}. */
    public int indexOf(OwnRedis master) {
        return masters.indexOf(master);
    }

    /**
     * What a shard that lost its data looks like: the master is killed and started again empty, owning the same
     * slots (its nodes.conf keeps them); returns once the whole cluster reports ok again.
     */
    public void restartEmpty(OwnRedis master) {
        master.restart();
        awaitOk();
    }

    @Override
    public void close() {
        masters.forEach(OwnRedis::close);
    }

    /** The first slot node {@code i} owns ({@code i == masters}: one past the last slot). */
    private int first(int i) {
        return (int) ((long) SLOTS * i / masters.size());
    }

    private void awaitOk() {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            boolean ok = masters.stream().allMatch(node -> {
                String info = node.call("CLUSTER", "INFO").get(0);
                return info.contains("cluster_state:ok") && info.contains("cluster_slots_ok:" + SLOTS)
                        && info.contains("cluster_known_nodes:" + masters.size());
            });
            if (ok) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the test's Redis Cluster did not become ok within 30 s");
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }
}
