package io.flashstock.deduction.lua;

import io.vertx.mutiny.redis.client.Response;

/**
 * One purchase's answer in a purchase script's reply, read in place: {@code lua/purchase.lua}'s reply (from 0), or
 * the purchase's {@value #WIDTH} values in {@code lua/purchase_batch.lua}'s flat reply (from {@code WIDTH × i}). A
 * value the answer does not have is absent (purchase.lua) or empty (purchase_batch.lua), and never read.
 *
 * @param reply the script's reply
 * @param at    where this purchase's values start in it
 */
record ScriptAnswer(Response reply, int at) {

    /** Values per purchase in purchase_batch.lua's reply: the longest answer's ({'OK', ...}). */
    static final int WIDTH = 6;

    /** purchase.lua's reply, the answer of its one purchase. */
    static ScriptAnswer single(Response reply) {
        return new ScriptAnswer(reply, 0);
    }

    /** The answer's kind, its first value. */
    PurchaseReply code() {
        return PurchaseReply.parse(text(0));
    }

    /** The answer's value {@code k} (the kind is 0) as text. */
    String text(int k) {
        return reply.get(at + k).toString();
    }

    /** The answer's value {@code k} as a number. */
    long number(int k) {
        return reply.get(at + k).toLong();
    }
}
