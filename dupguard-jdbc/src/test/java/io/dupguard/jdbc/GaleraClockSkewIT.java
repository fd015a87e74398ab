package io.dupguard.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.dupguard.test.ExpectedWarnings;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The Galera nodes' clocks against the JVM's (each node ends leases by its own {@code
 * UTC_TIMESTAMP}): a skew beyond {@link GaleraClock#WARN_SKEW} is warned about, shown here with an
 * offset injected into the JVM's clock against a real node.
 */
@Execution(ExecutionMode.CONCURRENT) // in the Galera lane: see Lanes
@ResourceLock(Lanes.GALERA)
class GaleraClockSkewIT {

    @Test
    void eachNodesClockAgreesWithTheJvmsWithinTheBound() throws Exception {
        for (String url : TestDatabases.galeraUrls()) {
            try (Connection c = DriverManager.getConnection(url)) {
                assertThat(GaleraClock.check(c, Clock.systemUTC())).as(url).isNull();
            }
        }
    }

    @Test
    @ExpectedWarnings("the skew warning, provoked with an offset clock")
    void aNodeWhoseClockRunsAheadIsWarnedAbout() throws Exception {
        Clock behind = Clock.offset(Clock.systemUTC(), Duration.ofSeconds(-5));
        Clock ahead = Clock.offset(Clock.systemUTC(), Duration.ofMillis(400));
        try (Connection c =
                DriverManager.getConnection(TestDatabases.galeraUrls().get(1))) {
            assertThat(GaleraClock.check(c, behind))
                    .contains("Galera node ")
                    .contains("s clock (UTC_TIMESTAMP) is ")
                    .contains("ahead of this JVM's")
                    .contains("more than 100 ms");
            assertThat(GaleraClock.check(c, ahead)).contains("behind this JVM's");
        }
    }
}
