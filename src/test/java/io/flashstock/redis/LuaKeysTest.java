package io.flashstock.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * What keeps every script runnable on a Redis Cluster (no CROSSSLOT): each script reaches keys only through KEYS,
 * never by a name it builds or receives in ARGV (an index may be a variable: {@code KEYS[i]}; a command of several
 * keys may take a range of KEYS: {@code unpack(KEYS, from, to)}), and each call
 * passes keys of one hash tag. Read from the sources, so a script or command added later is checked too (an unknown
 * command fails until it is classified here).
 */
class LuaKeysTest {

    private static final Path SCRIPTS = Path.of("src/main/resources/lua");
    /** Commands whose first argument is a key. */
    private static final Set<String> FIRST_ARG_IS_KEY = Set.of("GET", "MGET", "SET", "DEL", "EXISTS", "EXPIRE",
            "PEXPIRE", "PTTL", "TTL", "INCR", "INCRBY", "HGET", "HSET", "HMGET", "HINCRBY", "HEXISTS", "HDEL",
            "HGETALL", "XADD", "XACK", "XDEL", "XTRIM", "XLEN", "XRANGE", "XPENDING", "XAUTOCLAIM", "XCLAIM", "ZADD", "ZREM",
            "ZSCORE");
    /** Commands without keys (a channel is not a key: classic pub/sub reaches every node of a cluster). */
    private static final Set<String> NO_KEY = Set.of("TIME", "PUBLISH");
    private static final Pattern CALL = Pattern.compile("redis\\.p?call\\(\\s*'([A-Z]+)'\\s*(?:,\\s*([^,)]+))?"
            + "(?:,\\s*([^,)]+))?");
    private static final Pattern STREAMS_KEY = Pattern.compile("'STREAMS'\\s*,\\s*([^,)]+)");

    @Test
    void everyScriptReachesKeysOnlyThroughKeys() throws IOException {
        List<String> problems = new ArrayList<>();
        int calls = 0;
        try (Stream<Path> files = Files.list(SCRIPTS)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".lua")).sorted().toList()) {
                String code = withoutComments(Files.readString(file));
                if (code.contains("'fs:") || code.contains("\"fs:")) {
                    problems.add(file.getFileName() + ": builds a key name of its own");
                }
                Matcher call = CALL.matcher(code);
                while (call.find()) {
                    calls++;
                    String command = call.group(1);
                    String key = switch (command) {
                        case "XREADGROUP" -> streamsKey(code, call.end());
                        case "XGROUP", "XINFO" -> call.group(3); // XGROUP CREATE <key> ..., XINFO GROUPS <key>
                        default -> FIRST_ARG_IS_KEY.contains(command) ? call.group(2) : null;
                    };
                    if (key == null && !NO_KEY.contains(command)) {
                        problems.add(file.getFileName() + ": " + command + " is not classified in this test");
                    } else if (key != null && !key.trim().matches("KEYS\\[(\\d+|[a-z]\\w*)\\]|unpack\\(KEYS")) {
                        problems.add(file.getFileName() + ": " + command + " on " + key.trim() + ", not a KEYS entry");
                    }
                }
            }
        }
        assertTrue(calls > 50, "the scripts were read: " + calls + " calls");
        assertEquals(List.of(), problems);
    }

    @Test
    void keysOfOneCallMustShareTheirHashTag() {
        assertTrue(LuaScript.oneHashTag(List.of(RedisKeys.stock("a"), RedisKeys.orders("a"), RedisKeys.held("a"),
                RedisKeys.idempotency("a", "u-1", "k-1"), RedisKeys.voided("a", "o-1"),
                RedisKeys.legacyIdempotency("a", "k-1"))));
        // A user's key names its user by length: whatever the user id and key hold, one name is one pair.
        assertEquals("fs:{a}:ukey:3:u:1:k:1", RedisKeys.idempotency("a", "u:1", "k:1"));
        assertNotEquals(RedisKeys.idempotency("a", "u", "1:k:1"), RedisKeys.idempotency("a", "u:1", "k:1"));
        assertTrue(LuaScript.oneHashTag(List.of(RedisKeys.activeItems())), "one key is always one slot");
        assertFalse(LuaScript.oneHashTag(List.of(RedisKeys.stock("a"), RedisKeys.stock("b"))));
        assertFalse(LuaScript.oneHashTag(List.of(RedisKeys.stock("a"), RedisKeys.generation())));
    }

    private static String streamsKey(String code, int from) {
        Matcher streams = STREAMS_KEY.matcher(code);
        return streams.find(from) ? streams.group(1) : null;
    }

    private static String withoutComments(String lua) {
        return lua.replaceAll("--[^\\n]*", "");
    }
}
