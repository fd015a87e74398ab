package io.dupguard.jdbc;

import io.dupguard.internal.Checks;
import io.dupguard.internal.Tokens;
import io.dupguard.token.SubmissionTokens;
import io.dupguard.token.TokenRefusedException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * {@link SubmissionTokens} in a SQL table (guarantee T1).
 *
 * <ol>
 *   <li>Issue: insert {@code (scope, sha256(token), subject, expires_at = now + ttl)} — only the
 *       hash is stored, so a leaked table does not leak usable tokens.
 *   <li>Claim ({@link #execute execute}, {@link #claim claim}): {@code UPDATE … SET lease_owner = ?,
 *       lease_until = now + lease WHERE scope = ? AND token_hash = ? AND subject = ? AND expires_at >
 *       now AND (lease_until IS NULL OR lease_until <= now)}; one updated row ⇒ this caller holds the
 *       token. Complete deletes the row where {@code lease_owner} is the caller's, release clears the
 *       lease; a lease that runs out (a dead process) leaves the token usable again.
 *   <li>Consume in the caller's transaction ({@link #consume(Connection, String, String, String)},
 *       {@link #executeInTransaction}): the same delete as the one-call consume, on the connection
 *       that writes the business rows, so the token's deletion commits or rolls back with them —
 *       crash-safe without a lease. A concurrent duplicate's delete waits on the row lock, then
 *       finds the row gone (refused) or, after a rollback, takes it.
 *   <li>Consume in one call: {@code DELETE … WHERE scope = ? AND token_hash = ? AND subject = ? AND
 *       expires_at > now} and no lease holds; one deleted row ⇒ this caller is the first. <b>A
 *       failed attempt burns the token.</b>
 * </ol>
 *
 * <p>The database serialises the writes, so of any number of concurrent submits exactly one sees a
 * row count of 1. Expiry and leases use the database clock; {@link #purgeExpired(int)} removes what
 * expired unconsumed. A table created by an earlier build without the lease columns ({@code
 * lease_owner}, {@code lease_until}) gets them on first use when the store creates its schema;
 * otherwise the first call fails naming the statements to run. Thread-safe.
 */
public final class JdbcSubmissionTokens implements SubmissionTokens {
    /** Tries of a statement the database rolled back as a deadlock victim or serialization failure. */
    static final int TRANSIENT_ATTEMPTS = JdbcAccess.TRANSIENT_ATTEMPTS;

    /** Default table name. */
    public static final String DEFAULT_TABLE = "dupguard_tokens";

    /** The token is live and no lease holds it (the {@code now} of the dialect, twice). */
    private static final String FREE = " AND expires_at > %1$s AND (lease_until IS NULL OR lease_until <= %1$s)";

    private final JdbcAccess access;
    /** Set once the table is known to have the lease columns. */
    private volatile boolean layoutChecked;
    /** The dialect, once {@link #readyOutsideCaller()} prepared the store. */
    private volatile SqlDialect readyDialect;

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
            SqlDialect d = ready(c);
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
                "consume token", null, c -> delete(c, ready(c), scope, subject, token), TRANSIENT_ATTEMPTS);
    }

    /**
     * Consumes the token in the caller's open transaction on {@code connection}: its deletion
     * commits or rolls back with whatever else the transaction writes (the business rows of the
     * submit), so a failed or crashed attempt leaves the token usable, with no lease. True for
     * exactly one caller; false as {@link #consume(String, String, String)} says. A concurrent
     * duplicate in another transaction waits on the row lock until this transaction ends, then is
     * refused (committed) or gets the token (rolled back). The caller commits or rolls back; this
     * method never does. Use {@code READ COMMITTED} (the default of PostgreSQL; MySQL/MariaDB's
     * {@code REPEATABLE READ} works too, the delete reads the newest row).
     *
     * <p>The store's first call prepares its table (dialect, read-only check, lease columns) on a
     * connection of its own from the store's data source, outside the caller's transaction; when the
     * caller's connection comes from the same pool, the pool needs one more connection free at that
     * moment. Any earlier call of the store (an {@code issue} when the form is rendered) does it.
     *
     * @param connection the caller's connection, in a transaction (auto-commit off) to tie the token
     *     to the business rows; not null
     * @param scope the scope it was issued for; not null
     * @param subject the subject presenting it; not null
     * @param token the token as received; may be null or malformed (then false)
     * @return true if this transaction deleted the token
     * @throws io.dupguard.InvalidIdentifierException for a bad scope or subject
     * @throws io.dupguard.StoreUnavailableException the statement failed (the caller rolls back);
     *     also a duplicate that waited on the row lock longer than the database's lock timeout, or,
     *     under PostgreSQL's {@code REPEATABLE READ} / {@code SERIALIZABLE}, a serialization failure
     *     (SQLState 40001): the transaction that holds the token decides, a retry then sees it
     */
    public boolean consume(Connection connection, String scope, String subject, String token) {
        Objects.requireNonNull(connection, "connection");
        Tokens.checkScope(scope);
        Tokens.checkSubject(subject);
        if (!Tokens.wellFormed(token)) {
            return false;
        }
        SqlDialect d = readyOutsideCaller();
        try {
            return delete(connection, d, scope, subject, token);
        } catch (SQLException e) {
            throw access.failure("consume token", null, e);
        }
    }

    /**
     * Runs {@code work} and consumes the token in one transaction of this store's data source,
     * which it commits, or rolls back if anything throws: the token is deleted exactly when the
     * work's rows commit. A crash or failure at any point leaves the token usable for a retry. The
     * work must not commit, roll back or close the connection, and must keep to SQL on it: after a
     * rollback the database reports as transient (a deadlock, a serialization failure, a Galera
     * certification conflict) the whole transaction, the work included, runs again (up to 16
     * times).
     *
     * @param <T> the result type
     * @param <E> the checked exception {@code work} may throw
     * @param scope the scope it was issued for; not null
     * @param subject the subject presenting it; not null
     * @param token the token as received; may be null or malformed (then refused)
     * @param work the submit's SQL, on the transaction's connection; not null
     * @return what {@code work} returned
     * @throws TokenRefusedException the token is spent, in use, expired, unknown, another
     *     subject's or malformed; nothing was written
     * @throws io.dupguard.StoreUnavailableException the database could not be used (rolled back)
     * @throws E what {@code work} threw (rolled back: the token is usable again)
     */
    public <T, E extends Exception> T executeInTransaction(
            String scope, String subject, String token, SqlWork<T, E> work) throws E {
        Objects.requireNonNull(work, "work");
        Tokens.checkScope(scope);
        Tokens.checkSubject(subject);
        if (!Tokens.wellFormed(token)) {
            throw new TokenRefusedException();
        }
        SqlDialect d = readyOutsideCaller();
        // A deadlock victim rolled back everything, the work included, and may simply run again.
        return access.inTransactionRetryingTransient(
                "submit with token",
                c -> {
                    if (!delete(c, d, scope, subject, token)) {
                        throw new TokenRefusedException();
                    }
                    return JdbcAccess.callUser(work, c);
                },
                TRANSIENT_ATTEMPTS);
    }

    @Override
    public boolean tryLease(String scope, String subject, String token, String owner, Duration lease) {
        long leaseMillis = Tokens.checkClaim(scope, subject, owner, lease);
        if (!Tokens.wellFormed(token)) {
            return false;
        }
        return access.withConnectionRetryingTransient(
                "claim token",
                null,
                c -> {
                    SqlDialect d = ready(c);
                    try (PreparedStatement ps = c.prepareStatement("UPDATE " + access.table()
                            + " SET lease_owner = ?, lease_until = " + d.nowPlusMillisParam()
                            + " WHERE scope = ? AND token_hash = ? AND subject = ?" + FREE.formatted(d.now()))) {
                        ps.setString(1, owner);
                        ps.setLong(2, leaseMillis);
                        ps.setString(3, scope);
                        ps.setString(4, hash(token));
                        JdbcText.bind(ps, 5, subject, d);
                        return ps.executeUpdate() == 1;
                    }
                },
                TRANSIENT_ATTEMPTS);
    }

    @Override
    public boolean leased(String scope, String token) {
        if (!Tokens.wellFormed(token)) {
            return false;
        }
        return access.withConnection("read token lease", c -> {
            SqlDialect d = ready(c);
            try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM " + access.table()
                    + " WHERE scope = ? AND token_hash = ? AND lease_until > " + d.now())) {
                ps.setString(1, scope);
                ps.setString(2, hash(token));
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next();
                }
            }
        });
    }

    @Override
    public boolean renewLease(String scope, String token, String owner, Duration lease) {
        long leaseMillis = Checks.millis(Checks.positive(lease, "lease"));
        if (!Tokens.wellFormed(token)) {
            return false;
        }
        return access.withConnection("renew token lease", c -> {
            SqlDialect d = ready(c);
            try (PreparedStatement ps = c.prepareStatement("UPDATE " + access.table() + " SET lease_until = "
                    + d.nowPlusMillisParam() + " WHERE scope = ? AND token_hash = ? AND lease_owner = ?")) {
                ps.setLong(1, leaseMillis);
                ps.setString(2, scope);
                ps.setString(3, hash(token));
                ps.setString(4, owner);
                return ps.executeUpdate() == 1;
            }
        });
    }

    @Override
    public boolean completeLease(String scope, String token, String owner) {
        if (!Tokens.wellFormed(token)) {
            return false;
        }
        // The owner's work ran: the token is spent whoever holds it now (a taker that released it
        // must not let a third attempt run the work again). True if the lease was this owner's or
        // nobody's.
        String delete = "DELETE FROM " + access.table();
        return access.withConnectionRetryingTransient(
                "complete token",
                null,
                c -> {
                    ready(c);
                    if (keyedWrite(c, delete, " AND (lease_owner = ? OR lease_owner IS NULL)", scope, token, owner)) {
                        return true;
                    }
                    keyedWrite(c, delete, "", scope, token);
                    return false;
                },
                TRANSIENT_ATTEMPTS);
    }

    @Override
    public void releaseLease(String scope, String token, String owner) {
        if (Tokens.wellFormed(token)) {
            ownerWrite(
                    "release token",
                    "UPDATE " + access.table() + " SET lease_owner = NULL, lease_until = NULL",
                    scope,
                    token,
                    owner);
        }
    }

    private boolean ownerWrite(String operation, String write, String scope, String token, String owner) {
        return access.withConnectionRetryingTransient(
                operation,
                null,
                c -> {
                    ready(c);
                    return keyedWrite(c, write, " AND lease_owner = ?", scope, token, owner);
                },
                TRANSIENT_ATTEMPTS);
    }

    /** Runs {@code write} on the token's row ({@code condition} and its {@code more} values added); true if it changed one. */
    private boolean keyedWrite(Connection c, String write, String condition, String scope, String token, String... more)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(write + " WHERE scope = ? AND token_hash = ?" + condition)) {
            ps.setString(1, scope);
            ps.setString(2, hash(token));
            for (int i = 0; i < more.length; i++) {
                ps.setString(3 + i, more[i]);
            }
            return ps.executeUpdate() == 1;
        }
    }

    /** Deletes the token if it is live, this subject's and not leased; true if this call deleted it. */
    private boolean delete(Connection c, SqlDialect d, String scope, String subject, String token) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + access.table()
                + " WHERE scope = ? AND token_hash = ? AND subject = ?" + FREE.formatted(d.now()))) {
            ps.setString(1, scope);
            ps.setString(2, hash(token));
            JdbcText.bind(ps, 3, subject, d);
            return ps.executeUpdate() == 1;
        }
    }

    /** Detection, schema creation and the layout check on a pool connection, outside the caller's transaction. */
    private SqlDialect readyOutsideCaller() {
        SqlDialect d = readyDialect;
        if (d == null) {
            d = access.withConnection("prepare token table", this::ready);
            readyDialect = d;
        }
        return d;
    }

    /** The dialect, once the table is known to have the lease columns (adding them if the store creates its schema). */
    private SqlDialect ready(Connection c) throws SQLException {
        SqlDialect d = access.dialect(c);
        if (!layoutChecked) {
            checkLayout(c, d);
        }
        return d;
    }

    private synchronized void checkLayout(Connection c, SqlDialect d) throws SQLException {
        if (layoutChecked) {
            return;
        }
        String table = access.table();
        if (!TableLayout.exists(c, d, table)) {
            // No table at all: the statement that follows fails as a store failure, naming it;
            // checked again on the next call.
            return;
        }
        if (!TableLayout.hasColumn(c, d, table, "lease_owner") || !TableLayout.hasColumn(c, d, table, "lease_until")) {
            List<String> alter = leaseColumns(d, table);
            if (!access.createsSchema()) {
                throw new IllegalStateException("submission token table " + table
                        + " has no lease columns (the layout of an earlier build); add them: "
                        + String.join("; ", alter) + " — or build the store with createSchemaIfMissing(true)");
            }
            try (Statement st = c.createStatement()) {
                for (String ddl : alter) {
                    try {
                        st.execute(ddl);
                    } catch (SQLException e) {
                        // MySQL has no ADD COLUMN IF NOT EXISTS: another process may have added it.
                        if (d != SqlDialect.MYSQL || !TableLayout.hasColumn(c, d, table, ddl.split(" ")[5])) {
                            throw e;
                        }
                    }
                }
            }
            if (!c.getAutoCommit()) {
                c.commit();
            }
        }
        layoutChecked = true;
    }

    /** The statements adding the lease columns to a table of an earlier layout (idempotent). */
    static List<String> leaseColumns(SqlDialect d, String table) {
        String alter = "ALTER TABLE " + table + " ADD COLUMN IF NOT EXISTS ";
        return switch (d) {
            case POSTGRESQL ->
                List.of(alter + "lease_owner VARCHAR(64) COLLATE \"C\"", alter + "lease_until TIMESTAMPTZ");
            case MYSQL ->
                List.of(
                        "ALTER TABLE " + table
                                + " ADD COLUMN lease_owner VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NULL",
                        "ALTER TABLE " + table + " ADD COLUMN lease_until DATETIME(6) NULL");
            case H2 -> List.of(alter + "lease_owner VARCHAR(64)", alter + "lease_until TIMESTAMP(6) WITH TIME ZONE");
        };
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
            SqlDialect d = ready(c);
            // A leased token is kept until its lease ends, so its owner can still complete it.
            String expired =
                    "expires_at <= " + d.now() + " AND (lease_until IS NULL OR lease_until <= " + d.now() + ")";
            try (PreparedStatement ps = c.prepareStatement(d.deleteLimited(access.table(), expired))) {
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
