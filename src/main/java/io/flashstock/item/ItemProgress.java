package io.flashstock.item;

import java.util.Map;

/**
 * One item's sale progress as this pod's meters hold it now ({@link SaleProgress#snapshot()}): the counters read at the
 * last refresh (NaN before the first one) and the cumulative purchases and refusals by problem code answered here
 * since the item was admitted.
 */
public record ItemProgress(String sku, double available, double reserved, double sold, long purchases,
        Map<String, Long> refusals) {
}
