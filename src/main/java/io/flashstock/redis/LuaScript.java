package io.flashstock.redis;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;

import io.flashstock.support.Causes;
import io.quarkus.redis.datasource.ReactiveRedisDataSource;
import io.quarkus.redis.datasource.RedisDataSource;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.Response;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * A Lua script from {@code src/main/resources/lua/}, read once. Runs with EVALSHA; when Redis answers NOSCRIPT
 * (restarted, failed over, SCRIPT FLUSH) it runs EVAL once, which also puts the script back in Redis's cache.
 * KEYS and ARGV are passed separately, and every key a script touches comes through KEYS.
 */
public final class LuaScript {

    /** {@code quarkus.redis.timeout} when it is not set. */
    private static final Duration REDIS_CLIENT_DEFAULT_TIMEOUT = Duration.ofSeconds(10);

    private final String name;
    private final String source;
    private final String sha1;
    /** How long {@link #run} waits: what the blocking data source waits for any command. */
    private final Duration blockingTimeout;

    private LuaScript(String name, String source, Duration blockingTimeout) {
        this.name = name;
        this.source = source;
        this.sha1 = sha1(source);
        this.blockingTimeout = blockingTimeout;
    }

    /** Reads {@code lua/<name>.lua} from the class path (the native image includes {@code lua/**}). */
    public static LuaScript load(String name) {
        return new LuaScript(name, read(name), configuredTimeout());
    }

    /**
     * The script {@code lua/<name>.lua} preceded by {@code lua/<library>.lua}, whose local functions it calls: scripts
     * that apply the same rules (one purchase, several in one call) keep those rules in one file.
     */
    public static LuaScript withLibrary(String name, String library) {
        return new LuaScript(name, read(library) + "\n" + read(name), configuredTimeout());
    }

    private static String read(String name) {
        String path = "lua/" + name + ".lua";
        try (InputStream in = Thread.currentThread().getContextClassLoader().getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("Missing Lua script " + path);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("Cannot read Lua script " + path, e);
        }
    }

    private static Duration configuredTimeout() {
        return ConfigProvider.getConfig().getOptionalValue("quarkus.redis.timeout", Duration.class)
                .orElse(REDIS_CLIENT_DEFAULT_TIMEOUT);
    }

    /** SCRIPT LOAD: makes the first EVALSHA succeed. */
    public void preload(RedisDataSource redis) {
        String loaded = redis.execute("SCRIPT", "LOAD", source).toString();
        if (!sha1.equals(loaded)) {
            throw new IllegalStateException("Redis hashed script " + name + " as " + loaded + ", expected " + sha1);
        }
    }

    /**
     * Runs the script and waits for its reply as long as the blocking data source waits for any command
     * ({@code quarkus.redis.timeout}). For callers on a worker thread.
     */
    public Response run(RedisDataSource redis, List<String> keys, List<String> args) {
        return call(redis.getReactive(), keys, args).await().atMost(blockingTimeout);
    }

    /**
     * {@link #run(RedisDataSource, List, List)} without blocking: for callers on the event loop. The reply, or a
     * failure: Redis's error, or a {@link java.util.concurrent.TimeoutException} when no reply came within
     * {@code timeout} (the script may still run: the caller decides what that means, as with a blocking call).
     */
    public Uni<Response> runAsync(ReactiveRedisDataSource redis, List<String> keys, List<String> args,
            Duration timeout) {
        return call(redis, keys, args).ifNoItem().after(timeout).fail();
    }

    /** EVALSHA, and EVAL once when Redis does not know the script (NOSCRIPT). */
    private Uni<Response> call(ReactiveRedisDataSource redis, List<String> keys, List<String> args) {
        assertOneSlot(keys);
        return redis.execute("EVALSHA", command(sha1, keys, args))
                .onFailure(LuaScript::isNoScript)
                .recoverWithUni(() -> redis.execute("EVAL", command(source, keys, args)));
    }

    private void assertOneSlot(List<String> keys) {
        // Checked wherever assertions are on (every test): a call whose keys would not all hash to one slot fails
        // here, on a single Redis too, instead of with CROSSSLOT only in a Redis Cluster.
        assert oneHashTag(keys) : "script " + name + " called with keys of several slots: " + keys;
    }

    private static String[] command(String scriptOrSha, List<String> keys, List<String> args) {
        String[] command = new String[2 + keys.size() + args.size()];
        command[0] = scriptOrSha;
        command[1] = Integer.toString(keys.size());
        int i = 2;
        for (String key : keys) {
            command[i++] = key;
        }
        for (String arg : args) {
            command[i++] = arg;
        }
        return command;
    }

    /** Whether every key carries the same {@code {hash tag}}: then they all hash to one cluster slot. */
    static boolean oneHashTag(List<String> keys) {
        if (keys.size() < 2) {
            return true;
        }
        String tag = hashTag(keys.get(0));
        return tag != null && keys.stream().allMatch(key -> tag.equals(hashTag(key)));
    }

    /** The part Redis Cluster hashes: between the first '{' and the next '}', when not empty; else none here. */
    private static String hashTag(String key) {
        int open = key.indexOf('{');
        int close = open < 0 ? -1 : key.indexOf('}', open + 1);
        return close > open + 1 ? key.substring(open + 1, close) : null;
    }

    static boolean isNoScript(Throwable error) {
        return Causes.any(error, t -> t.getMessage() != null && t.getMessage().startsWith("NOSCRIPT"));
    }

    private static String sha1(String source) {
        try {
            return HexFormat.of().formatHex(
                    MessageDigest.getInstance("SHA-1").digest(source.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is part of every Java platform", e);
        }
    }
}
