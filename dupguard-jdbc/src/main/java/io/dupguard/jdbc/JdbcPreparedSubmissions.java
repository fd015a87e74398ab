package io.dupguard.jdbc;

import io.dupguard.idempotency.IdempotentWork;
import io.dupguard.idempotency.Outcome;
import io.dupguard.internal.Checks;
import io.dupguard.internal.Tokens;
import io.dupguard.token.PreparedSubmissions;
import io.dupguard.token.UnknownSubmissionException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * {@link PreparedSubmissions} in a SQL table (guarantee T2).
 *
 * <p>Commit, in one transaction:
 *
 * <ol>
 *   <li>{@code SELECT subject, business_id … WHERE pre_id = ? FOR UPDATE} — the row lock makes
 *       concurrent commits of one pre-id queue up.
 *   <li>No row, or another subject's ⇒ {@link UnknownSubmissionException}.
 *   <li>Already bound ⇒ return that business id ({@code REPLAYED}); the work does not run.
 *   <li>Otherwise run the work — with {@link #commit(String, String, SqlWork)} on the same
 *       connection, so the business row commits with the binding — then {@code UPDATE … SET
 *       business_id = ?}, commit, {@code FIRST}.
 * </ol>
 *
 * <p>On a Galera cluster the row lock holds only on its node: commits of one pre-id on two nodes
 * both run their work, and the one that certifies second is rolled back (error 1213). Such a
 * transient rollback runs the commit again, a bounded number of times, and it then returns the
 * winner's business id ({@code REPLAYED}).
 *
 * <p>{@link #purgeUnbound(Duration, int)} deletes pre-ids never committed (default retention 12 h,
 * database clock). Thread-safe.
 */
public final class JdbcPreparedSubmissions implements PreparedSubmissions {
    /** Default table name. */
    public static final String DEFAULT_TABLE = "dupguard_prepared";
    /** How long an unbound pre-id is kept by default. */
    public static final Duration DEFAULT_RETENTION = Duration.ofHours(12);

    private final JdbcAccess access;

    private JdbcPreparedSubmissions(JdbcAccess access) {
        this.access = access;
    }

    /**
     * A store in {@value #DEFAULT_TABLE} with the defaults; the table must exist (see {@link
     * JdbcStoreBuilder#createSchemaIfMissing}).
     *
     * @param dataSource the database; not null
     * @return a thread-safe store
     */
    public static JdbcPreparedSubmissions create(DataSource dataSource) {
        return builder(dataSource).build();
    }

    /**
     * A store in {@code tableName}; shorthand for the builder.
     *
     * @param dataSource the database; not null
     * @param tableName the table; a plain SQL identifier
     * @param createSchemaIfMissing true to create the table if it does not exist
     * @return a thread-safe store
     */
    public static JdbcPreparedSubmissions create(
            DataSource dataSource, String tableName, boolean createSchemaIfMissing) {
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
    public String prepare(String subject) {
        Tokens.checkSubject(subject);
        String preId = Tokens.newToken();
        access.withConnection("prepare", c -> {
            SqlDialect d = access.dialect(c);
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + access.table()
                    + " (pre_id, subject, created_at) VALUES (?, ?, " + d.now() + ")")) {
                ps.setString(1, preId);
                JdbcText.bind(ps, 2, subject, d);
                return ps.executeUpdate();
            }
        });
        return preId;
    }

    @Override
    public <E extends Exception> Outcome<String> commit(String subject, String preId, IdempotentWork<String, E> work)
            throws E {
        Objects.requireNonNull(work, "work");
        return commit(subject, preId, c -> work.call(), false);
    }

    /**
     * Like {@link #commit(String, String, IdempotentWork)}, with the work's SQL on the transaction's
     * connection: the business row and the binding commit or roll back together.
     *
     * @param <E> the checked exception {@code work} may throw
     * @param subject the subject the pre-id was prepared for; not null
     * @param preId the pre-id returned by {@link #prepare}; not null
     * @param work creates the business row on the given connection and returns its id; not null,
     *     run at most once per pre-id
     * @return the bound business id, and whether this call bound it ({@code FIRST}) or found it
     *     bound ({@code REPLAYED})
     * @throws E what {@code work} threw (then the transaction rolled back and nothing is bound)
     * @throws UnsupportedOperationException through ShardingSphere-JDBC, before the work runs: the
     *     binding row lives on the shard of its pre-id and the business row on its own, and
     *     ShardingSphere's local transactions commit shard by shard, so the two could commit apart
     *     (docs/scaling-sharding.md); use {@link #commit(String, String, IdempotentWork)} there
     */
    public <E extends Exception> Outcome<String> commit(String subject, String preId, SqlWork<String, E> work)
            throws E {
        return commit(subject, preId, work, true);
    }

    private <E extends Exception> Outcome<String> commit(
            String subject, String preId, SqlWork<String, E> work, boolean onTheConnection) throws E {
        Tokens.checkSubject(subject);
        Objects.requireNonNull(work, "work");
        if (!Tokens.wellFormed(preId)) {
            throw new UnknownSubmissionException();
        }
        return access.inTransactionRetryingTransient(
                "commit submission",
                c -> {
                    SqlDialect d = access.dialect(c);
                    if (onTheConnection && access.sharded()) {
                        throw new UnsupportedOperationException("commit(subject, preId, SqlWork) is not"
                                + " available through ShardingSphere-JDBC: the binding row (sharded by pre_id) and"
                                + " the business row the work writes are on different shards, and ShardingSphere"
                                + " commits a local transaction shard by shard, so one could commit without the"
                                + " other; use commit(subject, preId, IdempotentWork)");
                    }
                    String bound = lockRow(c, d, subject, preId);
                    if (bound != null) {
                        return Outcome.replayed(bound);
                    }
                    String id =
                            Objects.requireNonNull(JdbcAccess.callUser(work, c), "work must return the business id");
                    try (PreparedStatement ps =
                            c.prepareStatement("UPDATE " + access.table() + " SET business_id = ? WHERE pre_id = ?")) {
                        ps.setString(1, id);
                        ps.setString(2, preId);
                        ps.executeUpdate();
                    }
                    return Outcome.first(id);
                },
                JdbcAccess.TRANSIENT_ATTEMPTS);
    }

    private String lockRow(Connection c, SqlDialect d, String subject, String preId) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT subject, business_id FROM " + access.table() + " WHERE pre_id = ? FOR UPDATE")) {
            ps.setString(1, preId);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next() || !subject.equals(JdbcText.read(rs, 1, d))) {
                    throw new UnknownSubmissionException();
                }
                return rs.getString(2);
            }
        }
    }

    /**
     * Deletes up to {@code batchSize} unbound pre-ids older than {@code retention}; returns how
     * many.
     *
     * @param retention the age after which an unbound pre-id is deleted; not null, positive
     * @param batchSize the most rows to delete, at least 1
     * @return the number of pre-ids deleted
     */
    public int purgeUnbound(Duration retention, int batchSize) {
        long millis = Checks.millis(Checks.positive(retention, "retention"));
        Checks.atLeast(batchSize, 1, "batchSize");
        return access.withConnection("purge prepared", c -> {
            SqlDialect d = access.dialect(c);
            String where = "business_id IS NULL AND created_at < " + d.nowPlusMillisParam();
            try (PreparedStatement ps = c.prepareStatement(d.deleteLimited(access.table(), where))) {
                ps.setLong(1, -millis);
                ps.setInt(2, batchSize);
                return ps.executeUpdate();
            }
        });
    }

    /** Builder; not thread-safe. */
    public static final class Builder extends JdbcStoreBuilder<Builder, JdbcPreparedSubmissions> {
        private Builder(DataSource dataSource) {
            super(dataSource, DEFAULT_TABLE);
        }

        @Override
        public JdbcPreparedSubmissions build() {
            return new JdbcPreparedSubmissions(access());
        }
    }
}
