package io.dupguard.bench.lock;

import io.dupguard.bench.harness.LoadRun;

/**
 * One measured run of one implementation in one mode.
 *
 * @param run what the load driver measured: latency = uncontended the acquire + release pair,
 *     contended the acquire call alone (the wait); second histogram = contended only, the hand-off
 *     gap (from the previous holder starting its release to this acquire returning)
 * @param overlaps contended only: entries that found another holder inside the critical section, plus
 *     increments of the unguarded counter that were lost (both must be 0)
 */
record LockRun(String impl, LockImpl.Role role, LockLoad.Mode mode, int round, LoadRun run, long overlaps) {

    long ops() {
        return run.ops();
    }

    long errors() {
        return run.errors();
    }

    Throwable firstError() {
        return run.firstError();
    }

    /** Cycles completed in the whole run (warmup and stop included): what the audit divides by. */
    long allCycles() {
        return run.steps();
    }

    long minPerThread() {
        return run.minPerThread();
    }

    long maxPerThread() {
        return run.maxPerThread();
    }

    double opsPerSecond() {
        return run.opsPerSecond();
    }

    double p50Micros() {
        return run.p50Micros();
    }

    double p99Micros() {
        return run.p99Micros();
    }

    double gapP50Micros() {
        return mode == LockLoad.Mode.CONTENDED ? LoadRun.percentileMicros(run.secondNanos(), 50) : Double.NaN;
    }

    double gapP99Micros() {
        return mode == LockLoad.Mode.CONTENDED ? LoadRun.percentileMicros(run.secondNanos(), 99) : Double.NaN;
    }

    /** JVM CPU per measured cycle, µs. */
    double jvmCpuMicrosPerCycle() {
        return run.selfCpuMicrosPerOp();
    }

    /** Server CPU per measured cycle, µs (NaN: the server runs in the JVM). */
    double serverCpuMicrosPerCycle() {
        return run.serverCpuMicrosPerOp();
    }

    /** Cores kept busy by the JVM and the server together during the window (the machine has 2). */
    double coresBusy() {
        double server = run.cpu().serverCores();
        return run.cpu().selfCores() + (Double.isNaN(server) ? 0 : server);
    }

    /** Share of the machine's CPU (0–1) used by other processes during the window; NaN if unknown. */
    double foreignShare() {
        return run.cpu().foreignShare();
    }

    boolean failed() {
        return errors() > 0 || ops() == 0 || overlaps > 0;
    }
}
