package io.dupguard.lab.storm;

import io.dupguard.lab.env.LabEnvironment;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;

/**
 * A second application instance that serves every {@value #ONE_IN}rd client's attempts until it
 * crashes ({@code instance-crash}): the same trial opened on {@link LabEnvironment#instance()}, so
 * the same tables and keys through its own pool and Redis client. After the crash its attempts
 * stop at their next step — the simulated slow part, or any call to its dead pool or client — and
 * no answer leaves it; its clients' next attempts go to the surviving instance.
 */
final class SecondInstance implements AutoCloseable {
    static final int ONE_IN = 3;

    private final LabEnvironment env;
    private final Trial trial;
    private final LongAdder cut = new LongAdder();
    private final LongAdder cutRequestsAcknowledged = new LongAdder();
    private final Set<Thread> serving = new HashSet<>(); // guarded by this

    private SecondInstance(LabEnvironment env, Trial trial) {
        this.env = env;
        this.trial = trial;
        // its threads stop with it: one waiting for a pooled connection would otherwise wait out the
        // pool's 10 s timeout, as no dead process does
        env.onCrash(this::interruptServing);
    }

    /**
     * Opens {@code strategy}'s trial on a second instance of {@code primary}. Call before the trial
     * is opened on {@code primary}: that opening recreates the tables, under the same names.
     */
    static SecondInstance open(Workload workload, Strategy strategy, LabEnvironment primary) throws Exception {
        LabEnvironment env = primary.instance();
        try {
            return new SecondInstance(env, workload.open(strategy, env));
        } catch (Exception | Error e) {
            env.close();
            throw e;
        }
    }

    /** Whether this instance, alive, serves {@code client}'s attempt now. */
    boolean serves(int client) {
        return client % ONE_IN == 0 && !env.crashed();
    }

    Trial trial() {
        return trial;
    }

    boolean crashed() {
        return env.crashed();
    }

    /** The calling thread starts serving an attempt on this instance. */
    synchronized void enter() {
        serving.add(Thread.currentThread());
    }

    /** The calling thread is done with its attempt here; an interrupt the crash sent it ends with it. */
    void leave() {
        synchronized (this) {
            serving.remove(Thread.currentThread());
        }
        Thread.interrupted();
    }

    private synchronized void interruptServing() {
        serving.forEach(Thread::interrupt);
    }

    /** Stops the calling attempt if the instance has died meanwhile. */
    void stopIfCrashed() {
        if (env.crashed()) {
            throw new InstanceCrashedException();
        }
    }

    /** Counts an attempt that died with the instance. */
    void cut() {
        cut.increment();
    }

    /** Counts a request the dead instance was working on that the survivor acknowledged. */
    void acknowledgedAfterCut() {
        cutRequestsAcknowledged.increment();
    }

    /** Counts for the report. */
    Map<String, Long> metrics() {
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("attemptsCutByCrash", cut.sum());
        m.put("cutRequestsAcknowledged", cutRequestsAcknowledged.sum());
        return m;
    }

    /** Frees what is left of the instance in this JVM (its threads, its clients); it is dead already. */
    @Override
    public void close() {
        try {
            trial.close();
        } catch (RuntimeException deadAlready) {
            // closing a store or lock provider whose pool or client the crash shut down
        } finally {
            env.close();
        }
    }

    /** What an attempt on the crashed instance ends with: its client sees the connection drop. */
    static final class InstanceCrashedException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        InstanceCrashedException() {
            super("the application instance serving this attempt crashed", null, false, false);
        }
    }
}
