package io.dupguard.idempotency;

import io.dupguard.internal.Maps;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One run of {@link Idempotency#executeBatch}'s work: collects what the work reports, then records
 * it with one completion and one release for the whole batch.
 */
final class BatchRun<T> implements BatchWork.Progress<T> {
    private final BatchClaim<T> batch;
    private final Map<IdempotencyKey, BatchResult<T>> reported;

    private BatchRun(BatchClaim<T> batch, int claimed) {
        this.batch = batch;
        this.reported = Maps.linkedHashMap(claimed);
    }

    static <T, E extends Exception> void run(BatchClaim<T> batch, List<BatchEntry> claimed, BatchWork<T, E> work)
            throws E {
        BatchRun<T> run = new BatchRun<>(batch, claimed.size());
        long start = System.nanoTime();
        try {
            work.run(List.copyOf(claimed), run);
        } catch (Throwable failure) {
            try {
                run.finish(claimed, false, start);
            } catch (RuntimeException storeFailure) {
                failure.addSuppressed(storeFailure);
            }
            throw Idempotency.<RuntimeException>sneaky(failure);
        }
        run.finish(claimed, true, start);
    }

    @Override
    public void done(IdempotencyKey key, T value) {
        BatchEntry e = unreported(key);
        reported.put(key, new BatchResult.First<>(e, value));
    }

    @Override
    public void failed(IdempotencyKey key, Throwable failure) {
        BatchEntry e = unreported(key);
        java.util.Objects.requireNonNull(failure, "failure");
        reported.put(
                key,
                new BatchResult.Failed<>(
                        e, failure, batch.config().failurePolicy().isFinal(failure)));
    }

    private BatchEntry unreported(IdempotencyKey key) {
        BatchEntry e = batch.heldEntry(key);
        if (reported.containsKey(key)) {
            throw new IllegalArgumentException("key " + key + " was already reported");
        }
        return e;
    }

    /**
     * Records what was reported; releases the rest. With {@code returned} (the work returned
     * normally) an entry it did not report fails with an exception of its own, created only then
     * (a stack trace is not free, and a listener's batch of one pays it per message); when the work
     * threw, such entries are simply released.
     */
    private void finish(List<BatchEntry> claimed, boolean returned, long start) {
        IdempotencyConfig config = batch.config();
        List<BatchCompletion> completions = new ArrayList<>();
        List<IdempotencyKey> release = new ArrayList<>();
        Map<IdempotencyKey, BatchResult<T>> settled = Maps.linkedHashMap(claimed.size());
        for (BatchEntry e : claimed) {
            BatchResult<T> r = reported.get(e.key());
            if (r instanceof BatchResult.First<T> first) {
                try {
                    completions.add(new BatchCompletion(
                            e.key(),
                            e.fingerprint(),
                            RecordStatus.COMPLETED,
                            config.codec().encode(first.value())));
                } catch (RuntimeException unencodable) {
                    // Nothing can be stored, so nothing may claim the key: let a retry run again.
                    r = new BatchResult.Failed<>(e, unencodable, false);
                    release.add(e.key());
                }
            } else if (r instanceof BatchResult.Failed<T> failed && failed.stored()) {
                completions.add(new BatchCompletion(
                        e.key(), e.fingerprint(), RecordStatus.FAILED, Idempotency.encodeFailure(failed.failure())));
            } else {
                release.add(e.key());
                if (r == null && returned) {
                    r = new BatchResult.Failed<>(
                            e, new IllegalStateException("the batch work did not report this entry"), false);
                }
            }
            if (r != null) {
                settled.put(e.key(), r);
            }
        }
        try {
            batch.release(release);
        } finally {
            batch.record(completions);
            batch.settle(settled);
            notifyListener(config.listener(), settled, System.nanoTime() - start);
        }
    }

    private static <T> void notifyListener(
            IdempotencyListener listener, Map<IdempotencyKey, BatchResult<T>> settled, long nanos) {
        for (BatchResult<T> r : settled.values()) {
            if (r instanceof BatchResult.First<T>) {
                listener.onFirst(r.key(), nanos);
            } else if (r instanceof BatchResult.Failed<T> f) {
                listener.onFailure(r.key(), f.failure(), f.stored());
            }
        }
    }
}
