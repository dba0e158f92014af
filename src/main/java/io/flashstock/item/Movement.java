package io.flashstock.item;

import java.time.Instant;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import org.hibernate.annotations.Immutable;

/**
 * A row of the movement ledger as read back ({@code GET /items/{sku}/movements}). Read-only: rows are written by
 * {@link Ledger} alone, and never changed.
 */
@Entity
@Immutable
@Table(name = "movement")
public class Movement extends PanacheEntityBase {

    @Id
    @Column(name = "id")
    public long id;

    @Column(name = "sku")
    public String sku;

    @Column(name = "kind")
    public String kind;

    @Column(name = "stock_delta")
    public int stockDelta;

    @Column(name = "available_delta")
    public int availableDelta;

    @Column(name = "reserved_delta")
    public int reservedDelta;

    @Column(name = "sold_delta")
    public int soldDelta;

    @Column(name = "order_id")
    public String orderId;

    @Column(name = "purchase_id")
    public String purchaseId;

    @Column(name = "actor")
    public String actor;

    @Column(name = "created_at")
    public Instant createdAt;
}
