package io.dupguard.jdbc;

import io.dupguard.internal.Checks;
import io.dupguard.internal.Tokens;
import io.dupguard.token.SubmitThrottle;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * {@link SubmitThrottle} in a SQL table, windows measured by the database clock (guarantee T3).
 *
 * <ol>
 *   <li>{@code UPDATE … SET window_end = now + window WHERE scope = ? AND subject = ? AND
 *       window_end <= now}: one row ⇒ the old window was over, this caller opens the next.
 *   <li>No row updated ⇒ insert the row; inserted ⇒ first submit ever; unique violation ⇒ another
 *       caller holds the current window.
 * </ol>
 *
 * Thread-safe.
 */
public final class JdbcSubmitThrottle implements SubmitThrottle {
    /** Default table name. */
    public static final String DEFAULT_TABLE = "dupguard_throttle";

    private final JdbcAccess access;

    private JdbcSubmitThrottle(JdbcAccess access) {
        this.access = access;
    }

    /**
     * A store in {@value #DEFAULT_TABLE} with the defaults; the table must exist (see {@link
     * JdbcStoreBuilder#createSchemaIfMissing}).
     *
     * @param dataSource the database; not null
     * @return a thread-safe throttle
     */
    public static JdbcSubmitThrottle create(DataSource dataSource) {
        return builder(dataSource).build();
    }

    /**
     * A store in {@code tableName}; shorthand for the builder.
     *
     * @param dataSource the database; not null
     * @param tableName the table; a plain SQL identifier
     * @param createSchemaIfMissing true to create the table if it does not exist
     * @return a thread-safe throttle
     */
    public static JdbcSubmitThrottle create(DataSource dataSource, String tableName, boolean createSchemaIfMissing) {
        return builder(dataSource)
                .tableName(tableName)
                .createSchemaIfMissing(createSchemaIfMissing)
                .build();
    }

    /**
     * A builder: table name, dialect and schema creation (off by default) can be set.
     *
     * @param dataSource the database; not null
     * @return a new builder
     */
    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    @Override
    public boolean tryAcquire(String scope, String subject, Duration window) {
        Tokens.checkScope(scope);
        Tokens.checkSubject(subject);
        long windowMillis = Checks.millis(Checks.positive(window, "window"));
        // Deadlock victims and serialization failures changed nothing and run again.
        return access.withConnectionRetryingTransient(
                "throttle " + scope,
                null,
                c -> {
                    SqlDialect d = access.dialect(c);
                    try (PreparedStatement ps = c.prepareStatement(
                            "UPDATE " + access.table() + " SET window_end = " + d.nowPlusMillisParam()
                                    + " WHERE scope = ? AND subject = ? AND window_end <= " + d.now())) {
                        ps.setLong(1, windowMillis);
                        ps.setString(2, scope);
                        JdbcText.bind(ps, 3, subject, d);
                        if (ps.executeUpdate() == 1) {
                            return true;
                        }
                    }
                    return insert(c, d, scope, subject, windowMillis);
                },
                JdbcSubmissionTokens.TRANSIENT_ATTEMPTS);
    }

    private boolean insert(Connection c, SqlDialect d, String scope, String subject, long windowMillis)
            throws SQLException {
        String sql = "INSERT INTO " + access.table() + " (scope, subject, window_end) VALUES (?, ?, "
                + d.nowPlusMillisParam() + ")";
        boolean mysql = d == SqlDialect.MYSQL;
        if (mysql) {
            sql = MysqlInsertIfAbsent.rewrite(sql, "scope");
        } else if (d.onConflictDoNothing()) {
            sql += " ON CONFLICT DO NOTHING";
        }
        try (PreparedStatement ps =
                mysql ? c.prepareStatement(sql, java.sql.Statement.RETURN_GENERATED_KEYS) : c.prepareStatement(sql)) {
            ps.setString(1, scope);
            JdbcText.bind(ps, 2, subject, d);
            ps.setLong(3, windowMillis);
            int rows = ps.executeUpdate();
            Boolean inserted = mysql ? MysqlInsertIfAbsent.inserted(ps) : null;
            return inserted != null ? inserted : rows == 1;
        } catch (SQLException e) {
            if (UniqueViolation.test(e)) {
                return false;
            }
            throw e;
        }
    }

    /** Builder; not thread-safe. */
    public static final class Builder extends JdbcStoreBuilder<Builder, JdbcSubmitThrottle> {
        private Builder(DataSource dataSource) {
            super(dataSource, DEFAULT_TABLE);
        }

        @Override
        public JdbcSubmitThrottle build() {
            return new JdbcSubmitThrottle(access());
        }
    }
}
