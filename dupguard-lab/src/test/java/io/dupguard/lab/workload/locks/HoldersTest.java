package io.dupguard.lab.workload.locks;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Overlaps past a lease are expected; an overlap within one is a lock granted twice. */
class HoldersTest {
    private static final long LEASE = Duration.ofMillis(600).toNanos();

    @Test
    void enteringAfterTheOtherHoldersLeaseRanOutIsAnOverlapOnly() {
        Holders holders = new Holders(LEASE);
        Long stalled = holders.enter("res-01", System.nanoTime() - 2 * LEASE);

        holders.enter("res-01", System.nanoTime());

        assertThat(holders.overlaps()).isEqualTo(1);
        assertThat(holders.exclusionViolations()).isZero();
        holders.exit("res-01", stalled, true);
    }

    @Test
    void enteringWhileTheOtherHoldersLeaseMayStillRunIsAViolation() {
        Holders holders = new Holders(LEASE);
        holders.enter("res-01", System.nanoTime());

        holders.enter("res-01", System.nanoTime());

        assertThat(holders.overlaps()).isEqualTo(1);
        assertThat(holders.exclusionViolations()).isEqualTo(1);
    }

    @Test
    void holdersOfDifferentResourcesOrOneAfterAnotherDoNotOverlap() {
        Holders holders = new Holders(LEASE);
        Long first = holders.enter("res-01", System.nanoTime());
        holders.enter("res-02", System.nanoTime());
        holders.exit("res-01", first, true);

        holders.enter("res-01", System.nanoTime());

        assertThat(holders.overlaps()).isZero();
        assertThat(holders.exclusionViolations()).isZero();
    }

    @Test
    void aHolderThatDiedWithoutReleasingCountsAsInsideUntilItsLeaseRunsOut() {
        Holders holders = new Holders(LEASE);
        Long dead = holders.enter("res-01", System.nanoTime());
        holders.exit("res-01", dead, false);

        holders.enter("res-01", System.nanoTime());

        assertThat(holders.exclusionViolations()).isEqualTo(1);
    }

    @Test
    void aDeadHoldersLapsedLeaseLetsTheNextHolderInCleanly() {
        Holders holders = new Holders(LEASE);
        Long dead = holders.enter("res-01", System.nanoTime() - 2 * LEASE);
        holders.exit("res-01", dead, false);

        Long next = holders.enter("res-01", System.nanoTime());
        holders.exit("res-01", next, true);
        holders.enter("res-01", System.nanoTime());

        assertThat(holders.overlaps()).isZero();
        assertThat(holders.exclusionViolations()).isZero();
    }
}
