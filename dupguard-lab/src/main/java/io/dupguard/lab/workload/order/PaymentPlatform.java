package io.dupguard.lab.workload.order;

import io.dupguard.lab.env.LabEnvironment;
import io.dupguard.lab.env.LabSql;
import io.dupguard.lab.storm.Service;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * The simulated payment platform: every charge call that gets through is a row in its ledger —
 * the platform does not deduplicate, so calling it twice charges twice. It is slow (the attempt's
 * injected latency), fails as each order's {@link PlatformScript} says on the first call, and can
 * be asked whether it charged an order (the query API a careful caller uses after a timeout).
 */
final class PaymentPlatform {
    /** One charge, as the checker reads it. */
    record Charge(long chargeId, String orderId, long amountCents, long createdAtMillis) {}

    final String ledger;
    private final DataSource dataSource;
    private final ConcurrentHashMap<String, AtomicInteger> calls = new ConcurrentHashMap<>();

    PaymentPlatform(LabEnvironment env, String ledger) throws SQLException {
        this.ledger = ledger;
        this.dataSource = env.dataSource();
        LabSql sql = env.sql();
        LabSql.recreate(
                dataSource,
                new String[] {ledger},
                "CREATE TABLE " + ledger + " (charge_id " + sql.identity() + ", order_id " + sql.key(64)
                        + ", amount_cents BIGINT NOT NULL, created_at " + sql.createdAt() + ")",
                "CREATE INDEX " + ledger + "_order ON " + ledger + " (order_id)");
    }

    /** Charges {@code p.amountCents()} for {@code p.orderId()} and returns the charge id. */
    long charge(Pay p, Service service) throws PlatformException, SQLException {
        service.pause();
        int call = calls.computeIfAbsent(p.orderId(), k -> new AtomicInteger()).getAndIncrement();
        PlatformScript script = call == 0 || p.script() == PlatformScript.DECLINED ? p.script() : PlatformScript.OK;
        switch (script) {
            case TIMEOUT_AFTER_CHARGE -> {
                insert(p);
                throw new PlatformException("platform timed out", true);
            }
            case TIMEOUT_BEFORE_CHARGE -> throw new PlatformException("platform timed out", true);
            case BUSY -> throw new PlatformException("platform busy", true);
            case DECLINED -> throw new PlatformException("declined", false);
            default -> {
                return insert(p);
            }
        }
    }

    /** The platform's answer to "did you charge this order?": its first charge id, if any. */
    OptionalLong find(String orderId) throws SQLException {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(
                        "SELECT charge_id FROM " + ledger + " WHERE order_id = ? ORDER BY charge_id LIMIT 1")) {
            ps.setString(1, orderId);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? OptionalLong.of(rs.getLong(1)) : OptionalLong.empty();
            }
        }
    }

    private long insert(Pay p) throws SQLException {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(
                        "INSERT INTO " + ledger + " (order_id, amount_cents) VALUES (?, ?)",
                        Statement.RETURN_GENERATED_KEYS)) {
            ps.setString(1, p.orderId());
            ps.setLong(2, p.amountCents());
            ps.executeUpdate();
            try (ResultSet keys = ps.getGeneratedKeys()) {
                if (!keys.next()) {
                    throw new SQLException("no charge id for " + p.orderId());
                }
                return keys.getLong(1);
            }
        }
    }

    /** The whole ledger, by charge id. */
    List<Charge> charges() throws SQLException {
        List<Charge> out = new ArrayList<>();
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(
                        "SELECT charge_id, order_id, amount_cents, created_at FROM " + ledger + " ORDER BY charge_id");
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(new Charge(
                        rs.getLong(1),
                        rs.getString(2),
                        rs.getLong(3),
                        rs.getTimestamp(4).getTime()));
            }
        }
        return out;
    }
}
