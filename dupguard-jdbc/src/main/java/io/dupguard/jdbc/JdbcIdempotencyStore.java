package io.dupguard.jdbc;

import io.dupguard.DupguardException;
import io.dupguard.LeaseLostException;
import io.dupguard.StoreUnavailableException;
import io.dupguard.idempotency.BatchCompletion;
import io.dupguard.idempotency.BatchEntry;
import io.dupguard.idempotency.Claim;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.IdempotencyConfig;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.IdempotencyRecord;
import io.dupguard.idempotency.IdempotencyStore;
import io.dupguard.idempotency.RecordStatus;
import io.dupguard.internal.Checks;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link IdempotencyStore} in a SQL table (H2, PostgreSQL, MySQL/MariaDB), one row per key with a
 * primary key on {@code (scope, idem_key)}.
 *
 * <p>Claim, in autocommit on a connection from the pool:
 *
 * <ol>
 *   <li>Insert an in-progress row ({@code ON CONFLICT DO NOTHING} on PostgreSQL; elsewhere a plain
 *       insert where only a unique violation means "exists" — guarantees K2, K5). Inserted ⇒ claimed.
 *   <li>Otherwise re-read the row with the database's own "is it live" verdict. Live ⇒ existing.
 *   <li>Expired ⇒ take it over with an update guarded by {@code expires_at <= now}; one racer wins.
 *   <li>Row gone (released between the steps, or invisible to a stale snapshot) ⇒ start again.
 * </ol>
 *
 * <p>A fresh key, the common case, costs one statement. On MariaDB 10.5+ a duplicate does too: the
 * insert is {@code INSERT … ON DUPLICATE KEY UPDATE scope = scope RETURNING …}, which answers with
 * the existing row (steps 1 and 2 in one round trip). (A PostgreSQL variant that inserted and
 * re-read in one data-modifying CTE saved a round trip per duplicate but cost every fresh key about
 * 15 % more server CPU than the plain insert, so the plain insert stays there, and on MySQL, which
 * has no {@code RETURNING}.) On a Galera node the claim is the insert and a read, as on MySQL: a
 * node runs an autocommit statement that lost certification again by itself, after {@code
 * RETURNING} has already answered from the run that was undone.
 *
 * <p>Expiry uses the database's clock ({@link SqlDialect}), never the application's. Complete,
 * release and renew are single statements guarded by {@code status = 'P' AND owner = ?}.
 *
 * <p>Every {@link SQLException} except a unique violation during the claim insert surfaces as
 * {@link StoreUnavailableException} naming the operation and SQLState — or, for a write the server
 * refuses as read-only, {@link io.dupguard.ReadOnlyStoreException}. Before its first statement the
 * store asks the server whether it takes writes and refuses a replica or standby (guarantee K7). The
 * dialect is detected on first use; the table can be created from the shipped DDL ({@link Builder#createSchemaIfMissing}).
 * For one transaction spanning claim, the caller's SQL and completion use {@link
 * JdbcTransactionalIdempotency}. Thread-safe.
 */
public final class JdbcIdempotencyStore implements IdempotencyStore {
    /** Default table name. */
    public static final String DEFAULT_TABLE = "dupguard_idempotency";

    private static final int MAX_CLAIM_ROUNDS = 100;

    private static final Logger LOG = LoggerFactory.getLogger(JdbcIdempotencyStore.class);
    private static final HexFormat HEX = HexFormat.of();

    private final JdbcAccess access;
    private final long typicalRetentionMillis;
    private volatile IdempotencySql sql;
    private final TransactionalSql lent = new Lent();
    private volatile JdbcBatchClaims batch;

    private JdbcIdempotencyStore(Builder b) {
        this.access = b.access();
        this.typicalRetentionMillis = b.typicalRetention.toMillis();
    }

    /**
     * A store on {@code dataSource} with the defaults (table {@value #DEFAULT_TABLE}, detected
     * dialect).
     *
     * @param dataSource the database; not null
     * @return a thread-safe store
     */
    public static JdbcIdempotencyStore create(DataSource dataSource) {
        return builder(dataSource).build();
    }

    /**
     * A builder: table name, dialect and schema creation (off by default) can be set.
     *
     * @param dataSource the application's data source
     * @return a new builder
     * @throws NullPointerException if {@code dataSource} is null
     */
    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    /**
     * MySQL/MariaDB only: the statement that gives an idempotency table the <em>surrogate-key
     * layout</em> — clustered by an {@code AUTO_INCREMENT id}, with {@code (scope, idem_key)} as a
     * unique secondary key — for tables that retain millions of keys. InnoDB clusters rows by the
     * primary key, and random idempotency keys then put every claim in a random page of a large
     * table; with the surrogate key the rows append and only the smaller unique key is random
     * (measured at 10 M keys: flat, against ×0.63 for the shipped layout; but 25 % slower on a
     * small table, and half the purge rate). The store's statements name only {@code (scope,
     * idem_key)} and run unchanged on either layout. dupguard never runs this itself: run it once,
     * on an empty or small table (it rebuilds the table).
     *
     * @param table the table's name, as given to {@link Builder#tableName(String)}
     * @return the {@code ALTER TABLE} statement
     * @throws IllegalArgumentException if {@code table} is not a plain SQL identifier
     */
    public static String mysqlSurrogateKeyLayout(String table) {
        return "ALTER TABLE " + SqlIdentifier.check(table, "table") + " DROP PRIMARY KEY,"
                + " ADD COLUMN id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY FIRST,"
                + " ADD UNIQUE KEY scope_idem_key (scope, idem_key)";
    }

    /**
     * The dialect in use, detecting it (and creating the table, if configured) on a pooled
     * connection the first time; later calls take no connection.
     *
     * @return the dialect; never null
     */
    public SqlDialect dialect() {
        // Once known, answered without a connection: a caller may already hold the pool's last one.
        IdempotencySql s = sql;
        return s != null ? s.dialect : withConnection("detect dialect", c -> sql(c).dialect);
    }

    @Override
    public Claim claim(IdempotencyKey key, Fingerprint fingerprint, String owner, Duration lease) {
        checkOwner(owner);
        long leaseMillis = Checks.millis(Checks.positive(lease, "lease"));
        return withConnection(
                "claim",
                key,
                c -> claim(c, false, key, fingerprint, owner, leaseMillis, purgeMillis(leaseMillis), false, null));
    }

    /**
     * The claim on {@code c}, steps as in the class description. {@code lockingRead}: the re-read of
     * an existing row locks it, so that it sees the newest committed version even in a transaction
     * that already holds a snapshot (REPEATABLE READ); otherwise the first re-read is plain and later
     * rounds lock. With {@code undoable} the claim should leave no lock behind once its savepoint is
     * rolled back. InnoDB releases the lock of an inserted row then, but not the locks a statement
     * took on an existing row (the insert's duplicate check, a locking read, a takeover), so on
     * MySQL/MariaDB an expired row of the key is first deleted in autocommit on a pool connection
     * and the key is then inserted afresh. (A row that expires between the two is taken over in
     * place; recording a final failure outside the transaction then waits for the database's lock
     * timeout and fails, leaving the key to expire.) With {@code donePayload} (transactional mode
     * only) the claim writes the row already completed with that payload, keeping the owner token.
     */
    private Claim claim(
            Connection c,
            boolean lockingRead,
            IdempotencyKey key,
            Fingerprint fp,
            String owner,
            long leaseMillis,
            long purgeMillis,
            boolean undoable,
            byte[] donePayload)
            throws SQLException {
        IdempotencySql s = sql(c);
        if (undoable && s.dialect == SqlDialect.MYSQL) {
            withConnection("delete expired", key, pooled -> {
                try (PreparedStatement ps = pooled.prepareStatement(s.deleteExpired)) {
                    bindKey(ps, 1, key, s);
                    return ps.executeUpdate();
                }
            });
        }
        for (int round = 0; round < MAX_CLAIM_ROUNDS; round++) {
            Row row;
            if (round == 0 && !undoable && s.insertReturning != null) {
                // MariaDB: one round trip, the insert answers with the key's row, ours (our owner
                // token) or the existing one. An existing row is read as the duplicate-key update
                // locked it, the newest committed version: it serves a locking re-read too.
                row = insertReturning(c, s, key, fp, owner, leaseMillis, purgeMillis, donePayload);
                if (row != null && owner.equals(row.owner)) {
                    return Claim.FRESH;
                }
            } else {
                if (tryInsert(c, s, key, fp, owner, leaseMillis, purgeMillis, donePayload)) {
                    return Claim.FRESH;
                }
                row = selectRow(c, lockingRead || round > 0 ? s.selectRowLocking : s.selectRow, key, true);
            }
            if (row == null) {
                continue;
            }
            if (row.live) {
                return new Claim.Existing(row.toRecord(key));
            }
            try (PreparedStatement ps = c.prepareStatement(donePayload == null ? s.takeover : s.takeoverDone)) {
                bindFingerprint(ps, 1, fp, s);
                int i = new JdbcBatchClaims.ClaimRow(owner, donePayload, leaseMillis, purgeMillis).bind(ps, 2, s);
                bindKey(ps, i, key, s);
                if (ps.executeUpdate() == 1) {
                    return Claim.TAKEOVER;
                }
            }
        }
        throw new StoreUnavailableException(
                access.storeName(), "claim of " + key + " did not settle after " + MAX_CLAIM_ROUNDS + " rounds", null);
    }

    private boolean insertFinished(
            Connection c, IdempotencyKey key, Fingerprint fp, RecordStatus status, byte[] payload, long retentionMillis)
            throws SQLException {
        IdempotencySql s = sql(c);
        try (PreparedStatement ps = c.prepareStatement(s.insertFinished)) {
            bindKey(ps, 1, key, s);
            ps.setString(3, status == RecordStatus.COMPLETED ? "C" : "F");
            bindFingerprint(ps, 4, fp, s);
            ps.setBytes(5, payload);
            ps.setLong(6, retentionMillis);
            if (s.purgeColumn) {
                ps.setLong(7, retentionMillis);
            }
            return ps.executeUpdate() == 1;
        } catch (SQLException e) {
            if (!s.dialect.onConflictDoNothing() && UniqueViolation.test(e)) {
                return false;
            }
            throw e;
        }
    }

    private boolean recordFinished(
            Connection c, IdempotencyKey key, Fingerprint fp, RecordStatus status, byte[] payload, long retentionMillis)
            throws SQLException {
        if (insertFinished(c, key, fp, status, payload, retentionMillis)) {
            return true;
        }
        IdempotencySql s = sql(c);
        try (PreparedStatement ps = c.prepareStatement(s.takeoverFinished)) {
            ps.setString(1, status == RecordStatus.COMPLETED ? "C" : "F");
            bindFingerprint(ps, 2, fp, s);
            ps.setBytes(3, payload);
            ps.setLong(4, retentionMillis);
            int i = 5;
            if (s.purgeColumn) {
                ps.setLong(i++, retentionMillis);
            }
            bindKey(ps, i, key, s);
            return ps.executeUpdate() == 1;
        }
    }

    private boolean tryInsert(
            Connection c,
            IdempotencySql s,
            IdempotencyKey key,
            Fingerprint fp,
            String owner,
            long leaseMillis,
            long purgeMillis,
            byte[] donePayload)
            throws SQLException {
        return insertIfAbsent(
                c,
                s,
                donePayload == null ? s.insert : s.insertDone,
                ps -> bindClaim(ps, s, key, fp, owner, leaseMillis, purgeMillis, donePayload),
                () -> {
                    // A driver that does not report the insert id: owner tokens are unique per call,
                    // so the row is ours exactly when it carries our token.
                    Row row = selectRow(c, s.selectRow, key, true);
                    return row != null && owner.equals(row.owner);
                });
    }

    @FunctionalInterface
    private interface Binder {
        void bind(PreparedStatement ps) throws SQLException;
    }

    @FunctionalInterface
    private interface InsertedCheck {
        boolean inserted() throws SQLException;
    }

    /**
     * Runs one of the dialect's insert-if-absent statements: true if it inserted, false if the key
     * existed (PostgreSQL: no row; MySQL: the insert id; H2: a unique violation, and only that).
     * {@code noInsertId} decides on MySQL when the driver reports no insert id.
     */
    private static boolean insertIfAbsent(
            Connection c, IdempotencySql s, String sql, Binder binder, InsertedCheck noInsertId) throws SQLException {
        boolean mysql = s.dialect == SqlDialect.MYSQL;
        try (PreparedStatement ps =
                mysql ? c.prepareStatement(sql, Statement.RETURN_GENERATED_KEYS) : c.prepareStatement(sql)) {
            binder.bind(ps);
            int rows = ps.executeUpdate();
            if (!mysql) {
                return rows == 1;
            }
            Boolean inserted = MysqlInsertIfAbsent.inserted(ps);
            return inserted != null ? inserted : noInsertId.inserted();
        } catch (SQLException e) {
            if (!s.dialect.onConflictDoNothing() && UniqueViolation.test(e)) {
                return false;
            }
            throw e;
        }
    }

    @Override
    public void complete(IdempotencyKey key, String owner, RecordStatus status, byte[] payload, Duration retention) {
        long retentionMillis = Checks.millis(Checks.positive(retention, "retention"));
        withConnection("complete", key, c -> {
            complete(c, key, owner, status, payload, retentionMillis, false);
            return null;
        });
    }

    /**
     * Completes the claim; with {@code keepExpiry} the row keeps the expiry its claim set (the
     * transactional mode claims with the retention, so the completion needs to touch no indexed
     * column) and {@code retentionMillis} is not used.
     */
    private void complete(
            Connection c,
            IdempotencyKey key,
            String owner,
            RecordStatus status,
            byte[] payload,
            long retentionMillis,
            boolean keepExpiry)
            throws SQLException {
        if (status == RecordStatus.IN_PROGRESS) {
            throw new IllegalArgumentException("complete needs COMPLETED or FAILED, was " + status);
        }
        IdempotencySql s = sql(c);
        try (PreparedStatement ps = c.prepareStatement(keepExpiry ? s.completeKeepingExpiry : s.complete)) {
            int i = 1;
            ps.setString(i++, status == RecordStatus.COMPLETED ? "C" : "F");
            ps.setBytes(i++, payload);
            if (!keepExpiry) {
                ps.setLong(i++, retentionMillis);
                if (s.purgeColumn) {
                    ps.setLong(i++, retentionMillis);
                }
            }
            bindKey(ps, i, key, s);
            ps.setString(i + 2, owner);
            if (ps.executeUpdate() != 1) {
                throw new LeaseLostException(key.toString(), "claim on " + key + " is no longer held by this caller");
            }
        }
    }

    /** One statement on PostgreSQL and MariaDB 10.5+, two on MySQL; H2 claims key by key ({@link JdbcBatchClaims}). */
    @Override
    public List<Claim> claimAll(List<BatchEntry> entries, String owner, Duration lease) {
        checkOwner(owner);
        long leaseMillis = Checks.millis(Checks.positive(lease, "lease"));
        long purgeMillis = purgeMillis(leaseMillis);
        JdbcBatchClaims.checkDistinct(entries);
        return withConnection(
                "claim batch",
                entries.size() + " keys",
                c -> claimAll(c, false, entries, owner, leaseMillis, purgeMillis, null));
    }

    /** One statement on PostgreSQL; one JDBC batch of the single-key completion elsewhere. */
    @Override
    public Set<IdempotencyKey> completeAll(List<BatchCompletion> completions, String owner, Duration retention) {
        long retentionMillis = Checks.millis(Checks.positive(retention, "retention"));
        if (completions.isEmpty()) {
            return Set.of();
        }
        return withConnection("complete batch", completions.size() + " keys", c -> batch(c).completeAll(
                        c, completions, owner, retentionMillis));
    }

    /** One statement on PostgreSQL; one JDBC batch of the single-key release elsewhere. */
    @Override
    public void releaseAll(List<IdempotencyKey> keys, String owner) {
        if (keys.isEmpty()) {
            return;
        }
        withConnection("release batch", keys.size() + " keys", c -> {
            batch(c).releaseAll(c, keys, owner);
            return null;
        });
    }

    private List<Claim> claimAll(
            Connection c,
            boolean lockingRead,
            List<BatchEntry> entries,
            String owner,
            long leaseMillis,
            long purgeMillis,
            byte[] donePayload)
            throws SQLException {
        return batch(c).claimAll(
                        c,
                        entries,
                        new JdbcBatchClaims.ClaimRow(owner, donePayload, leaseMillis, purgeMillis),
                        (key, fp) ->
                                claim(c, lockingRead, key, fp, owner, leaseMillis, purgeMillis, false, donePayload));
    }

    private JdbcBatchClaims batch(Connection c) throws SQLException {
        JdbcBatchClaims b = batch;
        if (b == null) {
            b = new JdbcBatchClaims(sql(c), access.table(), access.sharded());
            batch = b;
        }
        return b;
    }

    @Override
    public void release(IdempotencyKey key, String owner) {
        withConnection("release", key, c -> {
            release(c, key, owner);
            return null;
        });
    }

    private void release(Connection c, IdempotencyKey key, String owner) throws SQLException {
        IdempotencySql s = sql(c);
        try (PreparedStatement ps = c.prepareStatement(s.release)) {
            bindKey(ps, 1, key, s);
            ps.setString(3, owner);
            ps.executeUpdate();
        }
    }

    @Override
    public boolean renew(IdempotencyKey key, String owner, Duration lease) {
        long leaseMillis = Checks.millis(Checks.positive(lease, "lease"));
        return withConnection("renew", key, c -> renew(c, key, owner, leaseMillis));
    }

    private boolean renew(Connection c, IdempotencyKey key, String owner, long leaseMillis) throws SQLException {
        IdempotencySql s = sql(c);
        try (PreparedStatement ps = c.prepareStatement(s.renew)) {
            ps.setLong(1, leaseMillis);
            bindKey(ps, 2, key, s);
            ps.setString(4, owner);
            return ps.executeUpdate() == 1;
        }
    }

    @Override
    public Optional<IdempotencyRecord> find(IdempotencyKey key) {
        return withConnection("find", key, c -> find(c, key));
    }

    private Optional<IdempotencyRecord> find(Connection c, IdempotencyKey key) throws SQLException {
        Row row = selectRow(c, sql(c).findLive, key, false);
        return row == null ? Optional.empty() : Optional.of(row.toRecord(key));
    }

    /**
     * Deletes up to {@code batchSize} expired rows in one statement.
     *
     * @param batchSize the most rows to delete, at least 1
     * @return how many were deleted
     */
    public int purgeExpired(int batchSize) {
        Checks.atLeast(batchSize, 1, "batchSize");
        return withConnection("purge", c -> {
            try (PreparedStatement ps = c.prepareStatement(sql(c).purge)) {
                ps.setInt(1, batchSize);
                return ps.executeUpdate();
            }
        });
    }

    /**
     * Deletes expired rows in batches of {@code batchSize}, pausing {@code pause} between batches
     * so a large backlog does not load the database, until a batch comes back short.
     *
     * @param batchSize the most rows per delete statement, at least 1
     * @param pause the pause between batches; not null, zero or positive
     * @return how many were deleted
     */
    public long purgeAllExpired(int batchSize, Duration pause) {
        return PacedPurge.dutyCycle(1).plusPause(pause).drain(batchSize, this::purgeExpired);
    }

    /**
     * Reads the key's row. On PostgreSQL the read is planned at each execution ({@link
     * JdbcBatchClaims#planEachTime}): a plan the server cached while the table was empty (a new
     * deployment, a truncated table) reads it sequentially, and a pooled connection would keep it
     * after the table has grown — every duplicate's read would scan it.
     */
    private Row selectRow(Connection c, String query, IdempotencyKey key, boolean withLiveFlag) throws SQLException {
        IdempotencySql s = sql(c);
        try (PreparedStatement ps = c.prepareStatement(query)) {
            if (s.dialect == SqlDialect.POSTGRESQL) {
                JdbcBatchClaims.planEachTime(ps);
            }
            bindKey(ps, 1, key, s);
            try (ResultSet rs = ps.executeQuery()) {
                return readRow(rs, s, withLiveFlag);
            }
        }
    }

    /** {@link IdempotencySql#insertReturning}: the new row (our owner), the existing one, or null. */
    private Row insertReturning(
            Connection c,
            IdempotencySql s,
            IdempotencyKey key,
            Fingerprint fp,
            String owner,
            long leaseMillis,
            long purgeMillis,
            byte[] donePayload)
            throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement(donePayload == null ? s.insertReturning : s.insertDoneReturning)) {
            bindClaim(ps, s, key, fp, owner, leaseMillis, purgeMillis, donePayload);
            try (ResultSet rs = ps.executeQuery()) {
                return readRow(rs, s, true);
            }
        }
    }

    /**
     * The parameters of {@link IdempotencySql#insert} and {@link IdempotencySql#insertReturning}, or
     * with {@code donePayload} of their completed forms.
     */
    private static void bindClaim(
            PreparedStatement ps,
            IdempotencySql s,
            IdempotencyKey key,
            Fingerprint fp,
            String owner,
            long leaseMillis,
            long purgeMillis,
            byte[] donePayload)
            throws SQLException {
        bindKey(ps, 1, key, s);
        bindFingerprint(ps, 3, fp, s);
        new JdbcBatchClaims.ClaimRow(owner, donePayload, leaseMillis, purgeMillis).bind(ps, 4, s);
    }

    private static Row readRow(ResultSet rs, IdempotencySql s, boolean withLiveFlag) throws SQLException {
        if (!rs.next()) {
            return null;
        }
        return row(rs, s, withLiveFlag);
    }

    /** The result set's current row ({@code status, fingerprint, owner, payload, live, …}), or null if it has none (an outer join's empty side). */
    static Row readCurrentRow(ResultSet rs, IdempotencySql s) throws SQLException {
        return readCurrentRow(rs, 1, s);
    }

    /** {@link #readCurrentRow(ResultSet, IdempotencySql)} of the columns from {@code first}. */
    static Row readCurrentRow(ResultSet rs, int first, IdempotencySql s) throws SQLException {
        return rs.getString(first) == null ? null : row(rs, first, s, true);
    }

    private static Row row(ResultSet rs, IdempotencySql s, boolean withLiveFlag) throws SQLException {
        return row(rs, 1, s, withLiveFlag);
    }

    private static Row row(ResultSet rs, int first, IdempotencySql s, boolean withLiveFlag) throws SQLException {
        return new Row(
                rs.getString(first),
                s.binaryFingerprint ? HEX.formatHex(rs.getBytes(first + 1)) : rs.getString(first + 1),
                rs.getString(first + 2),
                rs.getBytes(first + 3),
                !withLiveFlag || rs.getInt(first + 4) == 1);
    }

    record Row(String status, String fingerprint, String owner, byte[] payload, boolean live) {
        IdempotencyRecord toRecord(IdempotencyKey key) {
            RecordStatus st =
                    switch (status.trim()) {
                        case "P" -> RecordStatus.IN_PROGRESS;
                        case "C" -> RecordStatus.COMPLETED;
                        case "F" -> RecordStatus.FAILED;
                        default -> throw new IllegalStateException("unknown status '" + status + "' for " + key);
                    };
            return new IdempotencyRecord(key, st, Fingerprint.ofHex(fingerprint), owner, payload);
        }
    }

    static void bindKey(PreparedStatement ps, int index, IdempotencyKey key, IdempotencySql s) throws SQLException {
        ps.setString(index, key.scope());
        JdbcText.bind(ps, index + 1, key.key(), s.dialect);
    }

    /** The fingerprint as the column holds it: the hash's bytes (MySQL/MariaDB layout), else hex text. */
    static void bindFingerprint(PreparedStatement ps, int index, Fingerprint fp, IdempotencySql s) throws SQLException {
        if (s.binaryFingerprint) {
            ps.setBytes(index, HEX.parseHex(fp.hex()));
        } else {
            ps.setString(index, fp.hex());
        }
    }

    private static void checkOwner(String owner) {
        Checks.text(owner, 64, "owner");
    }

    /** The purge column's offset for a claim: lease + typical retention, saturating. */
    private long purgeMillis(long leaseMillis) {
        long sum = leaseMillis + typicalRetentionMillis;
        return sum < 0 ? Long.MAX_VALUE : sum;
    }

    private IdempotencySql sql(Connection c) throws SQLException {
        IdempotencySql s = sql;
        if (s == null) {
            SqlDialect dialect = access.dialect(c);
            boolean purgeColumn = TableLayout.hasColumn(c, dialect, access.table(), "purge_after");
            if (!purgeColumn && TableLayout.exists(c, dialect, access.table())) {
                LOG.warn(
                        "dupguard idempotency table {} has the layout of an earlier version (no purge_after column):"
                                + " it works, but every completion rewrites the indexed expires_at. See"
                                + " docs/idempotency.md, \"Migrating the table\".",
                        access.table());
            }
            boolean binaryFingerprint = false;
            if (dialect == SqlDialect.MYSQL) {
                Integer type = TableLayout.columnType(c, dialect, access.table(), "fingerprint");
                binaryFingerprint = type == null || type == Types.VARBINARY || type == Types.BINARY;
                if (!binaryFingerprint) {
                    LOG.warn(
                            "dupguard idempotency table {} keeps fingerprints as hex text (an earlier version's"
                                    + " layout): it works, with a wider row than VARBINARY(32). See"
                                    + " docs/idempotency.md, \"Migrating the table\".",
                            access.table());
                }
            }
            DriverSettings.warnIfSlow(c, dialect);
            s = new IdempotencySql(
                    dialect,
                    access.table(),
                    purgeColumn,
                    binaryFingerprint,
                    IdempotencySql.mariaDbReturning(c, dialect));
            sql = s;
        }
        return s;
    }

    private <R> R withConnection(String operation, JdbcAccess.SqlFunction<R> fn) {
        return access.withConnectionRetryingTransient(operation, null, fn, JdbcAccess.TRANSIENT_ATTEMPTS);
    }

    private <R> R withConnection(String operation, Object subject, JdbcAccess.SqlFunction<R> fn) {
        return access.withConnectionRetryingTransient(operation, subject, fn, JdbcAccess.TRANSIENT_ATTEMPTS);
    }

    /** The statements this store lends to {@link JdbcTransactionalIdempotency}; its only seam. */
    TransactionalSql transactionalSql() {
        return lent;
    }

    /** {@link TransactionalSql} on this store's private statements. */
    private final class Lent implements TransactionalSql {
        @Override
        public DataSource dataSource() {
            return access.dataSource();
        }

        @Override
        public SqlDialect dialect(Connection c) throws SQLException {
            return sql(c).dialect;
        }

        @Override
        public DupguardException failure(String operation, Object subject, SQLException e) {
            return access.failure(operation, subject, e);
        }

        @Override
        public Found read(Connection c, IdempotencyKey key, Fingerprint fingerprint) throws SQLException {
            Row row = selectRow(c, sql(c).selectRow, key, true);
            return row == null ? null : new Found(row.toRecord(key), row.live);
        }

        @Override
        public Claim claim(
                Connection c,
                boolean lockingRead,
                IdempotencyKey key,
                Fingerprint fp,
                String owner,
                long retentionMillis,
                boolean undoable,
                byte[] donePayload)
                throws SQLException {
            return JdbcIdempotencyStore.this.claim(
                    c, lockingRead, key, fp, owner, retentionMillis, retentionMillis, undoable, donePayload);
        }

        @Override
        public boolean insertFinished(
                Connection c,
                IdempotencyKey key,
                Fingerprint fp,
                RecordStatus status,
                byte[] payload,
                long retentionMillis)
                throws SQLException {
            return JdbcIdempotencyStore.this.insertFinished(c, key, fp, status, payload, retentionMillis);
        }

        @Override
        public boolean recordFinished(
                Connection c,
                IdempotencyKey key,
                Fingerprint fp,
                RecordStatus status,
                byte[] payload,
                long retentionMillis)
                throws SQLException {
            return JdbcIdempotencyStore.this.recordFinished(c, key, fp, status, payload, retentionMillis);
        }

        @Override
        public boolean recordFinishedOnPool(
                IdempotencyKey key, Fingerprint fp, RecordStatus status, byte[] payload, long retentionMillis) {
            return access.inTransaction(
                    "record final failure of " + key,
                    c -> JdbcIdempotencyStore.this.recordFinished(c, key, fp, status, payload, retentionMillis));
        }

        @Override
        public void complete(
                Connection c,
                IdempotencyKey key,
                String owner,
                RecordStatus status,
                byte[] payload,
                long retentionMillis,
                boolean keepExpiry)
                throws SQLException {
            JdbcIdempotencyStore.this.complete(c, key, owner, status, payload, retentionMillis, keepExpiry);
        }

        @Override
        public void release(Connection c, IdempotencyKey key, String owner) throws SQLException {
            JdbcIdempotencyStore.this.release(c, key, owner);
        }

        @Override
        public boolean renew(Connection c, IdempotencyKey key, String owner, long leaseMillis) throws SQLException {
            return JdbcIdempotencyStore.this.renew(c, key, owner, leaseMillis);
        }

        @Override
        public Optional<IdempotencyRecord> find(Connection c, IdempotencyKey key) throws SQLException {
            return JdbcIdempotencyStore.this.find(c, key);
        }

        @Override
        public List<Claim> claimAll(
                Connection c, List<BatchEntry> entries, String owner, long retentionMillis, byte[] donePayload)
                throws SQLException {
            JdbcBatchClaims.checkDistinct(entries);
            return JdbcIdempotencyStore.this.claimAll(
                    c, true, entries, owner, retentionMillis, retentionMillis, donePayload);
        }

        @Override
        public Set<IdempotencyKey> completeAll(
                Connection c, List<BatchCompletion> completions, String owner, long retentionMillis)
                throws SQLException {
            return completions.isEmpty() ? Set.of() : batch(c).completeAll(c, completions, owner, retentionMillis);
        }

        @Override
        public void releaseAll(Connection c, List<IdempotencyKey> keys, String owner) throws SQLException {
            if (!keys.isEmpty()) {
                batch(c).releaseAll(c, keys, owner);
            }
        }
    }

    /** Builder; not thread-safe. */
    public static final class Builder extends JdbcStoreBuilder<Builder, JdbcIdempotencyStore> {
        /** The longest accepted {@link #typicalRetention}. */
        public static final Duration MAX_TYPICAL_RETENTION = Duration.ofDays(36_500);

        private Duration typicalRetention = IdempotencyConfig.DEFAULT_RETENTION;

        private Builder(DataSource dataSource) {
            super(dataSource, DEFAULT_TABLE);
        }

        /**
         * The retention most completions use (default {@link IdempotencyConfig#DEFAULT_RETENTION},
         * 24 h). A claim sets the row's purge time to now + lease + this, so that a completion with
         * a retention up to this (finishing within the lease) leaves every indexed column unchanged —
         * a HOT update on PostgreSQL, no secondary-index write on InnoDB. A longer retention moves
         * the purge time (one index write per completion); a shorter one only lets the purge remove
         * the row later than it could. Expiry itself is always exact.
         *
         * @param typicalRetention the retention most completions use; not null, positive
         * @return this builder
         * @throws IllegalArgumentException if not positive or longer than {@link #MAX_TYPICAL_RETENTION}
         */
        public Builder typicalRetention(Duration typicalRetention) {
            Checks.positive(typicalRetention, "typicalRetention");
            if (typicalRetention.compareTo(MAX_TYPICAL_RETENTION) > 0) {
                throw new IllegalArgumentException("typicalRetention must be at most " + MAX_TYPICAL_RETENTION.toDays()
                        + " days, was " + typicalRetention);
            }
            this.typicalRetention = typicalRetention;
            return this;
        }

        @Override
        public JdbcIdempotencyStore build() {
            return new JdbcIdempotencyStore(this);
        }
    }
}
