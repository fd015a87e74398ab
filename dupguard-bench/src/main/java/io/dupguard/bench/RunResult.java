package io.dupguard.bench;

import io.dupguard.bench.harness.LoadRun;

/**
 * One measured run of one implementation and workload.
 *
 * @param run what the load driver measured; its counters are {@link ExecuteLoad#FIRSTS} (calls that
 *     ran the work), {@link ExecuteLoad#REPLAYS} (calls that replayed a stored result) and {@link
 *     ExecuteLoad#UNEXPECTED} (calls whose outcome did not match the key)
 */
record RunResult(String impl, BenchImpl.Role role, Workload workload, int round, LoadRun run) {

    long ops() {
        return run.ops();
    }

    long replays() {
        return run.counter(ExecuteLoad.REPLAYS);
    }

    long unexpected() {
        return run.counter(ExecuteLoad.UNEXPECTED);
    }

    long errors() {
        return run.errors();
    }

    Throwable firstError() {
        return run.firstError();
    }

    /** Share of the machine's CPU used by other processes during the window (NaN if unknown). */
    double foreignCpuShare() {
        return run.cpu().foreignShare();
    }

    /** CPU of this JVM (client side: driver and implementation) per call, in µs. */
    double clientCpuMicrosPerCall() {
        return run.selfCpuMicrosPerOp();
    }

    /** CPU of the database server processes per call, in µs (0 for memory and H2). */
    double serverCpuMicrosPerCall() {
        return run.serverCpuMicrosPerOp();
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

    /** Share of calls that were replays. */
    double replayShare() {
        return ops() == 0 ? 0 : (double) replays() / ops();
    }

    boolean failed() {
        return errors() > 0 || ops() == 0;
    }
}
