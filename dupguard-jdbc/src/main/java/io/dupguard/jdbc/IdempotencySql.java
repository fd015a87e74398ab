package io.dupguard.jdbc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The statements of {@link JdbcIdempotencyStore} for one dialect and table.
 *
 * <p>Two row layouts are supported. The current one (shipped DDL since issue 12) keeps two times:
 * {@code expires_at}, the exact end of the lease or of the retention, <b>not indexed</b>; and {@code
 * purge_after}, indexed, which only the purge reads: set by the claim to now + lease + the store's
 * typical retention, and raised (never lowered) by a completion whose retention reaches further. So
 * a completion, a renewal and the transactional completion change no indexed column — a HOT
 * update on PostgreSQL, no secondary-index write on InnoDB — and the purge still finds expired rows
 * through an index: {@code purge_after <= now AND expires_at <= now}. The legacy layout (tables
 * created by earlier versions: {@code expires_at} indexed, no {@code purge_after}) runs the same
 * statements without {@code purge_after}; see docs/idempotency.md, "Migrating the table".
 *
 * <p>On MySQL/MariaDB the current layout stores the fingerprint as its 32 bytes ({@code
 * VARBINARY(32)}, empty for none); a table from an earlier version keeps its 64 hex characters
 * ({@link #binaryFingerprint} false). The statements are the same; only the binding differs.
 */
final class IdempotencySql {
    static final String IN_PROGRESS = "P";

    private static final int ER_UNKNOWN_SYSTEM_VARIABLE = 1193;
    private static final Pattern MARIADB_VERSION = Pattern.compile("(\\d+)\\.(\\d+)\\.\\d+-MariaDB");

    final SqlDialect dialect;
    /** Whether the table has {@code purge_after} (the current layout); false for a legacy table. */
    final boolean purgeColumn;
    /** Whether the fingerprint column holds the hash's bytes (current MySQL/MariaDB layout) rather than hex text. */
    final boolean binaryFingerprint;

    /** Params: scope, key, fingerprint, owner, lease ms [, purge ms]. */
    final String insert;
    /**
     * Transactional mode, a result known before the work (a {@code Void} result): {@link #insert}
     * of the row already completed, carrying the claim's owner token. Params: scope, key,
     * fingerprint, owner, payload, retention ms [, purge ms].
     */
    final String insertDone;
    /**
     * MariaDB 10.5+ only, else null: the claim in one round trip. {@code INSERT … ON DUPLICATE KEY
     * UPDATE scope = scope RETURNING …} inserts the in-progress row or, on a duplicate, leaves the
     * existing row as it is and returns it, as {@code status, fingerprint, owner, payload, live}: the
     * new row carries the caller's owner token (unique per call), an existing one another. Params as
     * {@link #insert}.
     */
    final String insertReturning;
    /** {@link #insertReturning} of a completed row, as {@link #insertDone}; null where that is. */
    final String insertDoneReturning;
    /** Transactional mode: insert-if-absent of a finished row. Params: scope, key, status, fingerprint, payload, retention ms [, retention ms]. */
    final String insertFinished;

    final String selectRow;
    final String selectRowLocking;
    /** Params: fingerprint, owner, lease ms [, purge ms], scope, key. */
    final String takeover;
    /** {@link #takeover} into a completed row, as {@link #insertDone}. Params: fingerprint, owner, payload, retention ms [, purge ms], scope, key. */
    final String takeoverDone;
    /** A finished row replacing an expired one. Params: status, fingerprint, payload, retention ms [, retention ms], scope, key. */
    final String takeoverFinished;
    /**
     * Params: status, payload, retention ms [, retention ms], scope, key, owner. A row carrying an
     * owner token is that claim's: the token is unique per call, and cleared by the completion
     * (a completed row inserted by the transactional mode keeps it, and is still its claim's).
     */
    final String complete;
    /** Transactional mode: the completion leaves the expiry as the claim set it. Params: status, payload, scope, key, owner. */
    final String completeKeepingExpiry;

    final String release;
    /** Deletes the key's row if it has expired. */
    final String deleteExpired;

    /** Params: lease ms, scope, key, owner. */
    final String renew;

    final String findLive;
    final String purge;

    IdempotencySql(SqlDialect dialect, String table, boolean purgeColumn, boolean binaryFingerprint) {
        this(dialect, table, purgeColumn, binaryFingerprint, false);
    }

    /** {@code mariaDbReturning}: the MySQL dialect runs on MariaDB 10.5+ ({@code INSERT … RETURNING}). */
    IdempotencySql(
            SqlDialect dialect,
            String table,
            boolean purgeColumn,
            boolean binaryFingerprint,
            boolean mariaDbReturning) {
        this.dialect = dialect;
        this.purgeColumn = purgeColumn;
        this.binaryFingerprint = binaryFingerprint;
        String nowPlus = dialect.nowPlusMillisParam();
        String now = dialect.now();
        String byKey = " WHERE scope = ? AND idem_key = ?";
        String purgeCol = purgeColumn ? ", purge_after" : "";
        String purgeVal = purgeColumn ? ", " + nowPlus : "";
        // Raised only: an unchanged value leaves the update HOT / free of index writes.
        String purgeRaise = purgeColumn ? ", purge_after = GREATEST(purge_after, " + nowPlus + ")" : "";
        String insertSql = claimInsert(table, false, nowPlus, purgeCol, purgeVal);
        String insertDoneSql = claimInsert(table, true, nowPlus, purgeCol, purgeVal);
        this.insert = ifAbsent(dialect, insertSql);
        this.insertDone = ifAbsent(dialect, insertDoneSql);
        // PostgreSQL could answer in one round trip too (the insert in a data-modifying CTE unioned
        // with a read of the key), but that cost every fresh key about 15 % more server CPU than the
        // plain insert (measured in issue 12), so only MariaDB, where it is the same statement, uses it.
        String returning = " ON DUPLICATE KEY UPDATE scope = scope RETURNING status, fingerprint, owner, payload,"
                + " CASE WHEN expires_at > " + now + " THEN 1 ELSE 0 END";
        boolean withReturning = dialect == SqlDialect.MYSQL && mariaDbReturning;
        this.insertReturning = withReturning ? insertSql + returning : null;
        this.insertDoneReturning = withReturning ? insertDoneSql + returning : null;
        String insertFinishedSql = "INSERT INTO " + table
                + " (scope, idem_key, status, fingerprint, owner, payload, expires_at" + purgeCol + ")"
                + " VALUES (?, ?, ?, ?, NULL, ?, " + nowPlus + purgeVal + ")";
        // Written only after a read found no row, so a conflict means a concurrent call on the same
        // key: rare, and the transaction is rolled back then anyway. MySQL and H2 therefore use a
        // plain INSERT (a duplicate-key error, told apart from every other error) rather than the
        // dearer no-error form of the claim; PostgreSQL keeps ON CONFLICT, which is as cheap.
        this.insertFinished = dialect.onConflictDoNothing()
                ? insertFinishedSql + " ON CONFLICT (scope, idem_key) DO NOTHING"
                : insertFinishedSql;
        this.selectRow = "SELECT status, fingerprint, owner, payload, CASE WHEN expires_at > " + now
                + " THEN 1 ELSE 0 END FROM " + table + byKey;
        this.selectRowLocking = selectRow + dialect.lockingRead();
        // Guarded by expiry: of several callers racing to take over one expired row, one wins.
        this.takeover = "UPDATE " + table + " SET status = 'P', fingerprint = ?, owner = ?, payload = NULL,"
                + " expires_at = " + nowPlus + purgeRaise + byKey + " AND expires_at <= " + now;
        this.takeoverDone = "UPDATE " + table + " SET status = 'C', fingerprint = ?, owner = ?, payload = ?,"
                + " expires_at = " + nowPlus + purgeRaise + byKey + " AND expires_at <= " + now;
        this.takeoverFinished = "UPDATE " + table + " SET status = ?, fingerprint = ?, owner = NULL, payload = ?,"
                + " expires_at = " + nowPlus + purgeRaise + byKey + " AND expires_at <= " + now;
        this.complete = "UPDATE " + table + " SET status = ?, payload = ?, owner = NULL, expires_at = " + nowPlus
                + purgeRaise + byKey + " AND owner = ?";
        this.completeKeepingExpiry =
                "UPDATE " + table + " SET status = ?, payload = ?, owner = NULL" + byKey + " AND owner = ?";
        this.release = "DELETE FROM " + table + byKey + " AND owner = ?";
        this.deleteExpired = "DELETE FROM " + table + byKey + " AND expires_at <= " + now;
        this.renew = "UPDATE " + table + " SET expires_at = " + nowPlus + byKey
                + " AND status = 'P' AND owner = ? AND expires_at > " + now;
        this.findLive = "SELECT status, fingerprint, owner, payload FROM " + table + byKey + " AND expires_at > " + now;
        this.purge = dialect.deleteLimited(
                table, purgeColumn ? "purge_after <= " + now + " AND expires_at <= " + now : "expires_at <= " + now);
    }

    /**
     * The claim's insert: an in-progress row, or ({@code done}) a completed one with its payload.
     */
    private static String claimInsert(String table, boolean done, String nowPlus, String purgeCol, String purgeVal) {
        return "INSERT INTO " + table + " (scope, idem_key, status, fingerprint, owner" + (done ? ", payload" : "")
                + ", expires_at" + purgeCol + ") VALUES (?, ?, " + (done ? "'C'" : "'P'") + ", ?, ?"
                + (done ? ", ?" : "") + ", " + nowPlus + purgeVal + ")";
    }

    /** {@code insertSql} made insert-if-absent without an error for an existing key where the dialect needs it. */
    private static String ifAbsent(SqlDialect dialect, String insertSql) {
        return switch (dialect) {
            case POSTGRESQL -> insertSql + " ON CONFLICT (scope, idem_key) DO NOTHING";
            case MYSQL -> MysqlInsertIfAbsent.rewrite(insertSql, "scope");
            case H2 -> insertSql;
        };
    }

    /**
     * Whether {@code c} is MariaDB 10.5 or later, which has {@code INSERT … RETURNING} (MySQL has
     * not), and not a Galera node. The version is read from the server's version string, which
     * MariaDB's and MySQL's drivers both report ({@code 10.11.19-MariaDB-…}, or {@code
     * 5.5.5-10.11.19-MariaDB-…} through Connector/J).
     *
     * <p>A Galera node runs an autocommit statement that lost certification once more by itself
     * ({@code wsrep_retry_autocommit}), after the rows {@code RETURNING} produced the first time
     * have already gone to the client: a claim would read its own row, inserted by the run that was
     * rolled back, while the retry found another caller's. So on Galera the claim is the plain
     * insert (whose answer comes after the commit) and a read.
     */
    static boolean mariaDbReturning(Connection c, SqlDialect dialect) throws SQLException {
        return dialect == SqlDialect.MYSQL
                && mariaDbReturning(c.getMetaData().getDatabaseProductVersion())
                && !galera(c);
    }

    /** Whether {@code c} is a node of a Galera cluster ({@code wsrep_on}). */
    static boolean galera(Connection c) throws SQLException {
        try (Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT @@wsrep_on")) {
            return rs.next() && rs.getBoolean(1);
        } catch (SQLException e) {
            if (e.getErrorCode() == ER_UNKNOWN_SYSTEM_VARIABLE) {
                return false; // a server built without wsrep
            }
            throw e;
        }
    }

    /** Whether a server version string is MariaDB 10.5 or later. */
    static boolean mariaDbReturning(String productVersion) {
        Matcher m = MARIADB_VERSION.matcher(productVersion == null ? "" : productVersion);
        if (!m.find()) {
            return false;
        }
        int major = Integer.parseInt(m.group(1));
        int minor = Integer.parseInt(m.group(2));
        return major > 10 || (major == 10 && minor >= 5);
    }
}
