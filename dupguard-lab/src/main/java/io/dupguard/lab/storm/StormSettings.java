package io.dupguard.lab.storm;

import java.time.Duration;

/**
 * How hard the storm blows. Immutable; start from {@link #defaults()}.
 *
 * @param clients concurrent clients, each sending one logical request after another
 * @param duration how long each strategy runs (new requests stop then; running ones finish)
 * @param seed makes requests, duplicates and latencies reproducible
 * @param timeout how long a client waits before it retries the same request; the first attempt
 *     keeps running on the server
 * @param maxAttempts attempts per logical request from timeouts and failures (1 + retries)
 * @param doubleSendRate share of requests sent twice at once (double click, broker redelivery)
 * @param redeliveryRate share of requests sent once more after their acknowledgement (a lost ack)
 * @param tamperRate share of acknowledged requests followed by a tampered duplicate, where the
 *     workload has one
 * @param latency the service latency of every attempt
 * @param giveUp how long a client waits in all for one logical request
 * @param serverThreads threads of the simulated server; attempts beyond them queue
 */
public record StormSettings(
        int clients,
        Duration duration,
        long seed,
        Duration timeout,
        int maxAttempts,
        double doubleSendRate,
        double redeliveryRate,
        double tamperRate,
        LatencyModel latency,
        Duration giveUp,
        int serverThreads) {

    public static final int DEFAULT_CLIENTS = 64;
    public static final Duration DEFAULT_DURATION = Duration.ofSeconds(1);
    public static final long DEFAULT_SEED = 42;
    public static final Duration DEFAULT_TIMEOUT = Duration.ofMillis(40);
    public static final double DEFAULT_DOUBLE_SEND_RATE = 0.02;
    public static final double DEFAULT_REDELIVERY_RATE = 0.01;

    public StormSettings {
        if (clients < 1) {
            throw new IllegalArgumentException("clients must be at least 1, was " + clients);
        }
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1, was " + maxAttempts);
        }
        positive(duration, "duration");
        positive(timeout, "timeout");
        positive(giveUp, "giveUp");
        rate(doubleSendRate, "doubleSendRate");
        rate(redeliveryRate, "redeliveryRate");
        rate(tamperRate, "tamperRate");
        if (serverThreads < 1) {
            throw new IllegalArgumentException("serverThreads must be at least 1, was " + serverThreads);
        }
    }

    /** 64 clients, 1 s per strategy, seed 42, 40 ms timeout, 3 attempts, 2 % double sends. */
    public static StormSettings defaults() {
        return new StormSettings(
                DEFAULT_CLIENTS,
                DEFAULT_DURATION,
                DEFAULT_SEED,
                DEFAULT_TIMEOUT,
                3,
                DEFAULT_DOUBLE_SEND_RATE,
                DEFAULT_REDELIVERY_RATE,
                0.01,
                LatencyModel.DEFAULT,
                Duration.ofSeconds(10),
                2 * DEFAULT_CLIENTS);
    }

    /** Also sizes the server: two threads per client, so queueing comes only from duplicates. */
    public StormSettings withClients(int clients) {
        return new StormSettings(
                clients,
                duration,
                seed,
                timeout,
                maxAttempts,
                doubleSendRate,
                redeliveryRate,
                tamperRate,
                latency,
                giveUp,
                2 * Math.max(clients, 1));
    }

    public StormSettings withDuration(Duration duration) {
        return new StormSettings(
                clients,
                duration,
                seed,
                timeout,
                maxAttempts,
                doubleSendRate,
                redeliveryRate,
                tamperRate,
                latency,
                giveUp,
                serverThreads);
    }

    public StormSettings withSeed(long seed) {
        return new StormSettings(
                clients,
                duration,
                seed,
                timeout,
                maxAttempts,
                doubleSendRate,
                redeliveryRate,
                tamperRate,
                latency,
                giveUp,
                serverThreads);
    }

    public StormSettings withTimeout(Duration timeout) {
        return new StormSettings(
                clients,
                duration,
                seed,
                timeout,
                maxAttempts,
                doubleSendRate,
                redeliveryRate,
                tamperRate,
                latency,
                giveUp,
                serverThreads);
    }

    /** Shares of requests sent twice at once and delivered once more after their answer. */
    public StormSettings withDuplicateRates(double doubleSendRate, double redeliveryRate) {
        return new StormSettings(
                clients,
                duration,
                seed,
                timeout,
                maxAttempts,
                doubleSendRate,
                redeliveryRate,
                tamperRate,
                latency,
                giveUp,
                serverThreads);
    }

    private static void positive(Duration d, String field) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(field + " must be positive, was " + d);
        }
    }

    private static void rate(double r, String field) {
        if (!(r >= 0 && r <= 1)) {
            throw new IllegalArgumentException(field + " must be between 0 and 1, was " + r);
        }
    }
}
