package io.dupguard.internal;

import io.dupguard.lock.LockOptions;

/** Reentrancy owner of an acquisition. Not part of the public API. */
public final class LockOwners {
    private LockOwners() {}

    /**
     * The owner an acquisition with {@code options} re-enters under: the explicit owner id, or the
     * calling thread. The two live in separate namespaces, so an explicit id such as {@code
     * "thread:1"} can never impersonate a thread's implicit ownership.
     */
    public static String of(LockOptions options) {
        return options.owner()
                .map(explicit -> "explicit:" + explicit)
                .orElseGet(() -> "thread:" + Thread.currentThread().getId());
    }
}
