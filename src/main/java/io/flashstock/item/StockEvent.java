package io.flashstock.item;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/**
 * A change of an item's counters that MySQL committed and a {@link StockMirror} has yet to apply (the transactional
 * outbox of {@code redis-lua}). Written in the transaction that makes the change, deleted once mirrored.
 */
@Entity
@Table(name = "stock_event")
public class StockEvent extends PanacheEntityBase {

    public enum Kind {
        /** A RESERVED order was paid: its units move from reserved to sold. */
        CONFIRMED,
        /** A RESERVED order was cancelled or expired: its units go back to available. */
        RETURNED,
        /**
         * Units were added to stock and available; or, with a negative quantity, a stock set took them (a stock set is
         * the change {@code new stock - old stock} of stock and available: it commutes with restocks and purchases).
         */
        RESTOCKED,
        /** The sale window changed, or the item was retired (the mirror reads the item's current ones). */
        SALE
    }

    @Id
    @Column(name = "id", length = 36, nullable = false, updatable = false)
    public String id;

    @Column(name = "sku", length = 64, nullable = false, updatable = false)
    public String sku;

    @Enumerated(EnumType.STRING)
    @Column(name = "kind", length = 16, nullable = false, updatable = false)
    public Kind kind;

    @Column(name = "order_id", length = 36, updatable = false)
    public String orderId;

    @Column(name = "quantity", nullable = false, updatable = false)
    public int quantity;

    /** The item's version right after the change (the change bumped it). */
    @Column(name = "item_version", nullable = false, updatable = false)
    public long itemVersion;

    @Column(name = "created_at", nullable = false, updatable = false)
    public Instant createdAt;

    /** Records the change, which the caller's transaction has just written to the item's row. */
    public static StockEvent record(Kind kind, String sku, String orderId, int quantity, Instant now) {
        StockEvent event = new StockEvent();
        event.itemVersion = Item.currentVersion(sku);
        event.id = UUID.randomUUID().toString();
        event.kind = kind;
        event.sku = sku;
        event.orderId = orderId;
        event.quantity = quantity;
        event.createdAt = now;
        event.persist();
        return event;
    }

    /**
     * Whether the event is in MySQL, once no transaction is writing it any more: the lookup after a commit whose
     * answer was lost ({@link io.flashstock.db.CommitLookup#committed}).
     */
    public static boolean committed(String id) {
        return !io.flashstock.db.CommitLookup.committed(getEntityManager(), "stock_event", "id", List.of(id))
                .isEmpty();
    }

    /** Events recorded before {@code before}, oldest first: the ones a crashed pod left unmirrored. */
    public static List<StockEvent> recordedBefore(Instant before, int limit) {
        return find("createdAt < ?1 order by createdAt", before).page(0, limit).list();
    }
}
