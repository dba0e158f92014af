package io.flashstock.deduction;

import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import io.flashstock.config.FlashstockConfig;
import io.flashstock.redis.StrategyLease;
import io.quarkus.runtime.Startup;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import org.jboss.logging.Logger;

/**
 * Picks the {@link DeductionStrategy} named by {@code flashstock.strategy} once, at startup. An unknown name,
 * or a name whose implementation is not in this build, stops startup with a message that says which values work
 * ({@link Startup}: the check runs when the application starts, not on the first purchase).
 */
@Startup
@ApplicationScoped
public class ActiveStrategy {

    private static final Logger LOG = Logger.getLogger(ActiveStrategy.class);

    private final DeductionStrategy strategy;
    private final StrategyLease lease;

    ActiveStrategy(FlashstockConfig config, @Any Instance<DeductionStrategy> implementations, StrategyLease lease) {
        this.lease = lease;
        Map<StrategyName, DeductionStrategy> available = implementations.stream()
                .collect(Collectors.toMap(DeductionStrategy::name, Function.identity()));
        String configured = config.strategy();
        StrategyName name = StrategyName.parse(configured).orElseThrow(() -> new IllegalStateException(
                "Unknown flashstock.strategy '" + configured + "'. Use one of: " + StrategyName.allConfigValues()
                        + " (config profile, FLASHSTOCK_STRATEGY or flashstock.strategy)."));
        strategy = available.get(name);
        if (strategy == null) {
            throw new IllegalStateException("flashstock.strategy '" + configured
                    + "' is not implemented in this build. Available here: "
                    + available.keySet().stream().map(StrategyName::configValue).sorted()
                            .collect(Collectors.joining(", ")) + ".");
        }
        LOG.infof("Deduction strategy: %s", name.configValue());
    }

    /**
     * Takes this pod's strategy lease before anything else starts (the hot stock's warm-up, the jobs): redis-lua
     * never serves together with a MySQL strategy ({@link StrategyLease}).
     */
    void beginLease(@Observes @Priority(100) StartupEvent event) {
        lease.begin(strategy.name().configValue(),
                strategy.name() == StrategyName.REDIS_LUA ? StrategyLease.Family.REDIS : StrategyLease.Family.MYSQL);
    }

    public DeductionStrategy get() {
        return strategy;
    }

    public StrategyName name() {
        return strategy.name();
    }

    /** Whether {@code name} is the strategy this deployment runs: the one answer to "is redis-lua active?". */
    public boolean is(StrategyName name) {
        return strategy.name() == name;
    }
}
