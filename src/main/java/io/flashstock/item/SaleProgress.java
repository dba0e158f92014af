package io.flashstock.item;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import io.flashstock.config.FlashstockConfig;
import io.flashstock.error.ProblemCode;
import io.flashstock.support.TrackedItems;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.runtime.Startup;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

/**
 * Per-item sale progress in {@code /q/metrics} for the items on sale ({@link ItemMeters}): at most
 * {@code flashstock.metrics.max-items} items per pod, the most recently active ones; the least recently active item
 * makes room for a new one and its meters are removed. Only real items get in: a sku is admitted by a purchase answered
 * 201, or refused with a code that only an existing item can get (sold out, over the limit, outside its sale window,
 * retired); any other refusal (rate limit, 503, ...) is counted only for an item already admitted, and item-not-found
 * never. So no caller can add a label value.
 *
 * <p>Costs on the purchase path: a map look-up and a counter increment (a new item: a scan of at most max-items
 * entries). The counters (available, reserved, sold) are read once a second for all admitted items together: one MySQL
 * query, and for redis-lua one Redis read per item ({@link StockMirror#current}); never per purchase.
 */
@Startup // created with the application, so its meters are served from the start, not from its first round
@ApplicationScoped
public class SaleProgress {

    private static final Logger LOG = Logger.getLogger(SaleProgress.class);

    /** Refusals that only an existing item gets: they admit it. */
    static final Set<String> ITEM_EXISTS = Set.of(ProblemCode.SOLD_OUT.code(), ProblemCode.PURCHASE_LIMIT.code(),
            ProblemCode.SALE_NOT_STARTED.code(), ProblemCode.SALE_ENDED.code(), ProblemCode.SALE_PAUSED.code(),
            ProblemCode.ITEM_RETIRED.code());

    private final int maxItems;
    private final MeterRegistry registry;
    private final Function<List<String>, List<ItemView>> reader;
    private final Map<String, ItemMeters> items = new ConcurrentHashMap<>();

    @Inject
    SaleProgress(FlashstockConfig config, MeterRegistry registry, StockMirror mirror) {
        this(config.metrics().maxItems(), registry, skus -> read(skus, mirror));
    }

    /** {@code reader}: the current counters of the given items (those that exist). */
    SaleProgress(int maxItems, MeterRegistry registry, Function<List<String>, List<ItemView>> reader) {
        this.maxItems = maxItems;
        this.registry = registry;
        this.reader = reader;
        TrackedItems.register(registry, "sale-progress", "any", items, Map::size);
    }

    /** A purchase of the item was answered 201 here (a line of a multi-item purchase too). Never throws. */
    public void purchased(String sku) {
        ItemMeters meters = admit(sku);
        if (meters != null) {
            meters.purchased();
        }
    }

    /** A purchase of {@code sku} was refused with the problem code {@code code}. Never throws. */
    public void refused(String sku, String code) {
        if (sku == null) {
            return;
        }
        ItemMeters meters = ITEM_EXISTS.contains(code) ? admit(sku) : items.get(sku);
        if (meters != null) {
            meters.refused(code);
        }
    }

    private ItemMeters admit(String sku) {
        if (maxItems <= 0 || sku == null) {
            return null;
        }
        ItemMeters meters = items.get(sku);
        if (meters == null) {
            meters = admitNew(sku);
        }
        meters.touch();
        return meters;
    }

    private synchronized ItemMeters admitNew(String sku) {
        ItemMeters meters = items.get(sku);
        if (meters != null) {
            return meters;
        }
        while (items.size() >= maxItems) {
            items.values().stream().min(Comparator.comparingLong(ItemMeters::lastActive))
                    .ifPresent(oldest -> {
                        items.remove(oldest.sku());
                        oldest.remove();
                    });
        }
        meters = new ItemMeters(sku, registry);
        items.put(sku, meters);
        return meters;
    }

    /** The progress of every item tracked now (at most {@code flashstock.metrics.max-items}), in no order. */
    public List<ItemProgress> snapshot() {
        return items.values().stream().map(ItemMeters::progress).toList();
    }

    /** Reads the counters of every admitted item, once a second; a failure (MySQL or Redis away) waits a round. */
    @Scheduled(identity = "sale-progress", every = "1s", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void refresh() {
        if (items.isEmpty()) {
            return;
        }
        try {
            for (ItemView item : reader.apply(List.copyOf(items.keySet()))) {
                ItemMeters meters = items.get(item.sku());
                if (meters != null) {
                    meters.counters(item);
                }
            }
        } catch (RuntimeException e) {
            LOG.debugf("Could not read the counters of the items on sale: %s", e.toString());
        }
    }

    private static List<ItemView> read(List<String> skus, StockMirror mirror) {
        List<ItemView> stored = QuarkusTransaction.requiringNew()
                .call(() -> Item.<Item>list("sku in ?1", skus).stream().map(ItemView::of).toList());
        return stored.stream().map(mirror::current).toList();
    }
}
