package io.dupguard.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.dupguard.idempotency.Claim;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.IdempotencyRecord;
import io.dupguard.idempotency.IdempotencyStore;
import java.time.Duration;

/**
 * Another caller taking a claim over while its holder runs, as after the holder's lease ran out: the
 * holder's completion is then refused ({@link io.dupguard.LeaseLostException}).
 */
public final class ClaimTakeover {
    private ClaimTakeover() {}

    /** Releases the live claim of {@code key} and claims it as {@code thief} for 5 minutes. */
    public static void takeOver(IdempotencyStore store, IdempotencyKey key, String thief) {
        IdempotencyRecord held = store.find(key).orElseThrow();
        store.release(key, held.owner());
        assertThat(store.claim(key, held.fingerprint(), thief, Duration.ofMinutes(5)))
                .isInstanceOf(Claim.Claimed.class);
    }

    /** The owner of {@code key}'s record; null without one. */
    public static String owner(IdempotencyStore store, IdempotencyKey key) {
        return store.find(key).map(IdempotencyRecord::owner).orElse(null);
    }
}
