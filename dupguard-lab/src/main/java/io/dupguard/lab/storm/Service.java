package io.dupguard.lab.storm;

/**
 * What the simulated service gives one attempt while it runs on a server thread. A strategy calls
 * {@link #pause()} exactly where its real counterpart would be slow (a remote call, a busy
 * database, a GC pause): for a check-then-act strategy that is between the check and the act.
 */
public interface Service {

    /** Spends this attempt's injected latency (a sleep: the simulation). */
    void pause();
}
