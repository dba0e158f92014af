package io.flashstock.deduction.lua;

import java.util.ArrayList;
import java.util.List;

import io.flashstock.config.FlashstockConfig;
import io.flashstock.deduction.AsyncCombiner;
import io.flashstock.deduction.Combiner.Result;
import io.flashstock.deduction.PurchaseCommand;
import io.flashstock.deduction.PurchaseOutcome;
import io.flashstock.deduction.Replays;
import io.flashstock.deduction.StoredOrders;
import io.flashstock.deduction.lua.PendingOrderWriter.Outcome;
import io.flashstock.error.FlashstockException;
import io.flashstock.error.ProblemCode;
import io.flashstock.error.UnavailableException;
import io.flashstock.support.Causes;
import io.flashstock.support.Workers;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import io.vertx.core.Vertx;
import jakarta.inject.Singleton;
import org.jboss.logging.Logger;

/**
 * redis-lua write-through: an order the hot stock acknowledged is in MySQL before its 201, or its purchase is taken
 * back in Redis. The orders of one item that wait together go into MySQL in one transaction and leave the item's
 * stream in one Redis call ({@link AsyncCombiner}); a waiting order holds no thread, and a stored one is answered
 * where its batch's answer arrives. What else can follow (a lookup after a failure, an undo, a replay) blocks, on a
 * worker.
 */
@Singleton
class WriteThrough {

    private static final Logger LOG = Logger.getLogger(WriteThrough.class);

    private final PendingOrderWriter writer;
    private final PendingStream stream;
    private final PodIdentity pod;
    private final IdempotencyKeys keys;
    private final Checkpoints checkpoints;
    private final AsyncCombiner<PendingOrder, Written> batches;

    WriteThrough(PendingOrderWriter writer, PendingStream stream, PodIdentity pod, IdempotencyKeys keys,
            Checkpoints checkpoints, FlashstockConfig config, MeterRegistry registry, Vertx vertx) {
        this.writer = writer;
        this.checkpoints = checkpoints;
        this.stream = stream;
        this.pod = pod;
        this.keys = keys;
        this.batches = new AsyncCombiner<>(this::persistBatch,
                task -> Infrastructure.getDefaultWorkerPool().execute(task), vertx, config.lua().relayBatchSize(),
                config.optimistic().maxTime(), config.decideWithin(),
                DistributionSummary.builder("flashstock.lua.write-through.batch.size")
                        .description("Orders persisted together in one write-through transaction")
                        .register(registry));
    }

    /** The order in MySQL before answering, or the purchase taken back. */
    Uni<PurchaseOutcome> store(PurchaseCommand command, PendingOrder order) {
        long submitted = System.nanoTime();
        return batches.submit(order.sku(), order).onItemOrFailure().transformToUni((written, failure) -> {
            if (failure == null && (written.outcome() == Outcome.INSERTED || written.outcome() == Outcome.PRESENT)) {
                return Uni.createFrom().item(new PurchaseOutcome(order.view(), false)); // settled with its batch
            }
            return Workers.call(() -> failure != null ? notStored(order, Causes.unchecked(failure), submitted)
                    : refused(command, order, written));
        });
    }

    /**
     * The order's batch failed, or it was never taken into one. The commit may have happened with its answer lost, or
     * another pod's relay stored the order: look first, and take the purchase back only if the order is known not to
     * be in MySQL.
     */
    private PurchaseOutcome notStored(PendingOrder order, RuntimeException e, long submitted) {
        if (e instanceof FlashstockException f && f.code() == ProblemCode.OUTCOME_UNKNOWN) {
            throw f; // its batch is still running and may commit it: the entry stays for a relay
        }
        // If MySQL cannot tell, the answer is outcome-unknown and the entry stays pending: the relay persists it (or
        // finds it stored), and a retry with the same Idempotency-Key gets the order.
        if (StoredOrders.among(List.of(order.orderId()), e, submitted).contains(order.orderId())) {
            return new PurchaseOutcome(order.view(), false);
        }
        if (takenBack(order, true) != PendingStream.Undo.UNDONE) {
            // A relay took the entry over (this request was slower than claim-after) and persists it.
            throw FlashstockException.outcomeUnknown(e);
        }
        throw e instanceof FlashstockException f ? f
                : new UnavailableException("The order could not be stored; nothing was changed, try again.", e);
    }

    /** MySQL refused the order of a write-through batch: the purchase is taken back. */
    private PurchaseOutcome refused(PurchaseCommand command, PendingOrder order, Written written) {
        switch (written.outcome()) {
            case DUPLICATE_KEY:
                takenBack(order, true);
                keys.rememberOwner(order);
                return QuarkusTransaction.requiringNew().call(() -> Replays.replayOrNull(command));
            default: // SOLD_OUT: MySQL has not the units; Redis was too high
                checkpoints.passed(Checkpoints.Step.WRITE_THROUGH_REFUSED);
                if (takenBack(order, false) != PendingStream.Undo.UNDONE) {
                    // A relay took the entry over meanwhile (a drain before a rebuild, or after claim-after) and may
                    // have stored it, once MySQL had the units: a 409 would deny an order that exists.
                    throw FlashstockException.outcomeUnknown(new IllegalStateException(
                            "order " + order.orderId() + " refused by MySQL, then taken over by a relay"));
                }
                throw FlashstockException.soldOut(command.sku(), command.quantity());
        }
    }

    /**
     * Undoes the purchase in Redis, unless a relay has taken its entry over. Redis unreachable: outcome unknown, and
     * the entry stays for a relay, which persists it after {@code claim-after}.
     */
    private PendingStream.Undo takenBack(PendingOrder order, boolean returnUnits) {
        try {
            return stream.undo(order, returnUnits, pod.id());
        } catch (RuntimeException e) {
            throw FlashstockException.outcomeUnknown(e);
        }
    }

    /** What became of one order of a write-through batch, and the item's MySQL version after the batch's commit. */
    private record Written(Outcome outcome, long version) {
    }

    /**
     * One MySQL transaction for the batch, then one Redis call that settles the entries of every order now in MySQL:
     * a batch costs two round trips, whatever its size.
     */
    private List<Result<Written>> persistBatch(List<PendingOrder> batch) {
        String sku = batch.get(0).sku();
        PendingOrderWriter.Persisted persisted = writer.persist(sku, batch);
        List<Result<Written>> results = new ArrayList<>(batch.size());
        List<String> stored = new ArrayList<>(batch.size());
        List<PendingOrder> inserted = new ArrayList<>(batch.size());
        for (PendingOrder order : batch) {
            Outcome outcome = persisted.outcomes().get(order.orderId());
            results.add(outcome != null ? Result.of(new Written(outcome, persisted.version()))
                    : Result.refused(new UnavailableException(
                            "The order could not be stored; nothing was changed, try again.")));
            if (outcome == Outcome.INSERTED || outcome == Outcome.PRESENT) {
                stored.add(order.entryId());
            }
            if (outcome == Outcome.INSERTED) {
                inserted.add(order);
            }
        }
        try {
            stream.settle(sku, stored, inserted, persisted.version());
        } catch (RuntimeException e) {
            // Harmless: the orders are in MySQL; a relay claims the idle entries, finds them PRESENT, settles them.
            LOG.debugf("Could not remove %d persisted entries of %s now: %s", stored.size(), sku, e.toString());
        }
        return results;
    }
}
