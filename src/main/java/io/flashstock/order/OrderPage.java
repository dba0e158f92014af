package io.flashstock.order;

import java.util.List;

/**
 * One page of {@code GET /orders}: orders in id order (their creation order), {@code next}, the cursor of the
 * following page (the last order id of this one, to send as {@code after}) or null when this page is the last, and
 * {@code pendingInRedis}: how many acknowledged orders, of any item and user, were not yet in MySQL when the page was
 * read (redis-lua write-behind, listing without {@code sku}), so the listing may miss them; 0 otherwise.
 */
public record OrderPage(List<OrderView> orders, String next, long pendingInRedis) {
}
