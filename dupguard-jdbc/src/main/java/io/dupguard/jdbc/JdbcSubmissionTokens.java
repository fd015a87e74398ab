package io.dupguard.jdbc;

import io.dupguard.internal.Checks;
import io.dupguard.internal.Tokens;
import io.dupguard.token.SubmissionTokens;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.HexFormat;
import javax.sql.DataSource;

/**
 * {@link SubmissionTokens} in a SQL table (SPEC T1).
 *
 * <ol>
 *   <li>Issue: insert {@code (scope, sha256(token), subject, expires_at = now + ttl)} — only the
 *       hash is stored, so a leaked table does not leak usable tokens.
 *   <li>Consume: {@code DELETE … WHERE scope = ? AND token_hash = ? AND subject = ? AND expires_at
 *       > now}; one deleted row ⇒ this caller is the first. The database serialises the deletes, so
 *       of any number of concurrent submits exactly one sees a row count of 1.
 * </ol>
 *
 * <p>Expiry uses the database clock; {@link #purgeExpired(int)} removes what expired unconsumed.
 * Thread-safe.
 */
public final class JdbcSubmissionTokens implements SubmissionTokens {
    /** Tries of a statement the database rolled back as a deadlock victim or serialization failure. */
    static final int TRANSIENT_ATTEMPTS = JdbcAccess.TRANSIENT_ATTEMPTS;

    /** Default table name. */
    public static final String DEFAULT_TABLE = "dupguard_tokens";

    private final JdbcAccess access;

    private JdbcSubmissionTokens(JdbcAccess access) {
        this.access = access;
    }

    /**
     * A store in {@value #DEFAULT_TABLE} with the defaults; the table must exist (see {@link
     * JdbcStoreBuilder#createSchemaIfMissing}).
     *
     * @param dataSource the database; not null
     * @return a thread-safe store
     */
    public static JdbcSubmissionTokens create(DataSource dataSource) {
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
    public static JdbcSubmissionTokens create(DataSource dataSource, String tableName, boolean createSchemaIfMissing) {
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
    public String issue(String scope, String subject, Duration ttl) {
        Tokens.checkScope(scope);
        Tokens.checkSubject(subject);
        long ttlMillis = Checks.millis(Checks.positive(ttl, "ttl"));
        String token = Tokens.newToken();
        access.withConnection("issue token", c -> {
            SqlDialect d = access.dialect(c);
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + access.table()
                    + " (scope, token_hash, subject, expires_at) VALUES (?, ?, ?, " + d.nowPlusMillisParam() + ")")) {
                ps.setString(1, scope);
                ps.setString(2, hash(token));
                JdbcText.bind(ps, 3, subject, d);
                ps.setLong(4, ttlMillis);
                return ps.executeUpdate();
            }
        });
        return token;
    }

    @Override
    public boolean consume(String scope, String subject, String token) {
        Tokens.checkScope(scope);
        Tokens.checkSubject(subject);
        if (!Tokens.wellFormed(token)) {
            return false;
        }
        // A deadlock victim (InnoDB picks one among concurrent deletes of the same row) deleted
        // nothing and may simply run again: still only one consume can delete the row.
        return access.withConnectionRetryingTransient(
                "consume token",
                null,
                c -> {
                    SqlDialect d = access.dialect(c);
                    try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + access.table()
                            + " WHERE scope = ? AND token_hash = ? AND subject = ? AND expires_at > " + d.now())) {
                        ps.setString(1, scope);
                        ps.setString(2, hash(token));
                        JdbcText.bind(ps, 3, subject, d);
                        return ps.executeUpdate() == 1;
                    }
                },
                TRANSIENT_ATTEMPTS);
    }

    /**
     * Deletes up to {@code batchSize} expired tokens; returns how many.
     *
     * @param batchSize the most rows to delete, at least 1
     * @return the number of tokens deleted
     */
    public int purgeExpired(int batchSize) {
        Checks.atLeast(batchSize, 1, "batchSize");
        return access.withConnection("purge tokens", c -> {
            SqlDialect d = access.dialect(c);
            try (PreparedStatement ps =
                    c.prepareStatement(d.deleteLimited(access.table(), "expires_at <= " + d.now()))) {
                ps.setInt(1, batchSize);
                return ps.executeUpdate();
            }
        });
    }

    private static String hash(String token) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.US_ASCII)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform must support SHA-256", e);
        }
    }

    /** Builder; not thread-safe. */
    public static final class Builder extends JdbcStoreBuilder<Builder, JdbcSubmissionTokens> {
        private Builder(DataSource dataSource) {
            super(dataSource, DEFAULT_TABLE);
        }

        @Override
        public JdbcSubmissionTokens build() {
            return new JdbcSubmissionTokens(access());
        }
    }
}
