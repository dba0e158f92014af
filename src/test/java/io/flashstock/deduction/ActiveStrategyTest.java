package io.flashstock.deduction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.util.List;

import io.flashstock.config.FlashstockConfig;
import io.quarkus.arc.InjectableInstance;
import jakarta.enterprise.inject.Instance;
import org.junit.jupiter.api.Test;

/** Startup selection of the strategy: a plain unit test, no Quarkus needed. */
class ActiveStrategyTest {

    private static final DeductionStrategy DB = new DeductionStrategy() {
        @Override
        public StrategyName name() {
            return StrategyName.DB_OPTIMISTIC;
        }

        @Override
        public PurchaseOutcome purchase(PurchaseCommand command) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CartOutcome purchase(CartCommand cart) {
            throw new UnsupportedOperationException();
        }
    };

    @Test
    void picksTheConfiguredStrategy() {
        assertEquals(StrategyName.DB_OPTIMISTIC, new ActiveStrategy(config("db-optimistic"), only(DB), null).name());
    }

    @Test
    void unknownNameStopsStartupWithTheValidNames() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> new ActiveStrategy(config("redis-magic"), only(DB), null));
        assertTrue(e.getMessage().contains("redis-magic"), e.getMessage());
        assertTrue(e.getMessage().contains("db-optimistic, redis-lua, redis-lock"), e.getMessage());
    }

    @Test
    void knownButMissingImplementationStopsStartup() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> new ActiveStrategy(config("redis-lock"), only(), null));
        assertTrue(e.getMessage().contains("not implemented"), e.getMessage());
    }

    private static FlashstockConfig config(String strategy) {
        return (FlashstockConfig) Proxy.newProxyInstance(FlashstockConfig.class.getClassLoader(),
                new Class<?>[] { FlashstockConfig.class }, (proxy, method, args) -> {
                    if (method.getName().equals("strategy")) {
                        return strategy;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }

    @SuppressWarnings("unchecked")
    private static Instance<DeductionStrategy> only(DeductionStrategy... strategies) {
        List<DeductionStrategy> list = List.of(strategies);
        return (Instance<DeductionStrategy>) Proxy.newProxyInstance(ActiveStrategyTest.class.getClassLoader(),
                new Class<?>[] { InjectableInstance.class }, (proxy, method, args) -> {
                    if (method.getName().equals("stream")) {
                        return list.stream();
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }
}
