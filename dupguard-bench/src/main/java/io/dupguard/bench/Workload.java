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
    DUP50("50% dup", 0.5);

    final String label;
    final double duplicateShare;

    Workload(String label, double duplicateShare) {
        this.label = label;
        this.duplicateShare = duplicateShare;
    }
}
