package io.dupguard.lab.workload.locks;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Who is inside which resource's critical section, as this JVM sees it. An entry while someone else
 * is inside is an <em>overlap</em>: expected once a holder outlives its lease, which no lease-based
 * lock can prevent. An entry while the other holder's lease cannot have run out yet — it asked for
 * the lock less than a lease ago — is an <em>exclusion violation</em>: the backend granted one lock
 * twice.
 *
 * <p>A holder that stops without releasing — its instance crashed — still holds the lock in the
 * store until its lease runs out, so until then it counts as inside: an entry before that is a
 * violation too, although the dead holder's thread has left.
 */
final class Holders {
    /** Clock granularity allowance: some stores keep expiries in whole milliseconds. */
    private static final long TOLERANCE_NANOS = 5_000_000;

    private final long leaseNanos;
    private final Map<String, List<Long>> inside = new HashMap<>();
    /** Per resource, when each holder that stopped without releasing asked for the lock. */
    private final Map<String, List<Long>> abandoned = new HashMap<>();

    private final AtomicLong overlaps = new AtomicLong();
    private final AtomicLong violations = new AtomicLong();

    Holders(long leaseNanos) {
        this.leaseNanos = leaseNanos;
    }

    /**
     * Records an entry into {@code resource}'s critical section.
     *
     * @param askedNanos when this holder called acquire: its lease cannot have started earlier
     * @return a handle for {@link #exit}
     */
    synchronized Long enter(String resource, long askedNanos) {
        long now = System.nanoTime();
        for (long other : inside.computeIfAbsent(resource, k -> new ArrayList<>())) {
            overlaps.incrementAndGet();
            if (leaseMayRun(other, now)) {
                violations.incrementAndGet();
            }
        }
        List<Long> dead = abandoned.get(resource);
        if (dead != null) {
            dead.removeIf(other -> !leaseMayRun(other, now)); // lapsed: the lock was free again
            for (int i = 0; i < dead.size(); i++) {
                overlaps.incrementAndGet();
                violations.incrementAndGet();
            }
        }
        Long handle = askedNanos;
        inside.get(resource).add(handle);
        return handle;
    }

    /** Whether the lease of a holder that asked at {@code askedNanos} may not have run out by {@code now}. */
    private boolean leaseMayRun(long askedNanos, long now) {
        return now - (askedNanos + leaseNanos - TOLERANCE_NANOS) < 0;
    }

    /**
     * Records that a holder left {@code resource}'s critical section.
     *
     * @param released false if it left without releasing (its instance crashed): the store keeps its
     *     lock until the lease runs out
     */
    synchronized void exit(String resource, Long handle, boolean released) {
        inside.get(resource).remove(handle);
        if (!released) {
            abandoned.computeIfAbsent(resource, k -> new ArrayList<>()).add(handle);
        }
    }

    long overlaps() {
        return overlaps.get();
    }

    long exclusionViolations() {
        return violations.get();
    }
}
