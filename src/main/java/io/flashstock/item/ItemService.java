package io.flashstock.item;

import java.time.Instant;

import io.flashstock.Timestamps;

import io.flashstock.deduction.DbErrors;
import io.flashstock.error.FlashstockException;
import io.flashstock.error.ProblemCode;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.PersistenceException;
import jakarta.transaction.Transactional;

/** Creates, reads and restocks items in MySQL. Restock is a relative update: it never loses a concurrent sale. */
@ApplicationScoped
public class ItemService {

    @Transactional
    public ItemView create(CreateItemRequest request) {
        if (Item.findById(request.sku()) != null) {
            throw exists(request.sku());
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
                throw exists(request.sku());
            }
            throw e;
        }
        return ItemView.of(item);
    }

    @Transactional(Transactional.TxType.SUPPORTS)
    public ItemView get(String sku) {
        return ItemView.of(find(sku));
    }

    @Transactional
    public ItemView restock(String sku, int quantity) {
        int updated = Item.update("stock = stock + ?1, available = available + ?1, version = version + 1,"
                + " updatedAt = ?2 where sku = ?3 and stock <= ?4",
                quantity, Timestamps.now(), sku, Integer.MAX_VALUE - quantity);
        Item item = find(sku);
        if (updated == 0) {
            throw FlashstockException.invalid(
                    "quantity: restocking would take the stock of '" + sku + "' past " + Integer.MAX_VALUE);
        }
        return ItemView.of(item);
    }

    private static Item find(String sku) {
        Item item = Item.findById(sku);
        if (item == null) {
            throw FlashstockException.itemNotFound(sku);
        }
        return item;
    }

    private static FlashstockException exists(String sku) {
        return new FlashstockException(ProblemCode.ITEM_EXISTS, "An item with sku '" + sku + "' exists already.");
    }
}
