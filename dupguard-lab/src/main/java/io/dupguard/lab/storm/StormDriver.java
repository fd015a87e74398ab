package io.dupguard.lab.storm;

import io.dupguard.ReadOnlyStoreException;
import io.dupguard.StoreUnavailableException;
import io.dupguard.idempotency.PayloadMismatchException;
import io.dupguard.idempotency.RequestInFlightException;
import io.dupguard.lock.LockUnavailableException;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * Runs one {@link Trial} the way duplicates arise in production.
 *
 * <ol>
 *   <li>{@code clients} threads each send one logical request after another until the duration
 *       ends; some are sent twice at once (double click, broker redelivery).
 *   <li>Every attempt runs on the simulated server — a thread pool — with its own heavy-tailed
 *       latency, and always runs to completion.
 *   <li>A client that hears nothing within the timeout sends the same request again while the
 *       first attempt is still running; the first success acknowledges the request, and every
 *       other answer is compared with it.
 *   <li>After the acknowledgement a few requests are delivered once more (a lost ack) and, where
 *       the workload has them, followed by a tampered duplicate.
 * </ol>
 *
 * <p>Latencies derive from the seed, the client, the request number and the attempt number, and
 * requests from a per-client seeded stream, so every strategy faces the same storm.
 */
public final class StormDriver {
    private static final long HIGHEST_MICROS = 3_600_000_000L;
    /** How long a client waits before it loads a page again that failed on the store. */
    private static final long RELOAD_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private static final int MAX_ERROR_LENGTH = 120;

    private final Trial trial;
    private final StormSettings settings;
    private final ThreadPoolExecutor server;
    private final ConcurrentLinkedQueue<Exchange> ledger = new ConcurrentLinkedQueue<>();
    private final LongAdder requests = new LongAdder();
    private final LongAdder acknowledged = new LongAdder();
    private final LongAdder attempts = new LongAdder();
    private final LongAdder duplicatesSent = new LongAdder();
    private final LongAdder refused = new LongAdder();
    private final LongAdder errors = new LongAdder();
    private final LongAdder mismatches = new LongAdder();
    private final LongAdder tamperedSent = new LongAdder();
    private final LongAdder tamperedAccepted = new LongAdder();
    private final AtomicReference<String> firstError = new AtomicReference<>();
    private final AtomicReference<Throwable> clientFailure = new AtomicReference<>();
    private volatile Timeline timeline = new Timeline(System.nanoTime());

    private final SecondInstance second; // null: one instance serves every client

    public StormDriver(Trial trial, StormSettings settings) {
        this(trial, settings, null);
    }

    /** With {@code second} (if not null) serving part of the clients until it crashes. */
    StormDriver(Trial trial, StormSettings settings, SecondInstance second) {
        this.trial = trial;
        this.second = second;
        this.settings = settings;
        AtomicInteger n = new AtomicInteger();
        this.server = new ThreadPoolExecutor(
                settings.serverThreads(),
                settings.serverThreads(),
                1,
                TimeUnit.MINUTES,
                new LinkedBlockingQueue<>(),
                r -> daemon(r, "storm-server-" + n.incrementAndGet()));
    }

    /** Logical requests started so far, for progress display. */
    public long requestsSoFar() {
        return requests.sum();
    }

    /** Runs the storm and waits for every attempt to finish. */
    public Observed run() throws InterruptedException {
        long start = System.nanoTime();
        timeline = new Timeline(start);
        long end = start + settings.duration().toNanos();
        Histogram[] latencies = new Histogram[settings.clients()];
        List<Thread> clients = new ArrayList<>();
        for (int i = 0; i < settings.clients(); i++) {
            int client = i;
            latencies[i] = new Histogram(HIGHEST_MICROS, 3);
            clients.add(daemon(() -> runClient(client, end, latencies[client]), "storm-client-" + i));
        }
        clients.forEach(Thread::start);
        for (Thread t : clients) {
            t.join();
        }
        long elapsed = System.nanoTime() - start;
        server.shutdown();
        if (!server.awaitTermination(settings.giveUp().toSeconds() + 60, TimeUnit.SECONDS)) {
            server.shutdownNow();
            throw new IllegalStateException("attempts still running long after the storm ended");
        }
        if (clientFailure.get() != null) {
            throw new IllegalStateException("a storm client failed", clientFailure.get());
        }
        Histogram all = new Histogram(HIGHEST_MICROS, 3);
        for (Histogram h : latencies) {
            all.add(h);
        }
        List<Sent> sent = new ArrayList<>();
        ledger.forEach(e -> {
            sent.add(e.toSent());
            if (second != null && e.cutByCrash() && e.acknowledged()) {
                second.acknowledgedAfterCut();
            }
        });
        return new Observed(
                requests.sum(),
                acknowledged.sum(),
                attempts.sum(),
                duplicatesSent.sum(),
                refused.sum(),
                errors.sum(),
                firstError.get() == null ? "" : firstError.get(),
                mismatches.sum(),
                tamperedSent.sum(),
                tamperedAccepted.sum(),
                all,
                elapsed,
                sent,
                timeline.points());
    }

    private void runClient(int client, long endNanos, Histogram latency) {
        try {
            SplittableRandom random = new SplittableRandom(mix(settings.seed(), client, -1, -1));
            for (long seq = 0; System.nanoTime() - endNanos < 0; seq++) {
                Request request = newRequest(client, seq, random, endNanos);
                if (request == null) {
                    break; // the storm ended while the store was down
                }
                boolean twice = random.nextDouble() < settings.doubleSendRate();
                boolean redeliver = random.nextDouble() < settings.redeliveryRate();
                Request tampered = random.nextDouble() < settings.tamperRate() ? trial.tamper(request, random) : null;
                Exchange ex = new Exchange(request, client, seq);
                ledger.add(ex);
                requests.increment();
                long start = System.nanoTime();
                if (exchange(ex, twice, start)) {
                    acknowledged.increment();
                    latency.recordValue(Math.min(HIGHEST_MICROS, (ex.ackNanos() - start) / 1000));
                    if (redeliver) {
                        duplicatesSent.increment();
                        send(ex);
                    }
                    if (tampered != null) {
                        sendTampered(new Exchange(tampered, client, seq));
                    }
                }
            }
        } catch (Throwable t) {
            clientFailure.compareAndSet(null, t);
        }
    }

    /**
     * The next request. Preparing it may itself reach the store (the order to pay, a form rendered
     * with its token or prepared submission), so under a store fault it can fail: the client then
     * sees an error page and loads the page again (also when a failover left it on a server that is
     * read-only by now). Such a failure counts as an error surfaced to the
     * client, never as a failure of the lab; null if the storm ended meanwhile.
     */
    private Request newRequest(int client, long seq, SplittableRandom random, long endNanos) {
        while (true) {
            try {
                return trial.newRequest(client, seq, random);
            } catch (StoreUnavailableException | ReadOnlyStoreException | SQLException e) {
                errors.increment();
                timeline.error(System.nanoTime());
                firstError.compareAndSet(null, "preparing a request: " + describe(e));
                if (System.nanoTime() - endNanos >= 0) {
                    return null;
                }
                LockSupport.parkNanos(RELOAD_PAUSE_NANOS);
            }
        }
    }

    /** Sends until acknowledged or out of attempts; true if acknowledged. */
    private boolean exchange(Exchange ex, boolean twice, long start) throws InterruptedException {
        send(ex);
        if (twice) {
            duplicatesSent.increment();
            send(ex);
        }
        long lastSend = start;
        long timeout = settings.timeout().toNanos();
        while (true) {
            boolean mayRetry = ex.sent() < settings.maxAttempts();
            ex.awaitUntil(
                    mayRetry ? lastSend + timeout : start + settings.giveUp().toNanos());
            if (ex.acknowledged() || !mayRetry) {
                return ex.acknowledged();
            }
            duplicatesSent.increment();
            send(ex);
            lastSend = System.nanoTime();
        }
    }

    private void sendTampered(Exchange ex) throws InterruptedException {
        tamperedSent.increment();
        send(ex);
        ex.awaitUntil(System.nanoTime() + settings.giveUp().toNanos());
        if (ex.acknowledged()) {
            tamperedAccepted.increment();
        }
    }

    private void send(Exchange ex) {
        int attempt = ex.nextAttempt();
        attempts.increment();
        long latency =
                settings.latency().sampleNanos(new SplittableRandom(mix(settings.seed(), ex.client, ex.seq, attempt)));
        server.execute(() -> serve(ex, latency));
    }

    private void serve(Exchange ex, long latencyNanos) {
        SecondInstance on = second != null && second.serves(ex.client) ? second : null;
        Object answer;
        try {
            if (on == null) {
                answer = trial.serve(ex.request, () -> pause(latencyNanos));
            } else {
                on.enter();
                try {
                    answer = on.trial().serve(ex.request, () -> {
                        pause(latencyNanos);
                        on.stopIfCrashed();
                    });
                    on.stopIfCrashed(); // a dead instance sends no answer
                } finally {
                    on.leave();
                }
            }
        } catch (Throwable t) {
            if (on != null && on.crashed()) {
                on.cut();
                ex.cutByCrash(true);
            }
            if (isRefusal(t)) {
                refused.increment();
                ex.refused();
            } else {
                errors.increment();
                timeline.error(System.nanoTime());
                firstError.compareAndSet(null, describe(t));
                ex.failed();
            }
            return;
        }
        long now = System.nanoTime();
        timeline.completed(now);
        if (ex.succeeded(answer, now, trial::answersAgree)) {
            mismatches.increment();
        }
    }

    private static boolean isRefusal(Throwable t) {
        return t instanceof Refused
                || t instanceof PayloadMismatchException
                || t instanceof RequestInFlightException
                || t instanceof LockUnavailableException;
    }

    private static String describe(Throwable t) {
        String message = String.valueOf(t.getMessage()).lines().findFirst().orElse("");
        if (message.length() > MAX_ERROR_LENGTH) {
            message = message.substring(0, MAX_ERROR_LENGTH) + "...";
        }
        return t.getClass().getSimpleName() + ": " + message;
    }

    /** Spends {@code nanos}, unless interrupted (a crashed instance's thread stops). */
    private static void pause(long nanos) {
        long end = System.nanoTime() + nanos;
        for (long left = nanos; left > 0 && !Thread.currentThread().isInterrupted(); left = end - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
    }

    static long mix(long seed, long a, long b, long c) {
        long h = seed * 0x9E3779B97F4A7C15L + a;
        h = (h ^ (h >>> 31)) * 0xBF58476D1CE4E5B9L + b;
        h = (h ^ (h >>> 29)) * 0x94D049BB133111EBL + c;
        return h ^ (h >>> 32);
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }
}
