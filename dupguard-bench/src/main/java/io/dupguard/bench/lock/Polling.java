package io.dupguard.bench.lock;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The wait written around a lock that cannot wait by itself (ShedLock, the hand-written lease rows):
 * try, and while refused sleep a jittered pause of {@link #FIRST_PAUSE} doubling to {@link
 * #MAX_PAUSE}, for up to {@link #WAIT}. Every waiting thread polls the store.
 */
final class Polling {
    static final Duration FIRST_PAUSE = Duration.ofMillis(1);
    static final Duration MAX_PAUSE = Duration.ofMillis(16);
    static final Duration WAIT = Duration.ofSeconds(30);

    /** One attempt: the held lock, or null if another owner holds it. */
    @FunctionalInterface
    interface Attempt {
        LockImpl.Held tryLock() throws Exception;
    }

    private Polling() {}

    /** How the report describes the wait. */
    static String description() {
        return "the bench's retry loop sleeps a jittered " + FIRST_PAUSE.toMillis() + " ms doubling to "
                + MAX_PAUSE.toMillis() + " ms between attempts (every thread polls)";
    }

    static LockImpl.Held acquire(Attempt attempt) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        long pause = FIRST_PAUSE.toNanos();
        while (true) {
            LockImpl.Held held = attempt.tryLock();
            if (held != null) {
                return held;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("not acquired within " + WAIT);
            }
            long jittered = pause / 2 + ThreadLocalRandom.current().nextLong(pause / 2 + 1);
            Thread.sleep(jittered / 1_000_000, (int) (jittered % 1_000_000));
            pause = Math.min(pause * 2, MAX_PAUSE.toNanos());
        }
    }
}
