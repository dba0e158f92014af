package io.flashstock.deduction;

import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import io.flashstock.config.FlashstockConfig;
import io.flashstock.item.MySqlStock;
import io.flashstock.item.StockMirror;
import io.flashstock.redis.StrategyLease;
import io.quarkus.runtime.Startup;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import org.jboss.logging.Logger;

/**
 * Picks the {@link DeductionStrategy} named by {@code flashstock.strategy} once, at startup, and with it everything
 * that differs by strategy: the {@link StockMirror} the services keep in step, what the settlement report reads
 * outside MySQL ({@link HotStockAudit}), the strategy lease's family, and the
 * strategy's background work ({@link DeductionStrategy#start}). An unknown name, or a name whose implementation is not
 * in this build, stops startup with a message that says which values work ({@link Startup}: the check runs when the
 * application starts, not on the first purchase).
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
        lease.begin(strategy.name().configValue(), strategy.leaseFamily());
    }

    /** Starts the chosen strategy's background work; the strategies not chosen run nothing. */
    void start(@Observes StartupEvent event) {
        strategy.start();
    }

    /** The chosen strategy's copy of the counters outside MySQL, or MySQL alone: one choice, for every service. */
    @Produces
    @ApplicationScoped
    StockMirror stockMirror(MySqlStock mysql) {
        return strategy.stockMirror().orElse(mysql);
    }

    /** What the settlement report reads outside MySQL: the chosen strategy's, or nothing. */
    @Produces
    @ApplicationScoped
    HotStockAudit hotStockAudit() {
        return strategy.hotStockAudit().orElse(HotStockAudit.NONE);
    }

    public DeductionStrategy get() {
        return strategy;
    }

    public StrategyName name() {
        return strategy.name();
    }
}
