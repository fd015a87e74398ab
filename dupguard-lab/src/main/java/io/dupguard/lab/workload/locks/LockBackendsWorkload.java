package io.dupguard.lab.workload.locks;

import io.dupguard.lab.env.LabEnvironment;
import io.dupguard.lab.storm.Chart;
import io.dupguard.lab.storm.Effects;
import io.dupguard.lab.storm.Family;
import io.dupguard.lab.storm.Refused;
import io.dupguard.lab.storm.Request;
import io.dupguard.lab.storm.Sent;
import io.dupguard.lab.storm.Service;
import io.dupguard.lab.storm.Strategy;
import io.dupguard.lab.storm.Trial;
import io.dupguard.lab.storm.Workload;
import io.dupguard.lock.Lease;
import io.dupguard.lock.LockOptions;
import io.dupguard.lock.LockProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * guarantees L5, L7: every lock backend, each with and without fencing. Writers take a resource's lock
 * with a fixed {@value #LEASE_MILLIS} ms lease, work, and write the resource row. Every client's
 * first request, and every {@value #STALL_ONE_IN}th after it, stalls {@value #STALL_MILLIS} ms while
 * holding the lock — past its lease —
 * and then writes: by then its own retry or another writer has taken the lock and written. Unfenced,
 * the stale write lands; fenced with {@link io.dupguard.jdbc.Fence}, the row refuses it.
 */
public final class LockBackendsWorkload implements Workload {
    public static final String NAME = "lock-backends";

    static final long LEASE_MILLIS = 600;
    static final long STALL_MILLIS = 800;
    static final int STALL_ONE_IN = 50;
    static final int STALL_FIRST = 0;
    static final int RESOURCES = 128;

    private static final LockOptions OPTIONS = LockOptions.custom()
            .leaseTime(Duration.ofMillis(LEASE_MILLIS))
            .waitTime(Duration.ofSeconds(10))
            .build();

    private static final Map<String, Variant> VARIANTS = variants();

    static final String STALE_WRITES_ACCEPTED = "staleWritesAccepted";
    static final String STALE_WRITES_REFUSED = "staleWritesRefused";

    /**
     * Every attempt is a holder that writes, so duplicate effects are always 0 here: the chart shows
     * the stale writes instead, accepted (the unfenced failure) and refused (fencing at work).
     */
    private static final List<Chart> CHARTS = List.of(new Chart(
            "stale-writes",
            "Stale writes per strategy (from the write log): accepted is the failure, refused is fencing at work",
            List.of(
                    new Chart.Series("stale writes accepted", STALE_WRITES_ACCEPTED),
                    new Chart.Series("stale writes refused", STALE_WRITES_REFUSED))));

    /** A backend, fenced or not. */
    private record Variant(Backend backend, boolean fenced) {}

    private static Map<String, Variant> variants() {
        Map<String, Variant> out = new LinkedHashMap<>();
        for (Backend b : Backend.values()) {
            out.put(b.id() + "-unfenced", new Variant(b, false));
            out.put(b.id() + "-fenced", new Variant(b, true));
        }
        return out;
    }

    static String resource(int i) {
        return String.format("res-%03d", i);
    }

    @Override
    public String name() {
        return NAME;
    }

    /**
     * Not in a default run: a fault-injection study rather than a duplicate storm (its duplicate
     * columns do not apply), each run outlasts its duration by a stall, and most backends need servers.
     */
    @Override
    public boolean inDefaultRun() {
        return false;
    }

    @Override
    public String summary() {
        return "a lock holder pauses " + STALL_MILLIS + " ms on a " + LEASE_MILLIS
                + " ms lease, then writes; fencing refuses the stale write (L5, L7)";
    }

    @Override
    public List<Chart> charts() {
        return CHARTS;
    }

    @Override
    public List<Strategy> strategies() {
        List<Strategy> out = new ArrayList<>();
        VARIANTS.forEach((name, v) -> {
            String what = v.backend().description + (v.fenced() ? "; writes fenced" : "; writes unfenced");
            Family family = v.fenced() ? Family.DUPGUARD : Family.NAIVE;
            out.add(new Strategy(
                    name, family, what, v.backend().need().map(Set::of).orElse(Set.of())));
        });
        return out;
    }

    /**
     * Every backend but the in-memory one, whose locks one JVM keeps: the resource rows, lock rows,
     * Redis keys and ZooKeeper nodes live in the servers, and a second instance reaches them with its
     * own pool, clients and session. A crashed instance's locks are taken over once their lease runs
     * out (ZooKeeper: once the server expires the dead session); a write it left half-done is rolled
     * back with its connection.
     */
    @Override
    public boolean sharedByInstances(Strategy strategy) {
        Variant v = VARIANTS.get(strategy.name());
        return v != null && v.backend() != Backend.MEMORY;
    }

    @Override
    public String notSharedBecause(Strategy strategy) {
        return "an in-memory lock lives in one JVM: a second instance cannot share it";
    }

    @Override
    public Trial open(Strategy strategy, LabEnvironment env) throws Exception {
        Variant v = VARIANTS.get(strategy.name());
        if (v == null) {
            throw new IllegalArgumentException("unknown strategy " + strategy.name());
        }
        String name = "dupguard_lab_resource_" + strategy.name().replace('-', '_');
        ResourceTable table = new ResourceTable(env, name);
        table.recreate(RESOURCES);
        LockProvider locks = v.backend().open(env, name + "_");
        // the lab's view of who is inside, and which first attempts stalled, spans both instances
        Observers seen = env.sharedWithInstances(
                name,
                () -> new Observers(
                        new Holders(Duration.ofMillis(LEASE_MILLIS).toNanos()), ConcurrentHashMap.newKeySet()));
        return new LockTrial(table, locks, v.fenced(), seen.holders(), seen.stalled(), env::crashed);
    }

    /** What the lab watches in this JVM: who is inside, and which requests' first attempts stalled. */
    private record Observers(Holders holders, Set<String> stalled) {}

    /** {@code dead}: whether this trial's instance has crashed; a dead instance releases nothing. */
    private record LockTrial(
            ResourceTable table,
            LockProvider locks,
            boolean fenced,
            Holders holders,
            Set<String> stalled,
            BooleanSupplier dead)
            implements Trial {

        @Override
        public Request newRequest(int client, long seq, SplittableRandom random) {
            return new Write(
                    String.format("w-%03d-%07d", client, seq),
                    resource(random.nextInt(RESOURCES)),
                    seq % STALL_ONE_IN == STALL_FIRST); // first, so even a short run on a slow machine stalls
        }

        @Override
        public Object serve(Request request, Service service) throws Exception {
            Write w = (Write) request;
            long asked = System.nanoTime();
            Lease lease = locks.acquire("resource:" + w.resource(), OPTIONS);
            Long inside = holders.enter(w.resource(), asked);
            try {
                if (w.stalls() && stalled.add(w.requestId())) {
                    LockSupport.parkNanos(Duration.ofMillis(STALL_MILLIS).toNanos()); // the simulated GC pause
                } else {
                    service.pause();
                }
                if (!table.write(w.resource(), lease.fencingToken(), w.requestId(), fenced)) {
                    throw new Refused("fenced write refused: token " + lease.fencingToken() + " is stale");
                }
                return w.resource();
            } finally {
                // Out of the critical section before the release, which lets the next holder in. A dead
                // instance releases nothing: its lock stays taken in the store until its lease runs
                // out, and the lab counts it inside until then.
                boolean releasing = !dead.getAsBoolean();
                holders.exit(w.resource(), inside, releasing);
                if (releasing) {
                    lease.close();
                }
            }
        }

        @Override
        public Effects check(List<Sent> ledger) throws Exception {
            Map<String, Long> newest = new HashMap<>();
            Set<String> written = new HashSet<>();
            long staleAccepted = 0;
            long staleRefused = 0;
            String evidence = "";
            for (ResourceTable.Logged l : table.log()) {
                if (!l.accepted()) {
                    staleRefused++;
                    continue;
                }
                written.add(l.writer());
                long before = newest.getOrDefault(l.resource(), 0L);
                if (l.token() < before) {
                    staleAccepted++;
                    if (evidence.isEmpty()) {
                        evidence = l.resource() + " in " + table.name + " took write " + l.seq() + " by " + l.writer()
                                + " with token " + l.token() + " after a write with token " + before;
                    }
                }
                newest.put(l.resource(), Math.max(before, l.token()));
            }
            long lost = ledger.stream()
                    .filter(s ->
                            s.acknowledged() && !written.contains(s.request().key()))
                    .count();
            List<String> violations = new ArrayList<>();
            if (staleAccepted > 0) {
                violations.add(
                        staleAccepted + " stale writes accepted: a holder past its lease overwrote its successor");
            }
            if (holders.exclusionViolations() > 0) {
                violations.add(holders.exclusionViolations() + " entries while another holder's lease was still valid");
            }
            Map<String, Long> metrics = new LinkedHashMap<>();
            metrics.put(STALE_WRITES_ACCEPTED, staleAccepted);
            metrics.put(STALE_WRITES_REFUSED, staleRefused);
            metrics.put("overlaps", holders.overlaps());
            metrics.put("exclusionViolations", holders.exclusionViolations());
            return new Effects(0, lost, 0, evidence, violations, metrics);
        }

        @Override
        public void close() {
            if (locks instanceof AutoCloseable c) {
                try {
                    c.close();
                } catch (Exception e) {
                    throw new IllegalStateException("closing " + locks + " failed", e);
                }
            }
        }
    }
}
