package io.dupguard.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * "At most one unfinished task of this kind" without a business id (guarantee O6: same
 * day + region + type while one is unfinished). A check-then-insert alone races, so the check runs
 * while holding a row lock on a guard row for the kind:
 *
 * <ol>
 *   <li>Make sure the guard row {@code kind} exists (insert-if-absent, its own tiny transaction).
 *   <li>In the caller's transaction: {@code SELECT … FOR UPDATE} the guard row — concurrent callers
 *       of the same kind queue here until the holder commits.
 *   <li>Run the caller's "is one unfinished?" query (on the primary, K7); none ⇒ run the insert.
 * </ol>
 *
 * <p>The caller's query must see rows committed before the lock was granted: under READ COMMITTED
 * (PostgreSQL's default) it does; under MySQL/MariaDB's REPEATABLE READ call this before any other
 * plain read in the transaction, or use a locking read. Thread-safe.
 */
public final class UnfinishedGuard {
    /** Default guard table. */
    public static final String DEFAULT_TABLE = "dupguard_guards";

    private final JdbcAccess access;

    private UnfinishedGuard(JdbcAccess access) {
        this.access = access;
    }

    /**
     * A guard on {@value #DEFAULT_TABLE} with the defaults; the table must exist (see {@link
     * JdbcStoreBuilder#createSchemaIfMissing}).
     *
     * @param dataSource where the guard table is
     * @return the guard, thread-safe
     */
    public static UnfinishedGuard create(DataSource dataSource) {
        return builder(dataSource).build();
    }

    /**
     * A builder: table name, dialect and schema creation (off by default) can be set.
     *
     * @param dataSource where the guard table is
     * @return a new builder
     */
    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    /** The caller's check for an unfinished task of the kind. */
    @FunctionalInterface
    public interface SqlCheck {
        /**
         * Whether an unfinished task of the kind exists.
         *
         * @param c the caller's connection, holding the guard row's lock
         * @return true if one is unfinished
         * @throws SQLException if the query fails
         */
        boolean test(Connection c) throws SQLException;
    }

    /**
     * Inserts via {@code insert} unless {@code unfinishedExists} finds one, serialised per {@code
     * kind}, inside the transaction of {@code c} (autocommit off; the caller commits).
     *
     * @param <T> the insert's result type
     * @param <E> the checked exception {@code insert} may throw
     * @param c the caller's connection with autocommit off; not null, not committed here
     * @param kind the kind of task, the unit of serialisation; 1–255 characters, not null
     * @param unfinishedExists tells whether an unfinished task of the kind exists; not null
     * @param insert inserts the new task on {@code c}; not null
     * @return the insert's result, or empty if an unfinished task of the kind exists
     * @throws SQLException if a statement fails
     * @throws E what {@code insert} threw
     * @throws io.dupguard.InvalidIdentifierException if {@code kind} is null, blank, too long or has
     *     control characters
     */
    public <T, E extends Exception> Optional<T> insertIfNoneUnfinished(
            Connection c, String kind, SqlCheck unfinishedExists, SqlWork<T, E> insert) throws SQLException, E {
        io.dupguard.internal.Checks.text(kind, 255, "kind");
        if (c.getAutoCommit()) {
            throw new IllegalStateException(
                    "the guard needs a connection with autocommit off; the caller owns the transaction");
        }
        ensureGuardRow(kind);
        try (PreparedStatement ps =
                c.prepareStatement("SELECT guard_key FROM " + access.table() + " WHERE guard_key = ? FOR UPDATE")) {
            JdbcText.bind(ps, 1, kind, access.dialect(c));
            ps.executeQuery().close();
        }
        if (unfinishedExists.test(c)) {
            return Optional.empty();
        }
        return Optional.ofNullable(insert.apply(c));
    }

    private void ensureGuardRow(String kind) {
        access.withConnection("guard row " + kind, c -> {
            SqlDialect d = access.dialect(c);
            String insert = "INSERT INTO " + access.table() + " (guard_key) VALUES (?)";
            // Through ShardingSphere the key is the sharding value and must be a plain parameter:
            // the rewrite wraps it in IF(…), which it cannot route; the existing row is then a
            // unique violation, caught below (docs/scaling-sharding.md).
            String sql = d == SqlDialect.MYSQL
                    ? access.sharded() ? insert : MysqlInsertIfAbsent.rewrite(insert, "guard_key")
                    : insert + (d.onConflictDoNothing() ? " ON CONFLICT DO NOTHING" : "");
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                JdbcText.bind(ps, 1, kind, d);
                return ps.executeUpdate();
            } catch (SQLException e) {
                if (UniqueViolation.test(e)) {
                    return 0;
                }
                throw e;
            }
        });
    }

    /** Builder; not thread-safe. */
    public static final class Builder extends JdbcStoreBuilder<Builder, UnfinishedGuard> {
        private Builder(DataSource dataSource) {
            super(dataSource, DEFAULT_TABLE);
        }

        @Override
        public UnfinishedGuard build() {
            return new UnfinishedGuard(access());
        }
    }
}
