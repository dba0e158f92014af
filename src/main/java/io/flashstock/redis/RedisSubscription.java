package io.flashstock.redis;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.Command;
import io.vertx.mutiny.redis.client.Redis;
import io.vertx.mutiny.redis.client.RedisConnection;
import io.vertx.mutiny.redis.client.Request;

/**
 * One connection of its own subscribed to a fixed list of channels, up once Redis has confirmed every one of them.
 *
 * <p>Quarkus 3.34's pub/sub commands install their message handler only after the SUBSCRIBE was written: a confirmation
 * that comes back first is dropped ("No handler waiting for message: [subscribe, ...]", seen at about one start in six
 * of the tests), their subscription never completes, and the connection it subscribed stays open with no one able to
 * close it, still delivering every message. Here the handler is in place before SUBSCRIBE is sent, and a subscription
 * given up on can always be closed once it comes.
 */
public final class RedisSubscription {

    private final RedisConnection connection;

    private RedisSubscription(RedisConnection connection) {
        this.connection = connection;
    }

    /**
     * Subscribes a new connection of {@code client} to {@code channels}. {@code onMessage} gets each message's channel
     * and text; {@code onEnd} runs when the connection ends or fails (once or more), after which nothing is heard.
     * Completes once every channel is confirmed; fails, with the connection closed, if it ends before.
     */
    public static Uni<RedisSubscription> open(Redis client, List<String> channels,
            BiConsumer<String, String> onMessage, Runnable onEnd) {
        return client.connect().chain(connection -> {
            Set<String> unconfirmed = ConcurrentHashMap.newKeySet();
            unconfirmed.addAll(channels);
            CompletableFuture<Void> confirmed = new CompletableFuture<>();
            connection.handler(reply -> {
                if (reply == null || reply.size() < 3) {
                    return;
                }
                String kind = reply.get(0).toString();
                if ("message".equalsIgnoreCase(kind)) {
                    onMessage.accept(reply.get(1).toString(), reply.get(2).toString());
                } else if ("subscribe".equalsIgnoreCase(kind) && unconfirmed.remove(reply.get(1).toString())
                        && unconfirmed.isEmpty()) {
                    confirmed.complete(null);
                }
            });
            connection.endHandler(() -> {
                confirmed.completeExceptionally(new IllegalStateException("the subscription's connection ended"));
                onEnd.run();
            });
            connection.exceptionHandler(failure -> {
                confirmed.completeExceptionally(failure);
                onEnd.run();
            });
            Request subscribe = Request.cmd(Command.SUBSCRIBE);
            channels.forEach(subscribe::arg);
            return connection.send(subscribe)
                    .chain(() -> Uni.createFrom().completionStage(confirmed))
                    .replaceWith(new RedisSubscription(connection))
                    .onFailure().call(() -> connection.close().onFailure().recoverWithNull());
        });
    }

    /** Stops hearing {@code channel}; the others stay subscribed. */
    public Uni<Void> unsubscribe(String channel) {
        return connection.send(Request.cmd(Command.UNSUBSCRIBE).arg(channel)).replaceWithVoid();
    }

    /** Ends the subscription: the connection closes (Redis drops its subscriptions with it). */
    public Uni<Void> close() {
        return connection.close();
    }
}
