package io.dupguard.bench.lock;

/**
 * One lock implementation under test. Built per backend, used concurrently by every client thread
 * through its own {@link Client}; thread-safe.
 */
interface LockImpl {

    /** What a row is compared against. */
    enum Role {
        /**
         * Written by hand: the ceiling of the store (on PostgreSQL and MariaDB the lean lease row of
         * its own minimal table).
         */
        CEILING,
        /** SQL stores: hand-written statements on dupguard's own lock table. */
        CEILING_SAME_TABLE,
        /** dupguard's {@code LockProvider}. */
        DUPGUARD,
        /** A peer library. */
        PEER
    }

    /** Row label in the report. */
    String name();

    Role role();

    /** What an acquire and a release send to the store, from the code (the audit counts it). */
    String description();

    /** How a refused acquire waits for the lock (what the contended rows exercise). */
    String waiting();

    /** A client for one thread; made on that thread when a run starts. */
    Client newClient();

    /** What one client thread calls. */
    interface Client {
        /**
         * Takes the lock, waiting for it if another owner holds it (every implementation waits up to
         * 30 s or longer). Throws if it cannot be taken.
         */
        Held acquire(String name) throws Exception;
    }

    /** A held lock. */
    interface Held {
        void release() throws Exception;
    }
}
