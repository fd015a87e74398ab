package io.dupguard.lab.scale;

import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.Idempotency;
import io.dupguard.idempotency.IdempotencyConfig;
import io.dupguard.idempotency.IdempotencyKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import org.HdrHistogram.Histogram;

/**
 * {@code dupguard scale}: what a large retained state costs the idempotency store (issue 17).
 *
 * <ol>
 *   <li>Load on the empty store, after an unmeasured warm-up of half its length: {@code clients} threads call {@code execute} on fresh keys for the
 *       duration; throughput and latency.
 *   <li>Fill: {@code keys} records copied from one the store completed itself; the storage per key;
 *       then the server settles ({@link ScaleTarget#settle()}: its dirty pages written).
 *   <li>The same load with them retained.
 *   <li>Purge them, expired, while the same load runs until the purge is done: purge rate, and the
 *       load's latency during it.
 * </ol>
 *
 * <p>Run it on an idle machine: it measures speed.
 */
public final class RetainedState {
    static final String SCOPE = "scale";
    static final String TEMPLATE = "template";

    /** Records kept an hour (the study never outlasts them), lease 30 s, a duplicate in flight rejected. */
    private static final IdempotencyConfig CONFIG =
            IdempotencyConfig.custom().retention(Duration.ofHours(1)).build();

    private static final long HIGHEST_MICROS = 60_000_000L;

    /** One load phase: calls to {@code execute} on fresh keys. */
    public record Load(
            long calls,
            long errors,
            double seconds,
            double opsPerSec,
            long p50Micros,
            long p99Micros,
            long maxMicros) {}

    /**
     * The purge of the filled records, with the load that ran beside it.
     *
     * @param left filled records the purge left behind (Redis: to lazy expiry); 0 for SQL
     */
    public record Purge(long purged, long left, double seconds, double purgedPerSec, String how, Load during) {}

    /** One store's results. */
    public record StoreResult(
            String store,
            long keys,
            Load empty,
            double fillSeconds,
            long bytesEmpty,
            long bytesFilled,
            double bytesPerKey,
            String storageMeasure,
            String settled,
            Load retained,
            Purge purge) {}

    private RetainedState() {}

    /** Runs the four phases on {@code target}. */
    public static StoreResult study(ScaleTarget target, long keys, int clients, Duration duration, Consumer<String> log)
            throws Exception {
        Idempotency idempotency = Idempotency.of(target.store(), CONFIG);
        idempotency.execute(IdempotencyKey.of(SCOPE, TEMPLATE), fingerprint(0), Long.class, () -> 42L);
        log.accept(target.label() + ": warming up (unmeasured), "
                + duration.dividedBy(2).toMillis() + " ms");
        load(idempotency, clients, duration.dividedBy(2), null, 0); // JIT, pool and connections, not the store's size
        log.accept(target.label() + ": load on the empty store, " + duration.toSeconds() + " s");
        Load empty = load(idempotency, clients, duration, null, 1);
        long bytesEmpty = target.storageBytes();
        log.accept(target.label() + ": filling " + keys + " records");
        long fillStart = System.nanoTime();
        target.fill(keys, TEMPLATE);
        double fillSeconds = (System.nanoTime() - fillStart) / 1e9;
        long bytesFilled = target.storageBytes();
        log.accept(target.label() + ": letting the server settle after the fill");
        String settled = target.settle();
        log.accept(target.label() + ": settled: " + settled);
        log.accept(target.label() + ": load with " + keys + " records retained");
        Load retained = load(idempotency, clients, duration, null, 2);
        log.accept(target.label() + ": purging them under the same load");
        target.expireFilled(keys);
        AtomicBoolean purging = new AtomicBoolean(true);
        AtomicReference<Exception> failed = new AtomicReference<>();
        long[] purge = new long[2];
        Thread purger = new Thread(
                () -> {
                    long start = System.nanoTime();
                    long giveUp = start + Math.max(60, keys / 1000) * 1_000_000_000L; // slower than 1,000/s: broken
                    try {
                        long left;
                        while ((left = target.purgeStep()) < 0) {
                            if (System.nanoTime() - giveUp > 0) {
                                throw new IllegalStateException(
                                        "the purge did not finish in " + (giveUp - start) / 1_000_000_000L + " s");
                            }
                        }
                    } catch (Exception e) {
                        failed.set(e);
                    } finally {
                        purge[0] = System.nanoTime() - start;
                        purging.set(false);
                    }
                },
                "scale-purge");
        purger.start();
        Load during = load(idempotency, clients, null, purging, 3);
        purger.join();
        if (failed.get() != null) {
            throw new IllegalStateException("the purge failed: " + failed.get().getMessage(), failed.get());
        }
        double purgeSeconds = purge[0] / 1e9;
        return new StoreResult(
                target.label(),
                keys,
                empty,
                fillSeconds,
                bytesEmpty,
                bytesFilled,
                (double) (bytesFilled - bytesEmpty) / keys,
                target.storageMeasure(),
                settled,
                retained,
                new Purge(
                        keys - purge[1],
                        purge[1],
                        purgeSeconds,
                        (keys - purge[1]) / Math.max(purgeSeconds, 1e-9),
                        target.purgeMeasure(),
                        during));
    }

    private static Fingerprint fingerprint(long n) {
        return Fingerprint.ofFields(Map.of("amount", n));
    }

    /**
     * {@code clients} threads calling {@code execute} on fresh keys, for {@code duration} or (if it
     * is null) while {@code running} holds.
     */
    private static Load load(Idempotency idempotency, int clients, Duration duration, AtomicBoolean running, int phase)
            throws InterruptedException {
        long start = System.nanoTime();
        long end = duration == null ? Long.MAX_VALUE : start + duration.toNanos();
        LongAdder errors = new LongAdder();
        Histogram[] latencies = new Histogram[clients];
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            Histogram h = new Histogram(HIGHEST_MICROS, 3);
            latencies[i] = h;
            SplittableRandom random = new SplittableRandom(phase * 1_000_003L + i);
            Thread t = new Thread(
                    () -> {
                        while ((duration == null ? running.get() : System.nanoTime() - end < 0)) {
                            String key = Long.toHexString(random.nextLong()) + Long.toHexString(random.nextLong());
                            long amount = random.nextLong(1_000_000);
                            long t0 = System.nanoTime();
                            try {
                                idempotency.execute(
                                        IdempotencyKey.of(SCOPE, key), fingerprint(amount), Long.class, () -> amount);
                                h.recordValue(Math.min(HIGHEST_MICROS, (System.nanoTime() - t0) / 1000));
                            } catch (RuntimeException e) {
                                errors.increment();
                            }
                        }
                    },
                    "scale-client-" + i);
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        Histogram all = new Histogram(HIGHEST_MICROS, 3);
        for (Histogram h : latencies) {
            all.add(h);
        }
        long calls = all.getTotalCount();
        return new Load(
                calls,
                errors.sum(),
                seconds,
                calls / Math.max(seconds, 1e-9),
                calls == 0 ? 0 : all.getValueAtPercentile(50),
                calls == 0 ? 0 : all.getValueAtPercentile(99),
                calls == 0 ? 0 : all.getMaxValue());
    }
}
