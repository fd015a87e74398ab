package io.dupguard.spring.autoconfigure;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * Health of one dupguard store: a real round trip (a read of a probe key that never exists, or a
 * lookup of a random token), DOWN when it fails or takes longer than {@code dupguard.health.timeout}.
 */
public class DupguardHealthIndicator implements HealthIndicator {
    private final String store;
    private final Runnable probe;
    private final Duration timeout;
    /** Probes run here, so a hung store cannot hold the caller past the timeout. */
    private static final ExecutorService PROBES = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "dupguard-health");
        t.setDaemon(true);
        return t;
    });

    private final ExecutorService executor = PROBES;

    /**
     * A health indicator of one store.
     *
     * @param store the store's name, shown in the health details
     * @param probe one round trip to the store; throws when the store fails
     * @param timeout the longest a probe may take before DOWN; positive
     * @throws InvalidDupguardPropertyException if {@code timeout} is null or not positive ({@code
     *     dupguard.health.timeout})
     */
    public DupguardHealthIndicator(String store, Runnable probe, Duration timeout) {
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new InvalidDupguardPropertyException("dupguard.health.timeout", timeout, "must be positive");
        }
        this.store = store;
        this.probe = probe;
        this.timeout = timeout;
    }

    @Override
    public Health health() {
        long start = System.nanoTime();
        CompletableFuture<Void> call = CompletableFuture.runAsync(probe, executor);
        try {
            call.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return Health.up()
                    .withDetail("store", store)
                    .withDetail("roundTripMillis", (System.nanoTime() - start) / 1_000_000)
                    .build();
        } catch (TimeoutException e) {
            call.cancel(true);
            return Health.down()
                    .withDetail("store", store)
                    .withDetail("error", "no answer within " + timeout)
                    .build();
        } catch (ExecutionException e) {
            return Health.down(e.getCause()).withDetail("store", store).build();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Health.unknown().withDetail("store", store).build();
        }
    }
}
