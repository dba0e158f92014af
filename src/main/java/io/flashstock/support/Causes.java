package io.flashstock.support;

import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The one walk over a failure and everything it carries: its cause chain and, at every level, its suppressed
 * exceptions (Narayana's {@code RollbackException} carries the driver's failure of a commit as a suppressed one).
 * Frameworks wrap freely (Hibernate, Agroal, Narayana, Vert.x), so classification never looks at the top alone.
 * Cycle-safe and bounded.
 */
public final class Causes {

    /** More levels than any real wrapping; stops pathological chains. */
    private static final int MAX_VISITED = 64;

    private Causes() {
    }

    /** Whether {@code error} or anything it carries matches. */
    public static boolean any(Throwable error, Predicate<Throwable> test) {
        return first(error, test).isPresent();
    }

    /** The first of {@code error} and what it carries (depth first: causes before suppressed) that matches. */
    public static Optional<Throwable> first(Throwable error, Predicate<Throwable> test) {
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        Deque<Throwable> pending = new ArrayDeque<>();
        if (error != null) {
            pending.push(error);
        }
        while (!pending.isEmpty() && seen.size() < MAX_VISITED) {
            Throwable t = pending.pop();
            if (!seen.add(t)) {
                continue;
            }
            if (test.test(t)) {
                return Optional.of(t);
            }
            Throwable[] suppressed = t.getSuppressed();
            for (int i = suppressed.length - 1; i >= 0; i--) {
                pending.push(suppressed[i]);
            }
            if (t.getCause() != null) {
                pending.push(t.getCause());
            }
        }
        return Optional.empty();
    }

    /** The first of {@code error} and what it carries that is a {@code type}. */
    public static <T extends Throwable> Optional<T> find(Throwable error, Class<T> type) {
        return first(error, type::isInstance).map(type::cast);
    }

    /** {@code error} itself when unchecked, else wrapped in one (a failure handed over by a reactive call). */
    public static RuntimeException unchecked(Throwable error) {
        return error instanceof RuntimeException e ? e : new IllegalStateException(error.toString(), error);
    }
}
