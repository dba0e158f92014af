package io.flashstock.order;

import java.time.Instant;
import java.util.List;

import io.flashstock.db.CommitLookup;
import io.quarkus.hibernate.orm.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/**
 * A multi-item purchase: one row here and one {@link PurchaseOrder} per line (its {@code purchaseId}), all inserted
 * in one transaction ({@link #INSERT} then the lines), so MySQL never holds a purchase with only some of its lines.
 * Its lines share {@link #expiresAt} and move together (confirm, cancel, expiry, extension).
 */
@Entity
@Table(name = "purchase")
public class Purchase extends PanacheEntityBase {

    /**
     * Whether the purchase is in MySQL, once no transaction is writing it any more: the lookup after a commit whose
     * answer was lost ({@link CommitLookup#committed}).
     */
    public static boolean committed(String id) {
        return !CommitLookup.committed(getEntityManager(), "purchase", "id", List.of(id)).isEmpty();
    }

    /** The insert the strategies run before a purchase's lines, in the same transaction. */
    public static final String INSERT = "INSERT INTO purchase (id, user_id, line_count, idempotency_key, request_fingerprint,"
            + " created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)";

    /** Time-ordered UUID, tagged with its first line's item ({@link OrderIds}). */
    @Id
    @Column(name = "id", length = 36, nullable = false, updatable = false)
    public String id;

    @Column(name = "user_id", length = 64, nullable = false, updatable = false)
    public String userId;

    /** How many lines (orders) it has. */
    @Column(name = "line_count", nullable = false, updatable = false)
    public int lines;

    /** The client's Idempotency-Key, scoped to the user. */
    @Column(name = "idempotency_key", length = 64, updatable = false)
    public String idempotencyKey;

    @Column(name = "request_fingerprint", length = 64, updatable = false)
    public String requestFingerprint;

    @Column(name = "created_at", nullable = false, updatable = false)
    public Instant createdAt;

    @Column(name = "expires_at", nullable = false, updatable = false)
    public Instant expiresAt;

    public static Purchase findByIdempotencyKey(String userId, String key) {
        return find("userId = ?1 and idempotencyKey = ?2", userId, key).firstResult();
    }
}
