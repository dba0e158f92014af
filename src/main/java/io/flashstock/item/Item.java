package io.flashstock.item;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;

import io.flashstock.support.Timestamps;
import io.quarkus.hibernate.orm.panache.PanacheEntityBase;
import io.quarkus.panache.common.Parameters;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Version;
import org.hibernate.Session;

/**
 * One sellable item and its counters, the system of record. Always {@code stock == available + reserved + sold};
 * the table's CHECK constraints refuse a negative {@code available}.
 *
 * <p>The rule that makes {@code db-optimistic} safe: <b>every change of the counters bumps {@link #version}</b>, so a
 * versioned update based on a stale read fails instead of losing an update. It is kept in one place: counters change
 * only through this class, either on a managed entity ({@link #reserve}; Hibernate bumps the {@code @Version} when it
 * flushes) or through the bulk updates below, which all go through {@link #changeCounters}.
 *
 * <p>Every caller of a counter change also appends its movement to the ledger ({@link Ledger}) in the same
 * transaction, so that an item's sums of deltas stay equal to its counters: the order writers (reserve), the order
 * moves (confirm, cancel), the expiry job, {@code ItemService} (created, restock) and {@code StockSets} (stock-set).
 */
@Entity
@Table(name = "item")
public class Item extends PanacheEntityBase {

    @Id
    @Column(name = "sku", length = 64, nullable = false, updatable = false)
    public String sku;

    @Column(name = "name", length = 200, nullable = false)
    public String name;

    @Column(name = "stock", nullable = false)
    public int stock;

    @Column(name = "available", nullable = false)
    public int available;

    @Column(name = "reserved", nullable = false)
    public int reserved;

    @Column(name = "sold", nullable = false)
    public int sold;

    /** Most units one user may hold in RESERVED + CONFIRMED orders; 0 means no limit. */
    @Column(name = "per_user_limit", nullable = false)
    public int perUserLimit;

    @Version
    @Column(name = "version", nullable = false)
    public long version;

    /** Last fencing token accepted for this item (redis-lock); see {@code deduction/FencedReservation}. */
    @Column(name = "fence", nullable = false)
    public long fence;

    @Column(name = "sale_starts_at")
    public Instant saleStartsAt;

    @Column(name = "sale_ends_at")
    public Instant saleEndsAt;

    @Column(name = "paused", nullable = false)
    public boolean paused;

    /** Retired: the item sells no more; its reservations still confirm, cancel and expire. */
    @Column(name = "retired", nullable = false)
    public boolean retired;

    /** Seconds a RESERVED order of this item holds its units; null: the service's default. */
    @Column(name = "reservation_ttl_seconds")
    public Integer reservationTtlSeconds;

    @Column(name = "created_at", nullable = false, updatable = false)
    public Instant createdAt;

    @Column(name = "updated_at", nullable = false)
    public Instant updatedAt;

    public boolean hasUserLimit() {
        return perUserLimit > 0;
    }

    public SaleWindow saleWindow() {
        return new SaleWindow(saleStartsAt, saleEndsAt, paused);
    }

    /** How long a new order of this item holds its units: its own TTL, else {@code defaultTtl}. */
    public java.time.Duration reservationTtl(java.time.Duration defaultTtl) {
        return reservationTtlSeconds == null ? defaultTtl : java.time.Duration.ofSeconds(reservationTtlSeconds);
    }

    /** Sets the item's sale window; bumps the version, so that the hot stock's mirror applies the newest. Rows. */
    public static int setSaleWindow(String sku, SaleWindow window, Instant now) {
        return update("saleStartsAt = :starts, saleEndsAt = :ends, paused = :paused, version = version + 1,"
                + " updatedAt = :now where sku = :sku", Parameters.with("starts", window.startsAt())
                .and("ends", window.endsAt()).and("paused", window.paused()).and("now", now).and("sku", sku));
    }

    /**
     * {@link #setSaleWindow} only if the item is still at {@code version} (an If-Match read under
     * {@link #lockForChange}). Rows changed: 0 when the version moved.
     */
    public static int setSaleWindow(String sku, SaleWindow window, long version, Instant now) {
        return update("saleStartsAt = :starts, saleEndsAt = :ends, paused = :paused, version = version + 1,"
                + " updatedAt = :now where sku = :sku and version = :version", Parameters.with("starts",
                window.startsAt()).and("ends", window.endsAt()).and("paused", window.paused()).and("now", now)
                .and("sku", sku).and("version", version));
    }

    /**
     * Retires the item if it is still at {@code version}: it sells no more. Bumps the version, so that the hot stock's
     * mirror applies it with the sale window ({@code lua/sale.lua}). Rows changed: 0 when the version moved.
     */
    public static int retire(String sku, long version, Instant now) {
        return update("retired = true, version = version + 1, updatedAt = :now where sku = :sku and version = :version",
                Parameters.with("now", now).and("sku", sku).and("version", version));
    }

    /** What a versioned change of an item checks, read under the row's lock. */
    public record Locked(long version, int stock, int reserved, int sold) {

        /** Units held by RESERVED and CONFIRMED orders, as MySQL has them. */
        public long committed() {
            return (long) reserved + sold;
        }
    }

    /**
     * Locks the item's row for the rest of the caller's transaction and reads what a versioned change checks, as last
     * committed (a locking read, whatever the transaction's snapshot); null for an unknown item.
     */
    public static Locked lockForChange(String sku) {
        java.util.List<?> rows = getEntityManager().createNativeQuery(
                "SELECT version, stock, reserved, sold FROM item WHERE sku = ?1 FOR UPDATE")
                .setParameter(1, sku).getResultList();
        if (rows.isEmpty()) {
            return null;
        }
        Object[] row = (Object[]) rows.get(0);
        return new Locked(((Number) row[0]).longValue(), ((Number) row[1]).intValue(), ((Number) row[2]).intValue(),
                ((Number) row[3]).intValue());
    }

    /** MySQL's clock: the one every pod judges sale windows by (MySQL strategies). */
    public static Instant databaseNow() {
        // Epoch seconds with microseconds, whatever the session's time zone.
        java.math.BigDecimal seconds = (java.math.BigDecimal) getEntityManager()
                .createNativeQuery("SELECT UNIX_TIMESTAMP(NOW(6))").getSingleResult();
        return Instant.ofEpochMilli(seconds.movePointRight(3).longValue());
    }

    /**
     * Moves {@code quantity} units from available to reserved on this managed entity; the caller has checked
     * availability. The version moves when the change is flushed (a versioned {@code UPDATE}).
     */
    public void reserve(int quantity, Instant now) {
        available -= quantity;
        reserved += quantity;
        updatedAt = now;
    }

    /** Adds units to stock and available, unless the stock would pass {@link Integer#MAX_VALUE}. Rows changed. */
    public static int addStock(String sku, int quantity, Instant now) {
        return changeCounters(sku, "stock = stock + :quantity, available = available + :quantity",
                " and stock <= :ceiling", Parameters.with("quantity", quantity)
                        .and("ceiling", Integer.MAX_VALUE - quantity), now);
    }

    /**
     * Sets the stock to {@code stock} (available = stock - reserved - sold), only if the item is still at
     * {@code version} and its reserved + sold units fit: the conditional update that makes a stock set safe against
     * concurrent purchases (they bump the version, or hold units the condition counts). Rows changed: 0 otherwise.
     */
    public static int setStock(String sku, int stock, long version, Instant now) {
        return changeCounters(sku, "stock = :stock, available = :stock - reserved - sold",
                " and version = :version and reserved + sold <= :stock",
                Parameters.with("stock", stock).and("version", version), now);
    }

    /**
     * The one change of {@link #reserveUnitsForVersion} in SQL: {@link #changeCounters}'s version and update-time
     * bump included, then the version it gave the row, in one round trip.
     */
    private static final String RESERVE_UNITS = "UPDATE item SET available = available - ?, reserved = reserved + ?,"
            + " version = version + 1, updated_at = ? WHERE sku = ?; SELECT version FROM item WHERE sku = ?";

    /**
     * Moves units from available to reserved for orders decided elsewhere (Redis); the CHECK refuses them if MySQL
     * has not the units. Returns the version the change gave the item (what {@link #currentVersion} would read next
     * in this transaction), or 0 when there is no such item. The hottest change of write-through and the relay, once
     * per batch of orders: sent as SQL rather than through {@link #changeCounters}, whose JPQL Hibernate translates
     * again on every execution (that update and the version read were about half of Hibernate's samples in a
     * write-through hot sell), and both statements in one round trip. Like the bulk updates, it flushes the session
     * first and leaves an {@code Item} this session manages as it was.
     */
    public static long reserveUnitsForVersion(String sku, int quantity, Instant now) {
        Session session = getSession();
        session.flush();
        return session.doReturningWork(connection -> {
            try (PreparedStatement statement = connection.prepareStatement(RESERVE_UNITS)) {
                statement.setInt(1, quantity);
                statement.setInt(2, quantity);
                statement.setObject(3, Timestamps.utc(now));
                statement.setString(4, sku);
                statement.setString(5, sku);
                statement.execute();
                if (statement.getUpdateCount() == 0 || !statement.getMoreResults()) {
                    return 0L;
                }
                try (ResultSet version = statement.getResultSet()) {
                    return version.next() ? version.getLong(1) : 0L;
                }
            }
        });
    }

    /**
     * Moves units from available to reserved only if {@code fence} is newer than the last fencing token accepted
     * for the item and the units are there, and records the token (redis-lock). Rows changed: 0 when fenced out
     * or short of units.
     */
    public static int reserveFenced(String sku, int quantity, long fence, Instant now) {
        return changeCounters(sku, "available = available - :quantity, reserved = reserved + :quantity,"
                + " fence = :fence", " and fence < :fence and available >= :quantity",
                Parameters.with("quantity", quantity).and("fence", fence), now);
    }

    /**
     * Records {@code fence} as the last fencing token accepted for the item if it is newer than that one (redis-lock),
     * taking the item's row lock for the rest of the caller's transaction. No counter changes. Rows changed: 0 when
     * fenced out (or no such item).
     */
    public static int claimFence(String sku, long fence) {
        return update("fence = :fence where sku = :sku and fence < :fence",
                Parameters.with("fence", fence).and("sku", sku));
    }

    /** A paid order: its units move from reserved to sold. Rows changed. */
    public static int sellReserved(String sku, int quantity, Instant now) {
        return changeCounters(sku, "reserved = reserved - :quantity, sold = sold + :quantity", "",
                Parameters.with("quantity", quantity), now);
    }

    /** A cancelled or expired order: its units go back from reserved to available. Rows changed. */
    public static int returnReserved(String sku, int quantity, Instant now) {
        return changeCounters(sku, "available = available + :quantity, reserved = reserved - :quantity", "",
                Parameters.with("quantity", quantity), now);
    }

    /**
     * Locks the rows of these items for the rest of the caller's transaction, in sku order (the order every
     * multi-item purchase takes them in, so two never wait for each other in a circle). Unknown skus lock nothing.
     */
    public static void lockInOrder(java.util.Collection<String> skus) {
        getEntityManager().createNativeQuery("SELECT sku FROM item WHERE sku IN (:skus) ORDER BY sku FOR UPDATE")
                .setParameter("skus", skus).getResultList();
    }

    /**
     * The item's version as the current transaction sees it: right after a counter change in the same transaction,
     * the version that change gave it (the row stays locked until commit).
     */
    public static long currentVersion(String sku) {
        return getEntityManager().createQuery("select i.version from Item i where i.sku = :sku", Long.class)
                .setParameter("sku", sku).getSingleResult();
    }

    /** The one bulk update of an item's counters: every change bumps the version and the update time. */
    private static int changeCounters(String sku, String assignments, String condition, Parameters parameters,
            Instant now) {
        return update(assignments + ", version = version + 1, updatedAt = :now where sku = :sku" + condition,
                parameters.and("now", now).and("sku", sku));
    }
}
