package io.flashstock.item;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

import io.flashstock.db.CommitLookup;
import io.quarkus.hibernate.orm.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/**
 * One restock, written in the transaction that adds its units: its id lets a restock whose commit answer was lost
 * be looked up before answering, and its Idempotency-Key (unique per item) makes a retry add nothing again.
 */
@Entity
@Table(name = "restock")
public class Restock extends PanacheEntityBase {

    @Id
    @Column(name = "id", length = 36, nullable = false, updatable = false)
    public String id;

    @Column(name = "sku", length = 64, nullable = false, updatable = false)
    public String sku;

    @Column(name = "quantity", nullable = false, updatable = false)
    public int quantity;

    @Column(name = "idempotency_key", length = 64, updatable = false)
    public String idempotencyKey;

    @Column(name = "created_at", nullable = false, updatable = false)
    public Instant createdAt;

    /** A new restock with a fresh id, not yet persisted. */
    static Restock of(String sku, int quantity, String idempotencyKey, Instant now) {
        Restock restock = new Restock();
        restock.id = UUID.randomUUID().toString();
        restock.sku = sku;
        restock.quantity = quantity;
        restock.idempotencyKey = idempotencyKey;
        restock.createdAt = now;
        return restock;
    }

    /** The item's restock made with {@code idempotencyKey}, or null. */
    static Restock byKey(String sku, String idempotencyKey) {
        return find("sku = ?1 and idempotencyKey = ?2", sku, idempotencyKey).firstResult();
    }

    /**
     * Whether the restock is in MySQL, once no transaction is writing it any more: the lookup after a commit whose
     * answer was lost ({@link CommitLookup#committed}).
     */
    static boolean committed(String id) {
        return !CommitLookup.committed(getEntityManager(), "restock", "id", List.of(id)).isEmpty();
    }
}
