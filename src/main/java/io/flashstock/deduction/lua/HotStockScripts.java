package io.flashstock.deduction.lua;

import java.util.List;

import io.flashstock.redis.LuaScript;
import io.quarkus.redis.datasource.RedisDataSource;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * The Lua scripts of {@code redis-lua} ({@code src/main/resources/lua/}), read once. Every one of them is loaded into
 * Redis together whenever Redis may have lost them (warm-up, re-warm after data loss), so that no call, the undo of
 * a timed-out purchase included, pays an extra round trip for NOSCRIPT when time is short.
 */
@ApplicationScoped
public class HotStockScripts {

    /** One purchase, by the rules of purchase_rules.lua. */
    final LuaScript purchase = LuaScript.withLibrary("purchase", "purchase_rules");
    /** Several purchases of one item in one call, by the same rules ({@link PurchaseCombiner}). */
    final LuaScript purchaseBatch = LuaScript.withLibrary("purchase_batch", "purchase_rules");
    final LuaScript undoPurchase = LuaScript.load("undo_purchase");
    final LuaScript settleEntries = LuaScript.load("settle_entries");
    final LuaScript transition = LuaScript.load("transition");
    final LuaScript restock = LuaScript.load("restock");
    final LuaScript warm = LuaScript.load("warm");
    final LuaScript restoreKeys = LuaScript.load("restore_keys");
    final LuaScript reconcile = LuaScript.load("reconcile");
    final LuaScript sale = LuaScript.load("sale");
    final LuaScript setStock = LuaScript.load("set_stock");
    final LuaScript cartOpen = LuaScript.load("cart_open");
    final LuaScript cartDecide = LuaScript.load("cart_decide");
    final LuaScript report = LuaScript.load("report");

    /** SCRIPT LOAD of every script. */
    void preloadAll(RedisDataSource redis) {
        for (LuaScript script : List.of(purchase, purchaseBatch, undoPurchase, settleEntries, transition, restock, warm, restoreKeys,
                reconcile, sale, setStock, cartOpen, cartDecide, report)) {
            script.preload(redis);
        }
    }
}
