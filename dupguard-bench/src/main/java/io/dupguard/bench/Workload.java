package io.dupguard.bench;

/** Which keys the client threads use. */
enum Workload {
    /** Every call uses a fresh key: every call runs the work and writes a record. */
    UNIQUE("unique", 0.0),
    /**
     * Each call re-uses, with probability 0.5, a key this thread already completed (picked at random
     * from its ring of recent keys), else a fresh key. Duplicates are replays of completed records,
     * never in-flight rejections.
     */
    DUP50("50% dup", 0.5, false),
    /**
     * Like {@link #DUP50}, but half of the duplicates (a quarter of all calls) re-use a key another
     * thread issued a moment ago — still in flight, just completed, or not yet claimed — so
     * duplicates race the first request: rejected as in flight, waiting, or replaying. Only for
     * rows that can answer an in-flight duplicate ({@link BenchImpl#answersInFlight()}); the
     * outcome of a racing key is not checked (either call may come first).
     */
    DUP50_RACING("50% dup, racing", 0.5, true);

    final String label;
    final double duplicateShare;
    final boolean racing;

    Workload(String label, double duplicateShare) {
        this(label, duplicateShare, false);
    }

    Workload(String label, double duplicateShare, boolean racing) {
        this.label = label;
        this.duplicateShare = duplicateShare;
        this.racing = racing;
    }
}
