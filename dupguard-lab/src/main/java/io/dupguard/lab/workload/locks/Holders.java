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
 */
final class Holders {
    /** Clock granularity allowance: some stores keep expiries in whole milliseconds. */
    private static final long TOLERANCE_NANOS = 5_000_000;

    private final long leaseNanos;
    private final Map<String, List<Long>> inside = new HashMap<>();
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
        List<Long> here = inside.computeIfAbsent(resource, k -> new ArrayList<>());
        for (long other : here) {
            overlaps.incrementAndGet();
            if (now - (other + leaseNanos - TOLERANCE_NANOS) < 0) {
                violations.incrementAndGet();
            }
        }
        Long handle = askedNanos;
        here.add(handle);
        return handle;
    }

    synchronized void exit(String resource, Long handle) {
        List<Long> here = inside.get(resource);
        here.remove(handle);
    }

    long overlaps() {
        return overlaps.get();
    }

    long exclusionViolations() {
        return violations.get();
    }
}
