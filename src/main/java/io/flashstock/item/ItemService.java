package io.flashstock.item;

import java.time.Instant;
import java.util.List;

import io.flashstock.db.DbErrors;
import io.flashstock.error.FlashstockException;
import io.flashstock.support.Timestamps;
import io.quarkus.narayana.jta.QuarkusTransaction;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.PersistenceException;
import jakarta.transaction.Transactional;

/** Creates, reads and restocks items in MySQL. Restock is a relative update: it never loses a concurrent sale. */
@ApplicationScoped
public class ItemService {

    private final StockMirror mirror;

    ItemService(StockMirror mirror) {
        this.mirror = mirror;
    }

    /** Creates the item; once committed, the mirror (redis-lua) warms its hot stock. */
    public ItemView create(CreateItemRequest request) {
        ItemView created = QuarkusTransaction.requiringNew().call(() -> insert(request));
        mirror.itemCreated(created.sku());
        return created;
    }

    private ItemView insert(CreateItemRequest request) {
        if (Item.findById(request.sku()) != null) {
            throw FlashstockException.itemExists(request.sku());
        }
        Instant now = Timestamps.now();
        Item item = new Item();
        item.sku = request.sku();
        item.name = request.name();
        item.stock = request.stock();
        item.available = request.stock();
        item.perUserLimit = request.perUserLimit() == null ? 0 : request.perUserLimit();
        item.createdAt = now;
        item.updatedAt = now;
        item.persist();
        try {
            Item.flush();
        } catch (PersistenceException e) {
            if (DbErrors.isDuplicateKey(e)) {
                throw FlashstockException.itemExists(request.sku());
            }
            throw e;
        }
        return ItemView.of(item);
    }

    @Transactional(Transactional.TxType.SUPPORTS)
    public ItemView get(String sku) {
        return ItemView.of(find(sku));
    }

    /** Adds units; once committed, the mirror (redis-lua) adds them to the hot stock too. */
    public ItemView restock(String sku, int quantity) {
        Restocked restocked = QuarkusTransaction.requiringNew().call(() -> addUnits(sku, quantity));
        if (restocked.event() != null) {
            mirror.apply(List.of(restocked.event()));
        }
        return restocked.item();
    }

    private record Restocked(ItemView item, StockEvent event) {
    }

    private Restocked addUnits(String sku, int quantity) {
        Instant now = Timestamps.now();
        int updated = Item.addStock(sku, quantity, now);
        Item item = find(sku);
        if (updated == 0) {
            throw FlashstockException.invalid(
                    "quantity: restocking would take the stock of '" + sku + "' past " + Integer.MAX_VALUE);
        }
        return new Restocked(ItemView.of(item), mirror.record(StockEvent.Kind.RESTOCKED, sku, null, quantity, now));
    }

    private static Item find(String sku) {
        Item item = Item.findById(sku);
        if (item == null) {
            throw FlashstockException.itemNotFound(sku);
        }
        return item;
    }
}
