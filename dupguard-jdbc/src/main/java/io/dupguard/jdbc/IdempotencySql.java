package io.dupguard.jdbc;

/** The statements of {@link JdbcIdempotencyStore} for one dialect and table. */
final class IdempotencySql {
    static final String IN_PROGRESS = "P";

    final SqlDialect dialect;
    final String insert;
    /** Transactional mode: insert-if-absent of a finished row, written once the work has run. */
    final String insertFinished;

    final String selectRow;
    final String selectRowLocking;
    final String takeover;
    /** A finished row replacing an expired one (a final failure recorded outside a rolled-back transaction). */
    final String takeoverFinished;

    final String complete;
    /** Transactional mode: the completion leaves {@code expires_at} as the claim set it. */
    final String completeKeepingExpiry;

    final String release;
    /** Deletes the key's row if it has expired. */
    final String deleteExpired;

    final String renew;
    final String findLive;
    final String purge;

    IdempotencySql(SqlDialect dialect, String table) {
        this.dialect = dialect;
        String nowPlus = dialect.nowPlusMillisParam();
        String now = dialect.now();
        String byKey = " WHERE scope = ? AND idem_key = ?";
        String insertSql = "INSERT INTO " + table + " (scope, idem_key, status, fingerprint, owner, expires_at)"
                + " VALUES (?, ?, 'P', ?, ?, " + nowPlus + ")";
        this.insert = switch (dialect) {
            case POSTGRESQL -> insertSql + " ON CONFLICT (scope, idem_key) DO NOTHING";
            case MYSQL -> MysqlInsertIfAbsent.rewrite(insertSql, "scope");
            case H2 -> insertSql;
        };
        String insertFinishedSql = "INSERT INTO " + table
                + " (scope, idem_key, status, fingerprint, owner, payload, expires_at)"
                + " VALUES (?, ?, ?, ?, NULL, ?, " + nowPlus + ")";
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
                + " expires_at = " + nowPlus + byKey + " AND expires_at <= " + now;
        this.takeoverFinished = "UPDATE " + table + " SET status = ?, fingerprint = ?, owner = NULL, payload = ?,"
                + " expires_at = " + nowPlus + byKey + " AND expires_at <= " + now;
        this.complete = "UPDATE " + table + " SET status = ?, payload = ?, owner = NULL, expires_at = " + nowPlus
                + byKey + " AND status = 'P' AND owner = ?";
        // No indexed column changes: a HOT update on PostgreSQL, no secondary-index write on InnoDB.
        this.completeKeepingExpiry = "UPDATE " + table + " SET status = ?, payload = ?, owner = NULL" + byKey
                + " AND status = 'P' AND owner = ?";
        this.release = "DELETE FROM " + table + byKey + " AND status = 'P' AND owner = ?";
        this.deleteExpired = "DELETE FROM " + table + byKey + " AND expires_at <= " + now;
        this.renew = "UPDATE " + table + " SET expires_at = " + nowPlus + byKey
                + " AND status = 'P' AND owner = ? AND expires_at > " + now;
        this.findLive = "SELECT status, fingerprint, owner, payload FROM " + table + byKey + " AND expires_at > " + now;
        this.purge = dialect.deleteLimited(table, "expires_at <= " + now);
    }
}
