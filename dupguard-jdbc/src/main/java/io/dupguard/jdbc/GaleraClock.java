package io.dupguard.jdbc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Galera node's clock against the JVM's. On Galera every node judges a lease's end by its own
 * {@code UTC_TIMESTAMP(6)}: a node whose clock runs ahead of the node that wrote a lease ends it
 * early and lets a second holder in while the first still works. At a store's first use on a node
 * the skew is measured — the node's time against the midpoint of the JVM's clock around the
 * query — and a warning is logged when it exceeds {@link #WARN_SKEW} beyond the round trip's
 * uncertainty (docs/scaling.md, "Clocks").
 */
final class GaleraClock {
    private static final Logger LOG = LoggerFactory.getLogger(GaleraClock.class);

    /**
     * The skew that is warned about: a tenth of a one-second lease. Leases must be longer than the
     * skew between any two nodes by the holder's renewal margin.
     */
    static final Duration WARN_SKEW = Duration.ofMillis(100);

    private GaleraClock() {}

    /**
     * Measures the node's skew against {@code jvm} and logs a warning if it exceeds {@link
     * #WARN_SKEW}.
     *
     * @return the warning logged, or null
     */
    static String check(Connection c, Clock jvm) throws SQLException {
        Instant before = jvm.instant();
        Timestamp node;
        String host;
        try (Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT UTC_TIMESTAMP(6), @@hostname, @@port")) {
            rs.next();
            node = rs.getTimestamp(1, java.util.Calendar.getInstance(java.util.TimeZone.getTimeZone(ZoneOffset.UTC)));
            host = rs.getString(2) + ":" + rs.getInt(3);
        }
        Instant after = jvm.instant();
        Duration roundTrip = Duration.between(before, after);
        Instant mid = before.plus(roundTrip.dividedBy(2));
        Duration skew = Duration.between(mid, node.toInstant());
        if (skew.abs().minus(roundTrip.dividedBy(2)).compareTo(WARN_SKEW) <= 0) {
            return null;
        }
        String warning = "Galera node " + host + "'s clock (UTC_TIMESTAMP) is "
                + skew.abs().toMillis() + " ms "
                + (skew.isNegative() ? "behind" : "ahead of") + " this JVM's (round trip " + roundTrip.toMillis()
                + " ms), more than " + WARN_SKEW.toMillis() + " ms: each node ends leases by its own clock, so"
                + " a lease (lock, claim, retry task) shorter than the skew between two nodes plus the holder's"
                + " renewal margin can have two holders. Synchronise the nodes' clocks (NTP/chrony)";
        LOG.warn(warning);
        return warning;
    }
}
