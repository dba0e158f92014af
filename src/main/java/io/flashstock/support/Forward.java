package io.flashstock.support;

import io.smallrye.mutiny.subscription.UniEmitter;
import io.smallrye.mutiny.subscription.UniSubscriber;
import io.smallrye.mutiny.subscription.UniSubscription;

/**
 * Hands a {@code Uni}'s item or failure on to an emitter, for a path built around one emitter instead of a chain of
 * operators. A subscriber, not the callbacks of {@code subscribe().with}: Mutiny decorates those with a capture and a
 * restore of the request's context, which a purchase on the event loop pays for each time.
 */
public final class Forward<T> implements UniSubscriber<T> {

    private final UniEmitter<? super T> emitter;

    private Forward(UniEmitter<? super T> emitter) {
        this.emitter = emitter;
    }

    public static <T> Forward<T> to(UniEmitter<? super T> emitter) {
        return new Forward<>(emitter);
    }

    @Override
    public void onSubscribe(UniSubscription subscription) {
        // nothing to ask: a Uni sends its one signal unasked
    }

    @Override
    public void onItem(T item) {
        emitter.complete(item);
    }

    @Override
    public void onFailure(Throwable failure) {
        emitter.fail(failure);
    }
}
