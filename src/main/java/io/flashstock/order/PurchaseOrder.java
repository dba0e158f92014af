package io.flashstock.order;

import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.flashstock.db.CommitLookup;
import io.quarkus.hibernate.orm.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/**
 * One purchase. Status changes only through conditional updates ({@code ... WHERE status = 'RESERVED'}) in
 * {@link OrderService} and {@link ReservationExpiryJob}, which is what makes returned units come back once.
 */
@Entity
@Table(name = "purchase_order")
public class PurchaseOrder extends PanacheEntityBase {

    /** Time-ordered UUID (version 7), see {@link OrderIds}. */
    @Id
    @Column(name = "id", length = 36, nullable = false, updatable = false)
    public String id;

    @Column(name = "sku", length = 64, nullable = false, updatable = false)
    public String sku;

    @Column(name = "user_id", length = 64, nullable = false, updatable = false)
    public String userId;

    @Column(name = "quantity", nullable = false, updatable = false)
    public int quantity;

    @Enumerated(EnumType.STRING)
    @Column(name = "status", length = 16, nullable = false)
    public OrderStatus status;

    @Column(name = "idempotency_key", length = 64, updatable = false)
    public String idempotencyKey;

    /** SHA-256 of the request an Idempotency-Key was first used with; a replay must match it. */
    @Column(name = "request_fingerprint", length = 64, updatable = false)
    public String requestFingerprint;

    @Column(name = "created_at", nullable = false, updatable = false)
    public Instant createdAt;

    @Column(name = "expires_at", nullable = false, updatable = false)
    public Instant expiresAt;

    @Column(name = "updated_at", nullable = false)
    public Instant updatedAt;

    /** The multi-item purchase this order is a line of ({@link Purchase}), or {@code null}. */
    @Column(name = "purchase_id", length = 36, updatable = false)
    public String purchaseId;

    /** A new RESERVED order for a purchase decided at {@code now}, holding its units until {@code now + ttl}. */
    public static PurchaseOrder reserved(String id, String sku, String userId, int quantity, String idempotencyKey,
            String fingerprint, Instant now, java.time.Duration ttl) {
        PurchaseOrder order = new PurchaseOrder();
        order.id = id;
        order.sku = sku;
        order.userId = userId;
        order.quantity = quantity;
        order.status = OrderStatus.RESERVED;
        order.idempotencyKey = idempotencyKey;
        order.requestFingerprint = fingerprint;
        order.createdAt = now;
        order.expiresAt = now.plus(ttl);
        order.updatedAt = now;
        return order;
    }

    /**
     * The ids among {@code ids} whose orders are in MySQL (in the caller's transaction). SQL rather than HQL here and in
     * {@link #ownersOfKeys}: the write-behind relay asks both for every batch, and Hibernate translates an HQL query
     * anew for each new length of its IN list (a fifth of the relay's CPU, profiled).
     */
    @SuppressWarnings("unchecked")
    public static List<String> storedAmong(Collection<String> ids) {
        return getEntityManager().createNativeQuery("SELECT id FROM purchase_order WHERE id IN (:ids)", String.class)
                .setParameter("ids", ids).getResultList();
    }

    /**
     * The ids among {@code ids} of orders in MySQL, once no transaction is writing them any more: the lookup after a
     * commit whose answer was lost ({@link CommitLookup#committed}).
     */
    public static List<String> committedAmong(Collection<String> ids) {
        return CommitLookup.committed(getEntityManager(), "purchase_order", "id", ids);
    }

    /**
     * Waits until no transaction is writing the order {@code id} (or, {@code isPurchase}, the lines of the purchase
     * {@code id}), so that what is read next is what it committed ({@link CommitLookup#committed}).
     */
    public static void awaitWriters(String id, boolean isPurchase) {
        CommitLookup.committed(getEntityManager(), "purchase_order", isPurchase ? "purchase_id" : "id", List.of(id));
    }

    /**
     * The orders of the item holding one of {@code keys} (each a user's Idempotency-Key): order id by key. One range
     * of {@code uk_purchase_order_user_idempotency} (users × keys), narrowed to the pairs asked for here.
     */
    @SuppressWarnings("unchecked")
    public static Map<CallerKey, String> ownersOfKeys(String sku, Collection<CallerKey> keys) {
        Map<CallerKey, String> owners = new HashMap<>();
        if (keys.isEmpty()) {
            return owners;
        }
        Set<CallerKey> asked = new HashSet<>(keys);
        List<Object[]> rows = getEntityManager()
                .createNativeQuery("SELECT user_id, idempotency_key, id FROM purchase_order WHERE sku = :sku"
                        + " AND user_id IN (:users) AND idempotency_key IN (:keys)", Object[].class)
                .setParameter("sku", sku)
                .setParameter("users", asked.stream().map(CallerKey::userId).distinct().toList())
                .setParameter("keys", asked.stream().map(CallerKey::key).distinct().toList()).getResultList();
        for (Object[] row : rows) {
            CallerKey key = new CallerKey((String) row[0], (String) row[1]);
            if (asked.contains(key)) {
                owners.put(key, (String) row[2]);
            }
        }
        return owners;
    }

    /** The lines of a multi-item purchase, in sku order (in the caller's transaction). */
    public static List<PurchaseOrder> linesOf(String purchaseId) {
        return list("purchaseId = ?1 order by sku", purchaseId);
    }

    /** Whether the order is in MySQL (in the caller's transaction). */
    public static boolean exists(String orderId) {
        return count("id", orderId) > 0;
    }

    /** The user's order of the item made with Idempotency-Key {@code key}, or {@code null}. */
    public static PurchaseOrder findByIdempotencyKey(String sku, String userId, String key) {
        return find("sku = ?1 and userId = ?2 and idempotencyKey = ?3", sku, userId, key).firstResult();
    }

    /** Units the user holds of the item: RESERVED + CONFIRMED orders. */
    public static long unitsHeld(String sku, String userId) {
        Long units = getEntityManager()
                .createQuery("select coalesce(sum(o.quantity), 0) from PurchaseOrder o"
                        + " where o.sku = :sku and o.userId = :userId and o.status in (:held)", Long.class)
                .setParameter("sku", sku)
                .setParameter("userId", userId)
                .setParameter("held", OrderStatus.HOLDING)
                // Pending changes of the caller's transaction stay pending: it decides when to flush.
                .setFlushMode(jakarta.persistence.FlushModeType.COMMIT)
                .getSingleResult();
        return units == null ? 0 : units;
    }
}
