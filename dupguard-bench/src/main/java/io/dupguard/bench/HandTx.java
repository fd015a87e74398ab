package io.dupguard.bench;

import io.dupguard.jdbc.SqlDialect;
import io.dupguard.jdbc.UniqueViolation;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransactionRollbackException;
import java.util.Arrays;
import java.util.HexFormat;
import javax.sql.DataSource;

/**
 * The two hand-written ceilings of the transactional mode (issue 12's two-ceiling treatment), the
 * way an expert dedups inside the caller's transaction, in the same steps as dupguard's default
 * (optimistic) claim so that only the table and the library differ:
 *
 * <ol>
 *   <li>read the key in autocommit: a live row ⇒ fingerprint check, replay, done;
 *   <li>else begin, the work, {@code INSERT} of the finished row (key, fingerprint, response,
 *       expiry) — on PostgreSQL {@code ON CONFLICT DO NOTHING}, elsewhere a plain insert whose
 *       duplicate-key error is caught — and commit;
 *   <li>no row inserted ⇒ roll back and read again (a concurrent call's row is committed by
 *       then); if still nothing live, an expired row is in the way: a guarded take-over in a
 *       transaction of its own. A deadlock (InnoDB, racing inserts) is rolled back and retried.
 * </ol>
 *
 * {@link Design#LEAN} uses its own minimal table (key, status, binary fingerprint, response,
 * expiry; no scope, no owner, no secondary index); {@link Design#SAME_TABLE} dupguard's table
 * (shipped DDL under another name) with scope, hex fingerprint and both expiry columns.
 */
final class HandTx implements BenchImpl {
    enum Design {
        LEAN,
        SAME_TABLE
    }

    static final String LEAN_TABLE = "bench_lean_tx";
    static final String SAME_TABLE = "bench_same_tx";

    private static final byte[] FINGERPRINT = HexFormat.of().parseHex(Bench.FINGERPRINT_HEX);
    private static final int MAX_ATTEMPTS = 10;

    private final DataSource ds;
    private final SqlDialect dialect;
    private final Design design;
    private final Lean.Truncate truncate;
    private final String select;
    private final String insert;
    private final String takeover;

    HandTx(DataSource ds, SqlDialect dialect, Design design, Lean.Truncate truncate) {
        this.ds = ds;
        this.dialect = dialect;
        this.design = design;
        this.truncate = truncate;
        String now = SqlTime.now(dialect);
        String plus = SqlTime.nowPlusMillis(dialect);
        boolean lean = design == Design.LEAN;
        String t = lean ? LEAN_TABLE : SAME_TABLE;
        String byKey = lean ? " WHERE idem_key = ?" : " WHERE scope = ? AND idem_key = ?";
        select = lean
                ? "SELECT fingerprint, response FROM " + t + byKey + " AND expires_at > " + now
                : "SELECT status, fingerprint, payload FROM " + t + byKey + " AND expires_at > " + now;
        String insertSql = lean
                ? "INSERT INTO " + t + " (idem_key, status, fingerprint, response, expires_at) VALUES (?, 'C', ?, ?, "
                        + plus + ")"
                : "INSERT INTO " + t
                        + " (scope, idem_key, status, fingerprint, owner, payload, expires_at, purge_after)"
                        + " VALUES (?, ?, 'C', ?, NULL, ?, " + plus + ", " + plus + ")";
        insert = dialect == SqlDialect.POSTGRESQL
                ? insertSql + (lean ? " ON CONFLICT DO NOTHING" : " ON CONFLICT (scope, idem_key) DO NOTHING")
                : insertSql;
        takeover = lean
                ? "UPDATE " + t + " SET status = 'C', fingerprint = ?, response = ?, expires_at = " + plus + byKey
                        + " AND expires_at <= " + now
                : "UPDATE " + t + " SET status = 'C', fingerprint = ?, owner = NULL, payload = ?, expires_at = " + plus
                        + ", purge_after = GREATEST(purge_after, " + plus + ")" + byKey + " AND expires_at <= " + now;
    }

    @Override
    public String name() {
        return design == Design.LEAN ? "hand-written lean tx" : "hand-written same-table tx";
    }

    @Override
    public Role role() {
        return design == Design.LEAN ? Role.CEILING_TX : Role.CEILING_TX_SAME_TABLE;
    }

    @Override
    public boolean answersInFlight() {
        return true; // a racing duplicate waits on the row lock of the uncommitted insert, then replays
    }

    @Override
    public String description() {
        String insertKind = dialect == SqlDialect.POSTGRESQL
                ? "INSERT … ON CONFLICT DO NOTHING"
                : "INSERT (duplicate = caught unique violation)";
        return (design == Design.LEAN
                        ? "its own minimal table (key, status, binary fingerprint, response, expiry; no scope, no"
                                + " owner, no secondary index)"
                        : "dupguard's table (shipped DDL)")
                + ", plain JDBC, one pool checkout: SELECT of the key in autocommit; if absent, setAutoCommit(false),"
                + " the work, " + insertKind + " of the finished row, COMMIT; duplicate = the SELECT alone";
    }

    @Override
    public boolean call(String key, long seq) throws SQLException {
        try (Connection c = ds.getConnection()) {
            boolean afterConflict = false;
            for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
                if (replayed(c, key)) {
                    return false;
                }
                c.setAutoCommit(false);
                try {
                    String value = Bench.response(seq); // the work, inside the transaction
                    byte[] response = value.getBytes(StandardCharsets.US_ASCII);
                    // An insert that conflicted and a re-read that found nothing live: an expired row
                    // is in the way, taken over in a transaction of its own (taking it in the one whose
                    // insert conflicted would upgrade InnoDB's shared lock: deadlocks under races).
                    if (write(c, afterConflict ? takeover : insert, key, response, !afterConflict)) {
                        c.commit();
                        Bench.consume(value);
                        return true;
                    }
                    c.rollback(); // a concurrent call holds or committed the key: read it again
                    afterConflict = !afterConflict;
                } catch (SQLTransactionRollbackException e) {
                    c.rollback(); // chosen as a deadlock victim by racing inserts: what an expert retries
                } catch (SQLException | RuntimeException e) {
                    c.rollback();
                    throw e;
                } finally {
                    c.setAutoCommit(true);
                }
            }
            throw new IllegalStateException("call on " + key + " did not settle");
        }
    }

    private boolean replayed(Connection c, String key) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(select)) {
            bindKey(ps, 1, key);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return false;
                }
                boolean sameFingerprint = design == Design.LEAN
                        ? Arrays.equals(FINGERPRINT, rs.getBytes(1))
                        : Bench.storeFingerprintMatches(rs, 2, dialect);
                if (!sameFingerprint) {
                    throw new IllegalStateException("fingerprint mismatch on " + key);
                }
                Bench.consume(new String(rs.getBytes(design == Design.LEAN ? 2 : 3), StandardCharsets.US_ASCII));
                return true;
            }
        }
    }

    /** The insert (key first) or the take-over (key last); true if it wrote the row. */
    private boolean write(Connection c, String sql, String key, byte[] response, boolean isInsert) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            int i = 1;
            if (isInsert) {
                i = bindKey(ps, i, key);
            }
            if (design == Design.LEAN) {
                ps.setBytes(i++, FINGERPRINT);
            } else {
                Bench.bindStoreFingerprint(ps, i++, dialect);
            }
            ps.setBytes(i++, response);
            ps.setLong(i++, SqlTarget.RETENTION_MILLIS);
            if (design == Design.SAME_TABLE) {
                ps.setLong(i++, SqlTarget.RETENTION_MILLIS);
            }
            if (!isInsert) {
                bindKey(ps, i, key);
            }
            return ps.executeUpdate() == 1;
        } catch (SQLException e) {
            if (isInsert && dialect != SqlDialect.POSTGRESQL && UniqueViolation.test(e)) {
                return false;
            }
            throw e;
        }
    }

    /** Binds the key (and on dupguard's table its scope first); returns the next parameter index. */
    private int bindKey(PreparedStatement ps, int i, String key) throws SQLException {
        if (design == Design.SAME_TABLE) {
            ps.setString(i++, Bench.SCOPE);
        }
        ps.setString(i++, key);
        return i;
    }

    @Override
    public void reset() throws SQLException {
        truncate.table(design == Design.LEAN ? LEAN_TABLE : SAME_TABLE);
    }
}
