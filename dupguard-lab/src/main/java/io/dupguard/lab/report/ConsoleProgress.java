package io.dupguard.lab.report;

import io.dupguard.lab.storm.Progress;
import io.dupguard.lab.storm.Strategy;
import io.dupguard.lab.storm.StrategyResult;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Progress on stderr. On a terminal, a bar redrawn in place five times a second; elsewhere (a
 * pipe, a CI log) one plain line per finished strategy, so logs stay readable.
 */
public final class ConsoleProgress implements Progress, AutoCloseable {
    private static final int BAR = 24;

    private final PrintWriter err;
    private final boolean terminal;
    private final ScheduledExecutorService ticker;
    private ScheduledFuture<?> redraw;
    private String label = "";
    private long generation; // a redraw queued behind finished() must not draw a stale bar

    public ConsoleProgress(PrintWriter err, boolean terminal) {
        this.err = err;
        this.terminal = terminal;
        this.ticker = terminal
                ? Executors.newSingleThreadScheduledExecutor(r -> {
                    Thread t = new Thread(r, "storm-progress");
                    t.setDaemon(true);
                    return t;
                })
                : null;
    }

    @Override
    public void warmingUp(int runs, Duration each) {
        err.printf(
                Locale.ROOT,
                "warming up: %d unmeasured runs of %.1f s (JIT, connection pool)%n",
                runs,
                each.toMillis() / 1000.0);
        err.flush();
    }

    @Override
    public synchronized void skipped(String workload, Strategy strategy, String fault, String why) {
        err.println("skipping " + workload + "/" + strategy.name() + " @" + fault + ": " + why);
        err.flush();
    }

    @Override
    public void started(
            String workload, Strategy strategy, int index, int total, Duration duration, LongSupplier requests) {
        synchronized (this) {
            label = String.format(Locale.ROOT, "[%d/%d] %s/%s", index, total, workload, strategy.name());
            generation++;
        }
        if (terminal) {
            long start = System.nanoTime();
            long gen = generation;
            redraw = ticker.scheduleAtFixedRate(
                    () -> draw(gen, start, duration, requests.getAsLong()), 0, 200, TimeUnit.MILLISECONDS);
        }
    }

    private synchronized void draw(long gen, long startNanos, Duration duration, long requests) {
        if (gen != generation) {
            return;
        }
        double done = Math.min(1.0, (System.nanoTime() - startNanos) / (double) duration.toNanos());
        int filled = (int) Math.round(done * BAR);
        String bar = "#".repeat(filled) + "-".repeat(BAR - filled);
        String phase = done >= 1.0 ? "finishing and checking" : Numbers.count(requests) + " requests";
        err.print("\r\033[K" + label + "  [" + bar + "]  " + phase);
        err.flush();
    }

    @Override
    public synchronized void finished(String workload, StrategyResult r) {
        generation++;
        if (redraw != null) {
            redraw.cancel(false);
            redraw = null;
        }
        String line = String.format(
                Locale.ROOT,
                "%s: %s requests, %s duplicate effects, %s lost (%.1f s)",
                label,
                Numbers.count(r.requests()),
                Numbers.count(r.duplicateEffects()),
                Numbers.count(r.lost()),
                r.seconds());
        err.println(terminal ? "\r\033[K" + line : line);
        err.flush();
    }

    @Override
    public void close() {
        if (ticker != null) {
            ticker.shutdownNow();
        }
    }
}
