package io.flashstock.item;

import java.time.Instant;
import java.util.List;

import io.flashstock.support.KeyFilter;
import io.quarkus.narayana.jta.QuarkusTransaction;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Typed;

/**
 * The {@link StockMirror} of the strategies that decide on MySQL's counters ({@code db-optimistic}, {@code redis-lock}):
 * there is no copy to keep in step, levels are read from MySQL, and a commit that gave units back (or changed a sale
 * window) is announced to every pod over the {@link UnitsBackChannel}. Not a {@link StockMirror} bean by itself: the
 * active strategy chooses it ({@code ActiveStrategy}).
 */
@ApplicationScoped
@Typed(MySqlStock.class)
public class MySqlStock implements StockMirror {

    private final UnitsBackChannel unitsBack;

    MySqlStock(UnitsBackChannel unitsBack) {
        this.unitsBack = unitsBack;
    }

    /** Nothing to mirror. */
    @Override
    public StockEvent record(StockEvent.Kind kind, String sku, String orderId, int quantity, Instant now) {
        return null;
    }

    /** Never called: nothing is recorded; MySQL's conditional update checks the units. */
    @Override
    public Take take(StockEvent event) {
        return Take.TAKEN;
    }

    @Override
    public boolean untake(StockEvent event) {
        return false; // nothing taken outside MySQL
    }

    @Override
    public void apply(List<StockEvent> events) {
        // nothing recorded, nothing to apply
    }

    @Override
    public void applyInForce(StockEvent event) {
        // purchases read MySQL's row, which has it
    }

    @Override
    public void itemCreated(String sku) {
        // MySQL has it
    }

    @Override
    public StockLevel level(String sku) {
        return QuarkusTransaction.requiringNew().call(() -> {
            Item item = Item.findById(sku);
            if (item == null) {
                return StockLevel.NONE;
            }
            SaleWindow window = item.saleWindow();
            return new StockLevel(item.available, item.version, item.retired ? StockLevel.RETIRED
                    : window.bounded() ? window.state(Item.databaseNow()) : window.state(Instant.EPOCH));
        });
    }

    /** Every successful purchase is in MySQL with its key. */
    @Override
    public KeyFilter keysOf(String sku) {
        List<String> stored = StoredKeys.of(sku);
        return stored == null ? null : KeyFilter.of(stored);
    }

    @Override
    public ItemView current(ItemView stored) {
        return stored;
    }

    /** Every acknowledged order is in MySQL. */
    @Override
    public boolean mayHavePending() {
        return false;
    }

    @Override
    public boolean persistPending(String id) {
        return false;
    }

    @Override
    public void persistPendingOf(String sku) {
        // every acknowledged order is in MySQL
    }

    @Override
    public long pendingOrders() {
        return 0;
    }

    @Override
    public long returnedAtVersion(String sku) {
        return Item.currentVersion(sku);
    }

    @Override
    public void announce(String sku, long version) {
        unitsBack.announce(sku, version);
    }

    @Override
    public Readiness readiness() {
        return Readiness.NOT_USED;
    }
}
