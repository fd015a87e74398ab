package io.dupguard.lab.storm;

import io.dupguard.lab.env.LabEnvironment;
import io.dupguard.lab.fault.Fault;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * {@code dupguard storm --soak}: the dupguard strategies run round after round for the whole
 * duration, each round under the next fault, with a third of the requests and more duplicated
 * ({@link #DOUBLE_SEND_RATE}, {@link #REDELIVERY_RATE}). Every round is checked like a storm run;
 * after each one the heap is measured after a full GC, with the JVM's threads and the sessions on
 * the database and Redis, so that growth from round to round shows as a leak.
 *
 * <p>Only pairs of a strategy and a fault that can keep the promise run (a Redis restart without
 * persistence cannot; neither can an instance crash for a strategy that commits its effect apart
 * from its record): every round must then show 0 duplicate effects and 0 lost requests.
 */
public final class Soak {
    /** How long a soak runs without {@code --duration}. */
    public static final Duration DEFAULT_DURATION = Duration.ofMinutes(10);
    /** The soak's targets (issue 17): reported as met or not, they do not change the exit status. */
    public static final long TARGET_REQUESTS = 1_000_000;

    public static final double TARGET_DUPLICATE_SHARE = 0.30;
    static final double DOUBLE_SEND_RATE = 0.25;
    static final double REDELIVERY_RATE = 0.10;
    static final Duration MAX_ROUND = Duration.ofSeconds(10);
    static final Duration MIN_ROUND = Duration.ofSeconds(1);
    /** Heap growth after GC, from the first quarter of the rounds to the last, that still counts as flat. */
    static final long FLAT_HEAP_SLACK_BYTES = 16L << 20;
    /** Threads and sessions that may come and go between two samples (pool refills, Lettuce's timers). */
    static final int LEAK_SLACK = 4;

    /** One strategy under one fault. */
    public record Pair(Workload workload, Strategy strategy, Fault fault) {}

    /** One round's row. */
    public record Round(
            int round,
            String workload,
            String strategy,
            String fault,
            long requests,
            long duplicatesSent,
            long duplicateEffects,
            long lost,
            long errors,
            double opsPerSec,
            long p99Micros,
            boolean ok,
            List<String> violations) {}

    /** The JVM and the servers after a round: heap after a full GC, live threads, sessions. */
    public record Sample(
            int afterRound,
            double atSeconds,
            long requests,
            long heapAfterGcBytes,
            int threads,
            long dbSessions,
            long redisConnections) {}

    /**
     * What the soak found.
     *
     * @param before the sample after the first round (pools filled, classes loaded)
     * @param after the sample after the last round, its trial closed
     */
    public record Result(
            List<Round> rounds,
            List<Sample> samples,
            Sample before,
            Sample after,
            long requests,
            long duplicatesSent,
            long duplicateEffects,
            long lost,
            long errors,
            double seconds,
            boolean invariantsHeld,
            boolean heapFlat,
            boolean leakFree,
            boolean targetsMet) {

        /** Sends beyond the first per request, as a share of the requests. */
        public double duplicateShare() {
            return requests == 0 ? 0 : (double) duplicatesSent / requests;
        }

        /** Invariants held, the heap stayed flat, and nothing leaked. */
        public boolean ok() {
            return invariantsHeld && heapFlat && leakFree;
        }
    }

    private Soak() {}

    /**
     * The pairs to cycle: every dupguard strategy of {@code plans} but the in-memory ones, under every
     * fault that applies to it and can keep its promise there, interleaved so that consecutive rounds differ in fault.
     */
    public static List<Pair> pairs(List<Storm.Plan> plans, List<Fault> faults, LabEnvironment env) {
        List<List<Pair>> byFault = new ArrayList<>();
        for (Fault fault : faults) {
            List<Pair> these = new ArrayList<>();
            for (Storm.Plan plan : plans) {
                for (Strategy s : plan.strategies()) {
                    if (s.family() == Family.DUPGUARD
                            && !s.name().contains("memory") // soaks the servers, not one JVM's memory
                            && fault.appliesTo(plan.workload(), s)
                            && fault.durable(env, plan.workload(), s)) {
                        these.add(new Pair(plan.workload(), s, fault));
                    }
                }
            }
            if (!these.isEmpty()) {
                byFault.add(these);
            }
        }
        List<Pair> out = new ArrayList<>();
        int longest = byFault.stream().mapToInt(List::size).max().orElse(0);
        for (int i = 0; i < longest; i++) {
            for (List<Pair> these : byFault) {
                if (i < these.size()) {
                    out.add(these.get(i));
                }
            }
        }
        return out;
    }

    /** The length of one round for a soak of {@code total}: a quarter of it, between 1 s and 10 s. */
    static Duration roundLength(Duration total) {
        Duration quarter = total.dividedBy(4);
        return quarter.compareTo(MAX_ROUND) > 0 ? MAX_ROUND : quarter.compareTo(MIN_ROUND) < 0 ? MIN_ROUND : quarter;
    }

    /**
     * Runs rounds over {@code pairs}, in turn, until {@code settings.duration()} has passed and every
     * fault has had a round.
     *
     * @param log gets a line per round
     */
    public static Result run(List<Pair> pairs, LabEnvironment env, StormSettings settings, Consumer<String> log)
            throws Exception {
        if (pairs.isEmpty()) {
            throw new IllegalArgumentException("no dupguard strategy can run under the faults given");
        }
        StormSettings round = settings.withDuration(roundLength(settings.duration()))
                .withDuplicateRates(DOUBLE_SEND_RATE, REDELIVERY_RATE);
        long start = System.nanoTime();
        long end = start + settings.duration().toNanos();
        List<Round> rounds = new ArrayList<>();
        List<Sample> samples = new ArrayList<>();
        long requests = 0;
        long duplicatesSent = 0;
        long duplicateEffects = 0;
        long lost = 0;
        long errors = 0;
        boolean held = true;
        long faults = pairs.stream().map(Pair::fault).distinct().count();
        for (int n = 0; n < faults || System.nanoTime() - end < 0; n++) { // every fault at least once
            Pair p = pairs.get(n % pairs.size());
            StrategyResult r = Storm.runOne(
                    p.workload(),
                    p.strategy(),
                    p.fault(),
                    env,
                    round.withSeed(round.seed() + n),
                    Progress.NONE,
                    n + 1,
                    0);
            requests += r.requests();
            duplicatesSent += r.duplicatesSent();
            duplicateEffects += r.duplicateEffects();
            lost += r.lost();
            errors += r.errors();
            held &= r.ok();
            rounds.add(new Round(
                    n + 1,
                    p.workload().name(),
                    r.name(),
                    r.fault(),
                    r.requests(),
                    r.duplicatesSent(),
                    r.duplicateEffects(),
                    r.lost(),
                    r.errors(),
                    r.opsPerSec(),
                    r.p99Micros(),
                    r.ok(),
                    r.violations()));
            Sample s = sample(n + 1, start, requests, env);
            samples.add(s);
            log.accept(line(rounds.get(rounds.size() - 1), s));
        }
        Sample before = samples.get(0);
        Sample after = settled(samples.size(), start, requests, env, before);
        double seconds = (System.nanoTime() - start) / 1e9;
        boolean leakFree = after.threads() <= before.threads() + LEAK_SLACK
                && after.dbSessions() <= before.dbSessions() + LEAK_SLACK
                && after.redisConnections() <= before.redisConnections() + LEAK_SLACK;
        boolean targets = requests >= TARGET_REQUESTS
                && (double) duplicatesSent / Math.max(1, requests) >= TARGET_DUPLICATE_SHARE;
        return new Result(
                rounds,
                samples,
                before,
                after,
                requests,
                duplicatesSent,
                duplicateEffects,
                lost,
                errors,
                seconds,
                held,
                heapFlat(samples),
                leakFree,
                targets);
    }

    /**
     * Flat: the median heap after GC of the last quarter of the samples is at most {@link
     * #FLAT_HEAP_SLACK_BYTES} or a fifth above that of the first quarter (the first sample left
     * out: it still fills pools and caches).
     */
    static boolean heapFlat(List<Sample> samples) {
        List<Sample> measured = samples.size() > 1 ? samples.subList(1, samples.size()) : samples;
        int quarter = Math.max(1, measured.size() / 4);
        long first = median(measured.subList(0, quarter));
        long last = median(measured.subList(measured.size() - quarter, measured.size()));
        return last - first <= Math.max(FLAT_HEAP_SLACK_BYTES, first / 5);
    }

    private static long median(List<Sample> samples) {
        long[] v = samples.stream().mapToLong(Sample::heapAfterGcBytes).sorted().toArray();
        return v[v.length / 2];
    }

    /**
     * The last sample, taken once threads of closed pools and clients have ended (they stop
     * asynchronously), for at most 5 s.
     */
    private static Sample settled(int round, long start, long requests, LabEnvironment env, Sample before)
            throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        Sample s = sample(round, start, requests, env);
        while (s.threads() > before.threads() + LEAK_SLACK && System.nanoTime() - deadline < 0) {
            Thread.sleep(100); // polling a count that settles by itself; no outcome is awaited
            s = sample(round, start, requests, env);
        }
        return s;
    }

    private static Sample sample(int round, long start, long requests, LabEnvironment env) throws Exception {
        System.gc(); // a full collection: the heap after GC is what the soak measures
        long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        return new Sample(
                round,
                (System.nanoTime() - start) / 1e9,
                requests,
                heap,
                ManagementFactory.getThreadMXBean().getThreadCount(),
                env.databaseSessions(),
                env.redis().map(r -> (long) r.labConnections()).orElse(0L));
    }

    private static String line(Round r, Sample s) {
        return String.format(
                java.util.Locale.ROOT,
                "round %4d  %-16s %-22s @%-18s requests %,8d  dup sent %,8d  dup effects %d  lost %d  errors %,d"
                        + "  |  %6.1f s  total %,d  heap after GC %.1f MB  threads %d  db sessions %d  redis connections %d%s",
                r.round(),
                r.workload(),
                r.strategy(),
                r.fault(),
                r.requests(),
                r.duplicatesSent(),
                r.duplicateEffects(),
                r.lost(),
                r.errors(),
                s.atSeconds(),
                s.requests(),
                s.heapAfterGcBytes() / 1048576.0,
                s.threads(),
                s.dbSessions(),
                s.redisConnections(),
                r.ok() ? "" : "  BROKEN: " + String.join("; ", r.violations()));
    }
}
