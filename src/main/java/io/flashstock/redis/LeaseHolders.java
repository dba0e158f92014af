package io.flashstock.redis;

import java.util.ArrayList;
import java.util.List;

import io.quarkus.redis.datasource.RedisDataSource;
import io.vertx.mutiny.redis.client.Response;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * The pods serving now, as the strategy leases in Redis tell ({@link StrategyLease},
 * {@link RedisKeys#strategyLeases()}): one lease per serving pod of any strategy, expired ones left out by Redis's clock ({@code lua/strategy_holders.lua}).
 * Reads only; the answer grows with the pods, never with requests. For the sale page.
 */
@ApplicationScoped
public class LeaseHolders {

    /** One serving pod: its strategy family and strategy, its random lease id, and how long its lease still runs. */
    public record Holder(String family, String strategy, String pod, long expiresInMillis) {
    }

    private final RedisDataSource redis;
    private final LuaScript script = LuaScript.load("strategy_holders");

    LeaseHolders(RedisDataSource redis) {
        this.redis = redis;
    }

    /** The pods holding a lease now, in the hash's order. Blocks; throws when Redis does not answer. */
    public List<Holder> now() {
        Response reply = script.run(redis, List.of(RedisKeys.strategyLeases()), List.of());
        List<Holder> holders = new ArrayList<>();
        for (int i = 0; i + 1 < reply.size(); i += 2) {
            String[] field = reply.get(i).toString().split("\\|", 3);
            if (field.length == 3) {
                holders.add(new Holder(field[0], field[1], field[2], reply.get(i + 1).toLong()));
            }
        }
        return holders;
    }
}
