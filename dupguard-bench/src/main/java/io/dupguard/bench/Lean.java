package io.dupguard.bench;

import io.dupguard.jdbc.SqlDialect;
import io.dupguard.jdbc.UniqueViolation;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.HexFormat;
import javax.sql.DataSource;

/**
 * The lean hand-written ceiling of issue 12: the idempotency table an expert would write by hand,
 * with nothing dupguard's contract adds. One key column (byte-exact), status, fingerprint (the
 * SHA-256, binary), the response and one expiry — no scope, no owner token, no secondary index
 * (so no purge by index either). One pool checkout, autocommit:
 *
 * <ul>
 *   <li>claim: {@code INSERT … ON CONFLICT DO NOTHING} (PostgreSQL), {@code INSERT IGNORE}
 *       (MariaDB), plain {@code INSERT} with the unique violation caught (H2);
 *   <li>inserted: the work, then {@code UPDATE} to completed with the response and the retention
 *       (guarded by {@code status = 'P'});
 *   <li>not inserted: re-read the row; completed ⇒ fingerprint check and the stored response; in
 *       progress ⇒ rejected as in flight; expired ⇒ taken over by a guarded {@code UPDATE}.
 * </ul>
 */
final class Lean implements BenchImpl {
    @FunctionalInterface
    interface Truncate {
        void table(String table) throws SQLException;
    }

    private static final byte[] FINGERPRINT = HexFormat.of().parseHex(Bench.FINGERPRINT_HEX);

    private final DataSource ds;
    private final SqlDialect dialect;
    private final Truncate truncate;
    private final String insert;
    private final String select;
    private final String takeover;
    private final String complete;

    Lean(DataSource ds, SqlDialect dialect, Truncate truncate) {
        this.ds = ds;
        this.dialect = dialect;
        this.truncate = truncate;
        String t = SqlTarget.LEAN_TABLE;
        String now;
        String plusMillis;
        switch (dialect) {
            case POSTGRESQL -> {
                now = "now()";
                plusMillis = "now() + ? * INTERVAL '1 millisecond'";
            }
            case MYSQL -> {
                now = "NOW(6)";
                plusMillis = "NOW(6) + INTERVAL ? * 1000 MICROSECOND";
            }
            default -> {
                now = "CURRENT_TIMESTAMP";
                plusMillis = "DATEADD(MILLISECOND, ?, CURRENT_TIMESTAMP)";
            }
        }
        String values = " (idem_key, status, fingerprint, expires_at) VALUES (?, 'P', ?, " + plusMillis + ")";
        insert = switch (dialect) {
            case POSTGRESQL -> "INSERT INTO " + t + values + " ON CONFLICT DO NOTHING";
            case MYSQL -> "INSERT IGNORE INTO " + t + values;
            case H2 -> "INSERT INTO " + t + values;
        };
        select = "SELECT status, fingerprint, response, CASE WHEN expires_at > " + now + " THEN 1 ELSE 0 END FROM " + t
                + " WHERE idem_key = ?";
        takeover = "UPDATE " + t + " SET status = 'P', fingerprint = ?, response = NULL, expires_at = " + plusMillis
                + " WHERE idem_key = ? AND expires_at <= " + now;
        complete = "UPDATE " + t + " SET status = 'C', response = ?, expires_at = " + plusMillis
                + " WHERE idem_key = ? AND status = 'P'";
    }

    /** Creates the lean table under the name {@code t} (the autocommit and the transactional rows each have one). */
    static void createTable(DataSource ds, SqlDialect dialect, String t) throws SQLException {
        String ddl =
                switch (dialect) {
                    case POSTGRESQL ->
                        "CREATE TABLE " + t + " (idem_key VARCHAR(255) COLLATE \"C\" PRIMARY KEY,"
                                + " status CHAR(1) NOT NULL, fingerprint BYTEA NOT NULL, response BYTEA,"
                                + " expires_at TIMESTAMPTZ NOT NULL)";
                    case MYSQL ->
                        "CREATE TABLE " + t + " (idem_key VARBINARY(255) NOT NULL PRIMARY KEY,"
                                + " status CHAR(1) CHARACTER SET ascii NOT NULL, fingerprint BINARY(32) NOT NULL,"
                                + " response BLOB, expires_at DATETIME(6) NOT NULL) ENGINE = InnoDB";
                    case H2 ->
                        "CREATE TABLE " + t + " (idem_key VARCHAR(255) PRIMARY KEY, status CHAR(1) NOT NULL,"
                                + " fingerprint VARBINARY(32) NOT NULL, response VARBINARY(65535),"
                                + " expires_at TIMESTAMP(6) WITH TIME ZONE NOT NULL)";
                };
        try (Connection c = ds.getConnection();
                Statement st = c.createStatement()) {
            st.execute(ddl);
        }
    }

    @Override
    public String name() {
        return "hand-written lean";
    }

    @Override
    public Role role() {
        return Role.CEILING;
    }

    @Override
    public boolean answersInFlight() {
        return true;
    }

    @Override
    public String description() {
        String claim =
                switch (dialect) {
                    case POSTGRESQL -> "INSERT … ON CONFLICT DO NOTHING";
                    case MYSQL -> "INSERT IGNORE";
                    case H2 -> "INSERT (duplicate = caught unique violation)";
                };
        return "its own minimal table (key, status, binary fingerprint, response, expiry; no scope, no owner, no"
                + " secondary index), plain JDBC, one pool checkout, autocommit: " + claim
                + " + UPDATE to completed with response and expiry; duplicate = the insert + SELECT, in flight ="
                + " rejected";
    }

    @Override
    public boolean call(String key, long seq) throws SQLException {
        try (Connection c = ds.getConnection()) {
            for (int round = 0; round < 10; round++) {
                if (insert(c, key)) {
                    return complete(c, key, seq);
                }
                try (PreparedStatement ps = c.prepareStatement(select)) {
                    ps.setString(1, key);
                    try (ResultSet rs = ps.executeQuery()) {
                        if (!rs.next()) {
                            continue; // gone between the statements: claim again
                        }
                        if (rs.getInt(4) == 1) { // live
                            if ("P".equals(rs.getString(1))) {
                                return false; // in flight: rejected
                            }
                            if (!Arrays.equals(FINGERPRINT, rs.getBytes(2))) {
                                throw new IllegalStateException("fingerprint mismatch on " + key);
                            }
                            Bench.consume(new String(rs.getBytes(3), StandardCharsets.US_ASCII));
                            return false;
                        }
                    }
                }
                try (PreparedStatement ps = c.prepareStatement(takeover)) {
                    ps.setBytes(1, FINGERPRINT);
                    ps.setLong(2, SqlTarget.LEASE_MILLIS);
                    ps.setString(3, key);
                    if (ps.executeUpdate() == 1) {
                        return complete(c, key, seq);
                    }
                }
            }
            throw new IllegalStateException("claim of " + key + " did not settle");
        }
    }

    /** The work, then the completing update. */
    private boolean complete(Connection c, String key, long seq) throws SQLException {
        String value = Bench.response(seq);
        try (PreparedStatement ps = c.prepareStatement(complete)) {
            ps.setBytes(1, value.getBytes(StandardCharsets.US_ASCII));
            ps.setLong(2, SqlTarget.RETENTION_MILLIS);
            ps.setString(3, key);
            if (ps.executeUpdate() != 1) {
                throw new IllegalStateException("lost claim on " + key);
            }
        }
        Bench.consume(value);
        return true;
    }

    private boolean insert(Connection c, String key) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(insert)) {
            ps.setString(1, key);
            ps.setBytes(2, FINGERPRINT);
            ps.setLong(3, SqlTarget.LEASE_MILLIS);
            return ps.executeUpdate() == 1;
        } catch (SQLException e) {
            if (dialect == SqlDialect.H2 && UniqueViolation.test(e)) {
                return false;
            }
            throw e;
        }
    }

    @Override
    public void reset() throws SQLException {
        truncate.table(SqlTarget.LEAN_TABLE);
    }
}
