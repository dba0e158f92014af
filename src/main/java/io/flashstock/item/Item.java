package io.flashstock.item;

import java.time.Instant;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Version;

/**
 * One sellable item and its counters, the system of record. Always {@code stock == available + reserved + sold};
 * the table's CHECK constraints refuse a negative {@code available}. Every change of the counters bumps
 * {@link #version}, so a versioned update based on a stale read fails instead of losing an update.
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

    @Column(name = "created_at", nullable = false, updatable = false)
    public Instant createdAt;

    @Column(name = "updated_at", nullable = false)
    public Instant updatedAt;

    public boolean hasUserLimit() {
        return perUserLimit > 0;
    }

    /** Moves {@code quantity} units from available to reserved; the caller has checked availability. */
    public void reserve(int quantity, Instant now) {
        available -= quantity;
        reserved += quantity;
        updatedAt = now;
    }
}
