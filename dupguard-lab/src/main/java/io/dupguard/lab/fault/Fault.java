package io.dupguard.lab.fault;

import io.dupguard.lab.env.LabEnvironment;
import io.dupguard.lab.storm.Strategy;
import io.dupguard.lab.storm.Workload;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * A real fault injected while one strategy's storm runs ({@code dupguard storm --faults …}), with
 * the servers' own mechanisms and only on connections the lab itself opened.
 */
public interface Fault {
    /** The name used on the command line and in the report. */
    String name();

    /** Why this fault cannot run against {@code env} (no server it applies to), or empty. */
    Optional<String> unsupported(LabEnvironment env);

    /**
     * Whether the store settings of {@code env} can keep dupguard's promise through this fault
     * (false only where the setting itself cannot, e.g. Redis without persistence across a
     * restart). A dupguard row that breaks an invariant on a durable setting fails the run.
     */
    boolean durable(LabEnvironment env);

    /**
     * Whether the promise can be kept through this fault for {@code strategy} of {@code workload}
     * on {@code env}: by default {@link #durable(LabEnvironment)}, the store setting alone.
     */
    default boolean durable(LabEnvironment env, Workload workload, Strategy strategy) {
        return durable(env);
    }

    /**
     * Injects the fault between {@code startNanos} and {@code endNanos} ({@link System#nanoTime()}),
     * at moments drawn from {@code random}, telling {@code active} when it was in effect (from, to;
     * equal for an instant). Runs on its own thread; returns when done or when interrupted.
     */
    void run(LabEnvironment env, long startNanos, long endNanos, SplittableRandom random, Active active)
            throws Exception;

    /**
     * What the report says of a dupguard row that breaks an invariant where this fault is not {@link
     * #durable(LabEnvironment, Workload, Strategy) durable}: the limit it met, and that it is not
     * counted as a dupguard failure.
     */
    default String limit() {
        return DURABILITY_LIMIT;
    }

    /** {@link #limit()} unless a fault says more. */
    String DURABILITY_LIMIT = "a durability limit: this store setting, or a strategy that commits its effect apart"
            + " from its record, cannot keep the promise through this fault; not counted as a dupguard failure";

    /** Whether {@code strategy} is run under this fault (default: every strategy). */
    default boolean appliesTo(Strategy strategy) {
        return true;
    }

    /** Whether {@code strategy} of {@code workload} is run under this fault; by default {@link #appliesTo(Strategy)}. */
    default boolean appliesTo(Workload workload, Strategy strategy) {
        return appliesTo(strategy);
    }

    /**
     * For a pair this fault does not apply to, the reason to print when it is skipped; empty to skip
     * it silently (a fault that is simply about other stores).
     */
    default Optional<String> skipReason(Workload workload, Strategy strategy) {
        return Optional.empty();
    }

    /**
     * Whether part of the clients are served by a second application instance ({@link
     * LabEnvironment#instance()}) during the run, for the fault to crash.
     */
    default boolean needsSecondInstance() {
        return false;
    }

    /**
     * Prepares {@code env} before a strategy's trial opens (e.g. points the Redis strategies at a
     * server of the fault's own); the returned handle undoes it after the run.
     */
    default AutoCloseable prepare(LabEnvironment env) throws Exception {
        return () -> {};
    }

    /**
     * Whether {@code --faults all} includes this fault. The failovers, which build servers of their
     * own for every run (seconds each) and fail them over, run only when named.
     */
    default boolean inAll() {
        return true;
    }

    /** Where a fault reports when it was in effect, in {@link System#nanoTime()} values. */
    @FunctionalInterface
    interface Active {
        void between(long fromNanos, long toNanos);
    }
}
