package io.dupguard.jdbc;

import io.dupguard.DupguardException;
import io.dupguard.StoreUnavailableException;
import io.dupguard.idempotency.BatchCompletion;
import io.dupguard.idempotency.BatchEntry;
import io.dupguard.idempotency.Claim;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.IdempotencyRecord;
import io.dupguard.idempotency.RecordStatus;
import io.dupguard.internal.Checks;
import io.dupguard.internal.KeyOrder;
import io.dupguard.internal.Maps;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;

/**
 * The processed-messages table: the lean layout of a message listener's dedup <em>in the
 * listener's transaction</em>, as a team would write it by hand — one row per message holding its
 * key, a compact fingerprint and its expiry, inserted in the transaction that writes the message's
 * effect. Used through {@link JdbcTransactionalIdempotency#of(JdbcProcessedMessages,
 * io.dupguard.idempotency.IdempotencyConfig)} for calls whose result type is {@code Void}.
 *
 * <pre>{@code
 * JdbcProcessedMessages processed = JdbcProcessedMessages.builder(dataSource).build();
 * JdbcTransactionalIdempotency dedup = JdbcTransactionalIdempotency.of(processed, config);
 * dedup.executeBatch(connection, entries, Void.class, (claimed, progress) -> { ... });
 * }</pre>
 *
 * <p><b>What the row leaves out, and why it may.</b> The full layout ({@link JdbcIdempotencyStore})
 * keeps a status, an owner token, the result and a purge index so that a key can be seen <em>in
 * flight</em> by other callers, completed after its work and replayed with its result. Here a row
 * is only ever visible committed together with the message's effect: an uncommitted row is
 * invisible, and a concurrent duplicate's insert waits on its lock until the first transaction
 * ends (then finds it, or inserts it after a rollback). So a row means "processed", and there is
 * nothing else to store. What this layout cannot do, the executor refuses when it is built or
 * called: a result other than {@code Void}, a failure policy that stores failures, and the
 * autocommit (store) mode, which needs in-flight rows.
 *
 * <p><b>The fingerprint</b> is the first 8 bytes of the payload's SHA-256 ({@code BIGINT}), enough
 * to tell a key reused with another payload (a 2<sup>-64</sup> chance of missing one) — a
 * {@link io.dupguard.idempotency.PayloadMismatchException}, as with the full layout. With {@link
 * Builder#fingerprints(boolean) fingerprints(false)} the column stays NULL: 8 bytes less per row,
 * and a reused key with another payload is taken as a duplicate and skipped silently.
 *
 * <p><b>Statements.</b> On PostgreSQL a message and a poll cost one statement each, duplicates
 * included: an insert (from {@code unnest} arrays for a poll) whose {@code ON CONFLICT DO UPDATE}
 * rewrites only an expired row (taken over) or a live one with another fingerprint (kept as it was,
 * and returned to be refused). A key it does not return is a duplicate, with nothing read back; its
 * row stays locked until the transaction ends. On MariaDB 10.5+ a message or a poll is one
 * multi-row {@code INSERT … ON DUPLICATE KEY UPDATE … RETURNING} answering every key with its row.
 * MySQL without {@code RETURNING} uses {@code INSERT IGNORE} — safe here because every value is
 * bound by this class and checked first, so no error but the duplicate key can be turned into a
 * warning — and H2 a plain insert whose unique violation means "exists", each followed by a read
 * of a duplicate's row; they and ShardingSphere-JDBC claim key by key on the one connection. An
 * expired row is taken over in place.
 *
 * <p><b>Purge.</b> {@link #purgeExpired(int)}: on PostgreSQL through a BRIN index on the expiry
 * (rows arrive in expiry order, so the index is a few pages per million rows); on MySQL/MariaDB
 * and H2 the table has no secondary index, and the purge walks the primary key from where its last
 * batch ended, reading the table once per pass.
 *
 * <p>The table ({@value #DEFAULT_TABLE} by default) is in the shipped DDL, {@code
 * io/dupguard/jdbc/schema/<dialect>.sql}. Thread-safe.
 */
public final class JdbcProcessedMessages {
    /** The default table name. */
    public static final String DEFAULT_TABLE = "dupguard_processed";

    private final JdbcAccess access;
    private final boolean fingerprints;
    private volatile Statements sql;
    /** Where the keyset purge (MySQL, H2) goes on: the last key it read, or null to start over. */
    private final AtomicReference<IdempotencyKey> purgeCursor = new AtomicReference<>();

    private JdbcProcessedMessages(Builder b) {
        this.access = b.access();
        this.fingerprints = b.fingerprints;
    }

    /**
     * A table of processed messages on {@code dataSource} with the defaults.
     *
     * @param dataSource the application's data source; not null
     * @return the table, thread-safe
     */
    public static JdbcProcessedMessages create(DataSource dataSource) {
        return builder(dataSource).build();
    }

    /**
     * A builder.
     *
     * @param dataSource the application's data source; not null
     * @return a new builder
     */
    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    /**
     * The table's name.
     *
     * @return the table name; never null
     */
    public String table() {
        return access.table();
    }

    /**
     * Whether payload fingerprints are kept ({@link Builder#fingerprints(boolean)}).
     *
     * @return true if a key reused with another payload is refused
     */
    public boolean keepsFingerprints() {
        return fingerprints;
    }

    /**
     * Whether the key has a live (committed, unexpired) row: its message was processed.
     *
     * @param key the key; not null
     * @return true if processed within its retention
     * @throws StoreUnavailableException if the database fails
     */
    public boolean isProcessed(IdempotencyKey key) {
        java.util.Objects.requireNonNull(key, "key");
        return access.withConnection("read", key, c -> {
            Row row = select(c, statements(c), key, false);
            return row != null && row.live;
        });
    }

    /**
     * Deletes up to {@code batchSize} expired rows.
     *
     * @param batchSize the most rows to delete, at least 1
     * @return how many were deleted; fewer than {@code batchSize} once a pass over the table found
     *     no more
     * @throws StoreUnavailableException if the database fails
     */
    public int purgeExpired(int batchSize) {
        Checks.atLeast(batchSize, 1, "batchSize");
        return access.withConnection("purge", c -> {
            Statements s = statements(c);
            if (s.dialect == SqlDialect.POSTGRESQL) {
                try (PreparedStatement ps = c.prepareStatement(s.purge)) {
                    JdbcBatchClaims.planEachTime(ps);
                    ps.setInt(1, batchSize);
                    return ps.executeUpdate();
                }
            }
            return purgeByKeyset(c, s, batchSize);
        });
    }

    /**
     * Deletes expired rows in batches of {@code batchSize}, pausing {@code pause} between batches,
     * until a batch comes back short.
     *
     * @param batchSize the most rows per batch, at least 1
     * @param pause the pause between batches; not null, zero or positive
     * @return how many were deleted
     */
    public long purgeAllExpired(int batchSize, Duration pause) {
        return PacedPurge.dutyCycle(1).plusPause(pause).drain(batchSize, this::purgeExpired);
    }

    /**
     * The expired keys after the cursor, in primary-key order, then their deletion (each re-checked
     * as expired, so a row taken over meanwhile stays). A short batch ends the pass: the next one
     * starts from the first key.
     */
    private int purgeByKeyset(Connection c, Statements s, int batchSize) throws SQLException {
        IdempotencyKey after = purgeCursor.get();
        List<IdempotencyKey> expired = new ArrayList<>(Math.min(batchSize, 1024));
        try (PreparedStatement ps = c.prepareStatement(after == null ? s.expiredFirst : s.expiredAfter)) {
            int i = 1;
            if (after != null) {
                ps.setString(i++, after.scope());
                ps.setString(i++, after.scope());
                JdbcText.bind(ps, i++, after.key(), s.dialect);
            }
            ps.setInt(i, batchSize);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    expired.add(IdempotencyKey.of(rs.getString(1), JdbcText.read(rs, 2, s.dialect)));
                }
            }
        }
        purgeCursor.compareAndSet(after, expired.size() < batchSize ? null : expired.get(expired.size() - 1));
        if (expired.isEmpty()) {
            return 0;
        }
        try (PreparedStatement ps = c.prepareStatement(s.deleteExpired)) {
            for (IdempotencyKey key : expired) {
                bindKey(ps, 1, key, s);
                ps.addBatch();
            }
            int deleted = 0;
            for (int n : ps.executeBatch()) {
                deleted += Math.max(n, 0) > 0 ? 1 : 0;
            }
            return deleted;
        }
    }

    /**
     * The statements this table lends to {@link JdbcTransactionalIdempotency}; its records carry
     * {@code voidPayload}, the executor's codec's encoding of {@code null}.
     */
    TransactionalSql transactionalSql(byte[] voidPayload) {
        return new Lean(voidPayload);
    }

    /**
     * The dialect in use, detecting it (refusing a read-only server, and creating the table if
     * configured) on a pooled connection the first time; later calls take no connection.
     *
     * @return the dialect; never null
     * @throws io.dupguard.ReadOnlyStoreException if the server takes no writes
     * @throws StoreUnavailableException if the database fails
     */
    public SqlDialect dialect() {
        Statements s = sql;
        return s != null ? s.dialect : access.withConnection("prepare", null, c -> statements(c)).dialect;
    }

    /** {@link #dialect()}, for an executor before its first call. */
    void ensureReady() {
        dialect();
    }

    private Statements statements(Connection c) throws SQLException {
        Statements s = sql;
        if (s == null) {
            SqlDialect dialect = access.dialect(c);
            s = new Statements(
                    dialect,
                    access.table(),
                    !access.sharded() && IdempotencySql.mariaDbReturning(c, dialect),
                    access.sharded());
            sql = s;
        }
        return s;
    }

    private Long compact(Fingerprint fp) {
        return !fingerprints || fp.isNone() ? null : Long.parseUnsignedLong(fp.hex(), 0, 16, 16);
    }

    /** The stored fingerprint as a record carries it: the request's own when they match. */
    private static Fingerprint expand(Long stored, Fingerprint request, Long requestCompact) {
        if (stored == null) {
            return Fingerprint.none();
        }
        if (stored.equals(requestCompact)) {
            return request;
        }
        return Fingerprint.ofHex(String.format("%016x", stored) + "0".repeat(48));
    }

    private static void bindKey(PreparedStatement ps, int index, IdempotencyKey key, Statements s) throws SQLException {
        ps.setString(index, key.scope());
        JdbcText.bind(ps, index + 1, key.key(), s.dialect);
    }

    private static void bindFingerprint(PreparedStatement ps, int index, Long fp) throws SQLException {
        if (fp == null) {
            ps.setNull(index, Types.BIGINT);
        } else {
            ps.setLong(index, fp);
        }
    }

    /** A row read back: the stored fingerprint (null: none) and whether it is live. */
    private record Row(Long fingerprint, boolean live) {}

    private static Row select(Connection c, Statements s, IdempotencyKey key, boolean locking) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(locking ? s.selectLocking : s.select)) {
            if (s.dialect == SqlDialect.POSTGRESQL) {
                JdbcBatchClaims.planEachTime(ps);
            }
            bindKey(ps, 1, key, s);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return null;
                }
                long fp = rs.getLong(1);
                Long stored = rs.wasNull() ? null : fp;
                return new Row(stored, rs.getInt(2) == 1);
            }
        }
    }

    /** The statements of one dialect and table. */
    private static final class Statements {
        final SqlDialect dialect;
        final boolean multiRowReturning;
        final boolean keyByKey;
        final String insert;
        final String select;
        final String selectLocking;
        final String takeover;
        final String delete;
        final String deleteExpired;
        final String purge;
        final String expiredFirst;
        final String expiredAfter;
        final String table;

        Statements(SqlDialect dialect, String table, boolean multiRowReturning, boolean sharded) {
            this.dialect = dialect;
            this.table = table;
            this.multiRowReturning = multiRowReturning;
            this.keyByKey = sharded || dialect == SqlDialect.H2 || (dialect == SqlDialect.MYSQL && !multiRowReturning);
            String now = dialect.now();
            String nowPlus = dialect.nowPlusMillisParam();
            String columns = " (scope, msg_id, fingerprint, expires_at) ";
            String live = "CASE WHEN expires_at > " + now + " THEN 1 ELSE 0 END";
            this.insert = switch (dialect) {
                case POSTGRESQL ->
                    "INSERT INTO " + table + columns + "VALUES (?, ?, ?, " + nowPlus
                            + ") ON CONFLICT (scope, msg_id) DO NOTHING";
                case MYSQL -> "INSERT IGNORE INTO " + table + columns + "VALUES (?, ?, ?, " + nowPlus + ")";
                case H2 -> "INSERT INTO " + table + columns + "VALUES (?, ?, ?, " + nowPlus + ")";
            };
            String selectSql = "SELECT fingerprint, " + live + " FROM " + table + " WHERE scope = ? AND msg_id = ?";
            this.select = selectSql;
            this.selectLocking = selectSql + dialect.lockingRead();
            this.takeover = "UPDATE " + table + " SET fingerprint = ?, expires_at = " + nowPlus
                    + " WHERE scope = ? AND msg_id = ? AND expires_at <= " + now;
            this.delete = "DELETE FROM " + table + " WHERE scope = ? AND msg_id = ?";
            this.deleteExpired = delete + " AND expires_at <= " + now;
            this.purge = dialect.deleteLimited(table, "expires_at <= " + now);
            String limit = dialect == SqlDialect.H2 ? " FETCH FIRST ? ROWS ONLY" : " LIMIT ?";
            String expired = "SELECT scope, msg_id FROM " + table + " WHERE expires_at <= " + now;
            this.expiredFirst = expired + " ORDER BY scope, msg_id" + limit;
            this.expiredAfter =
                    expired + " AND (scope > ? OR (scope = ? AND msg_id > ?)) ORDER BY scope, msg_id" + limit;
            String expiry = dialect.nowPlusMillisParam();
            this.pgClaim = pgUpsert(
                    " SELECT u.scope, u.msg_id, u.fp, e.at FROM (SELECT " + expiry + " AS at) e,"
                            + " unnest(?::text[], ?::text[], ?::bigint[]) AS u(scope, msg_id, fp)",
                    "r.scope, r.msg_id");
            this.pgClaimScoped = pgUpsert(
                    " SELECT ?, u.msg_id, u.fp, e.at FROM (SELECT " + expiry + " AS at) e,"
                            + " unnest(?::text[], ?::bigint[]) AS u(msg_id, fp)",
                    "r.msg_id");
            this.pgClaimOne = pgUpsert(" VALUES (?, ?, ?, " + expiry + ")", "r.scope, r.msg_id");
        }

        /**
         * PostgreSQL: the poll's one statement, an insert of every key from arrays whose conflicts
         * update only the rows that need an answer: an expired row is taken over (the request's
         * fingerprint and a new expiry), a live row with another fingerprint is rewritten as it
         * is. It returns those and the rows it inserted ({@code xmax = 0}); a key it does not
         * return has a live row with the request's fingerprint (or none), locked until the
         * transaction ends: a duplicate, with nothing read back. The table is reached only through
         * its primary key (the arbiter), so the plan is safe to keep for the connection's life.
         * The caller binds the keys in {@code KeyOrder.KEYS}: the insert takes them in the order of
         * the arrays, so two polls that meet on keys lock them in the same order.
         */
        final String pgClaim;

        /**
         * {@link #pgClaim} for a poll whose keys share one scope (a listener's), bound once: the
         * scope, the retention, the ids and the fingerprints. It returns the id, the fingerprint and
         * the inserted flag.
         */
        final String pgClaimScoped;

        /** PostgreSQL: {@link #pgClaim} for one key, bound as scope, id, fingerprint, retention. */
        final String pgClaimOne;

        /**
         * The upsert of {@link #pgClaim}, {@link #pgClaimScoped} and {@link #pgClaimOne}, returning
         * {@code returned} then the fingerprint and the inserted flag. Both columns are set from one
         * reading of the clock (a row sub-select), so a row that expires while the statement runs
         * is either kept whole or taken over whole; the {@code WHERE} reads the clock earlier, and a
         * row it found live with another fingerprint that has expired by the {@code SET} is taken
         * over, as it should be.
         */
        private String pgUpsert(String rows, String returned) {
            String expired = "r.expires_at <= " + dialect.now();
            return "INSERT INTO " + table + " AS r (scope, msg_id, fingerprint, expires_at)" + rows
                    + " ON CONFLICT (scope, msg_id) DO UPDATE SET (fingerprint, expires_at) = (SELECT CASE WHEN"
                    + " x.expired THEN excluded.fingerprint ELSE r.fingerprint END, CASE WHEN x.expired THEN"
                    + " excluded.expires_at ELSE r.expires_at END FROM (SELECT " + expired + " AS expired) x) WHERE "
                    + expired + " OR r.fingerprint <> excluded.fingerprint"
                    + " RETURNING " + returned + ", r.fingerprint, CASE WHEN r.xmax = 0 THEN 1 ELSE 0 END";
        }

        /**
         * MariaDB 10.5+: {@code n} rows in one insert that answers every key with its row: each
         * row's {@code LAST_INSERT_ID()} is 2 where it inserted the row, 3 where it took an expired
         * row over (the request's fingerprint and a new expiry) and 1 where the key had a live row
         * (the update leaves it as it was but locks it, so the row returned is the newest committed
         * version). The first assignment reads the old expiry; the next two read the marker it
         * set. The caller binds the rows in {@code KeyOrder.KEYS}, the order InnoDB locks them in.
         * No {@code INSERT IGNORE}: every error but the duplicate key still fails.
         */
        String mariaDbClaim(int n) {
            StringBuilder b = new StringBuilder("INSERT INTO ")
                    .append(table)
                    .append(" (scope, msg_id, fingerprint, expires_at) VALUES ");
            String row = "(IF(LAST_INSERT_ID(2) = 2, ?, NULL), ?, ?, " + dialect.nowPlusMillisParam() + ")";
            for (int i = 0; i < n; i++) {
                b.append(i == 0 ? "" : ", ").append(row);
            }
            String now = dialect.now();
            return b.append(" ON DUPLICATE KEY UPDATE scope = IF(LAST_INSERT_ID(IF(expires_at <= " + now
                            + ", 3, 1)) > 0, scope, scope), fingerprint = IF(LAST_INSERT_ID() = 3, VALUES(fingerprint),"
                            + " fingerprint), expires_at = IF(LAST_INSERT_ID() = 3, VALUES(expires_at), expires_at)"
                            + " RETURNING scope, msg_id, fingerprint, CASE WHEN expires_at > " + now
                            + " THEN 1 ELSE 0 END, LAST_INSERT_ID()")
                    .toString();
        }
    }

    /** {@link TransactionalSql} on this table: a row is a processed message, completed by its claim. */
    private final class Lean implements TransactionalSql {
        private final byte[] voidPayload;

        Lean(byte[] voidPayload) {
            this.voidPayload = voidPayload;
        }

        @Override
        public DataSource dataSource() {
            return access.dataSource();
        }

        @Override
        public SqlDialect dialect(Connection c) throws SQLException {
            return statements(c).dialect;
        }

        @Override
        public DupguardException failure(String operation, Object subject, SQLException e) {
            return access.failure(operation, subject, e);
        }

        private IdempotencyRecord record(IdempotencyKey key, Fingerprint fp, byte[] payload) {
            return new IdempotencyRecord(key, RecordStatus.COMPLETED, fp, null, payload);
        }

        @Override
        public Found read(Connection c, IdempotencyKey key, Fingerprint fingerprint) throws SQLException {
            Row row = select(c, statements(c), key, false);
            return row == null
                    ? null
                    : new Found(
                            record(key, expand(row.fingerprint, fingerprint, compact(fingerprint)), voidPayload),
                            row.live);
        }

        @Override
        public Claim claim(
                Connection c,
                boolean lockingRead,
                IdempotencyKey key,
                Fingerprint fingerprint,
                String owner,
                long retentionMillis,
                boolean undoable,
                byte[] donePayload)
                throws SQLException {
            Statements s = statements(c);
            if (s.dialect == SqlDialect.POSTGRESQL && !s.keyByKey) {
                return claimPostgresOne(c, s, new BatchEntry(key, fingerprint), retentionMillis, donePayload);
            }
            if (s.multiRowReturning) {
                // MariaDB: one statement answers a new key and a duplicate alike.
                Claim[] claims = new Claim[1];
                claimMariaDb(c, s, List.of(new BatchEntry(key, fingerprint)), retentionMillis, donePayload, claims);
                if (claims[0] != null) {
                    return claims[0];
                }
                return claimKey(c, lockingRead, key, fingerprint, retentionMillis, donePayload, true);
            }
            return claimKey(c, lockingRead, key, fingerprint, retentionMillis, donePayload, false);
        }

        /**
         * The single-key claim: insert if absent, else read the row (replay a live one, take an
         * expired one over). {@code exists}: a batch statement already found the key's row, so
         * the first round starts with the read.
         */
        private Claim claimKey(
                Connection c,
                boolean lockingRead,
                IdempotencyKey key,
                Fingerprint fingerprint,
                long retentionMillis,
                byte[] donePayload,
                boolean exists)
                throws SQLException {
            Statements s = statements(c);
            Long fp = compact(fingerprint);
            for (int round = 0; round < 8; round++) {
                if (!(exists && round == 0) && insert(c, s, key, fp, retentionMillis)) {
                    return Claim.FRESH;
                }
                // MySQL/MariaDB read a REPEATABLE READ snapshot, which may predate the row the insert
                // met: a locking read sees it. PostgreSQL's plain read does (under REPEATABLE READ
                // the insert itself fails as a serialization conflict), and a lock would write to
                // the row's header for every duplicate.
                Row row = select(c, s, key, s.dialect == SqlDialect.MYSQL || round > 0);
                if (row == null) {
                    continue; // purged or released between the two statements
                }
                if (row.live) {
                    return new Claim.Existing(record(key, expand(row.fingerprint, fingerprint, fp), donePayload));
                }
                try (PreparedStatement ps = c.prepareStatement(s.takeover)) {
                    bindFingerprint(ps, 1, fp);
                    ps.setLong(2, retentionMillis);
                    bindKey(ps, 3, key, s);
                    if (ps.executeUpdate() == 1) {
                        return Claim.TAKEOVER;
                    }
                }
            }
            throw new StoreUnavailableException(access.storeName(), "claim of " + key + " did not settle", null);
        }

        private boolean insert(Connection c, Statements s, IdempotencyKey key, Long fp, long retentionMillis)
                throws SQLException {
            try (PreparedStatement ps = c.prepareStatement(s.insert)) {
                bindKey(ps, 1, key, s);
                bindFingerprint(ps, 3, fp);
                ps.setLong(4, retentionMillis);
                return ps.executeUpdate() == 1;
            } catch (SQLException e) {
                if (s.dialect == SqlDialect.H2 && UniqueViolation.test(e)) {
                    return false;
                }
                throw e;
            }
        }

        @Override
        public boolean insertFinished(
                Connection c,
                IdempotencyKey key,
                Fingerprint fingerprint,
                RecordStatus status,
                byte[] payload,
                long retentionMillis)
                throws SQLException {
            requireCompleted(status, key);
            return insert(c, statements(c), key, compact(fingerprint), retentionMillis);
        }

        @Override
        public boolean recordFinished(
                Connection c,
                IdempotencyKey key,
                Fingerprint fingerprint,
                RecordStatus status,
                byte[] payload,
                long retentionMillis) {
            throw storesNoFailures(key);
        }

        @Override
        public boolean recordFinishedOnPool(
                IdempotencyKey key,
                Fingerprint fingerprint,
                RecordStatus status,
                byte[] payload,
                long retentionMillis) {
            throw storesNoFailures(key);
        }

        @Override
        public void complete(
                Connection c,
                IdempotencyKey key,
                String owner,
                RecordStatus status,
                byte[] payload,
                long retentionMillis,
                boolean keepExpiry) {
            throw new IllegalStateException("a processed-messages table records Void results with their claim; " + key
                    + " was completed with another result or retention");
        }

        @Override
        public void release(Connection c, IdempotencyKey key, String owner) throws SQLException {
            Statements s = statements(c);
            try (PreparedStatement ps = c.prepareStatement(s.delete)) {
                bindKey(ps, 1, key, s);
                ps.executeUpdate();
            }
        }

        @Override
        public boolean renew(Connection c, IdempotencyKey key, String owner, long leaseMillis) {
            return true; // a row is only visible committed: there is no lease to hold
        }

        @Override
        public java.util.Optional<IdempotencyRecord> find(Connection c, IdempotencyKey key) throws SQLException {
            Row row = select(c, statements(c), key, false);
            return row == null || !row.live
                    ? java.util.Optional.empty()
                    : java.util.Optional.of(
                            record(key, expand(row.fingerprint, Fingerprint.none(), null), voidPayload));
        }

        @Override
        public List<Claim> claimAll(
                Connection c, List<BatchEntry> entries, String owner, long retentionMillis, byte[] donePayload)
                throws SQLException {
            JdbcBatchClaims.checkDistinct(entries);
            Statements s = statements(c);
            Claim[] claims = new Claim[entries.size()];
            boolean batched = entries.size() > 1 && !s.keyByKey;
            if (batched) {
                if (s.dialect == SqlDialect.POSTGRESQL) {
                    claimPostgres(c, s, entries, retentionMillis, donePayload, claims);
                } else {
                    claimMariaDb(c, s, entries, retentionMillis, donePayload, claims);
                }
            }
            for (int i = 0; i < claims.length; i++) {
                if (claims[i] == null) {
                    BatchEntry e = entries.get(i);
                    claims[i] = !batched && s.dialect == SqlDialect.POSTGRESQL && !s.keyByKey
                            ? claimPostgresOne(c, s, e, retentionMillis, donePayload)
                            // Key by key, or a key whose row MariaDB's statement found expired: read it first.
                            : claimKey(c, true, e.key(), e.fingerprint(), retentionMillis, donePayload, batched);
                }
            }
            return Arrays.asList(claims);
        }

        private void claimPostgres(
                Connection c,
                Statements s,
                List<BatchEntry> entries,
                long retentionMillis,
                byte[] donePayload,
                Claim[] claims)
                throws SQLException {
            int n = entries.size();
            Integer[] order = new Integer[n];
            Long[] compact = new Long[n];
            String scope = entries.get(0).key().scope();
            for (int i = 0; i < n; i++) {
                order[i] = i;
                compact[i] = compact(entries.get(i).fingerprint());
                if (scope != null && !scope.equals(entries.get(i).key().scope())) {
                    scope = null;
                }
            }
            Arrays.sort(
                    order,
                    (a, b) -> KeyOrder.KEYS.compare(
                            entries.get(a).key(), entries.get(b).key()));
            String[] scopes = scope == null ? new String[n] : null;
            String[] ids = new String[n];
            Long[] fps = new Long[n];
            Map<String, Integer> byId = scope == null ? null : Maps.hashMap(n);
            for (int j = 0; j < n; j++) {
                BatchEntry e = entries.get(order[j]);
                if (scopes != null) {
                    scopes[j] = e.key().scope();
                } else {
                    byId.put(e.key().key(), order[j]);
                }
                ids[j] = e.key().key();
                fps[j] = compact[order[j]];
            }
            Map<IdempotencyKey, Integer> position = scope == null ? JdbcBatchClaims.positions(entries) : null;
            try (PreparedStatement ps = c.prepareStatement(scope == null ? s.pgClaim : s.pgClaimScoped)) {
                int p = 1;
                if (scope != null) {
                    ps.setString(p++, scope);
                }
                ps.setLong(p++, retentionMillis);
                if (scopes != null) {
                    ps.setArray(p++, c.createArrayOf("text", scopes));
                }
                ps.setArray(p++, c.createArrayOf("text", ids));
                ps.setArray(p, c.createArrayOf("bigint", fps));
                int answer = scope == null ? 3 : 2;
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        Integer i = scope == null
                                ? position.get(IdempotencyKey.of(rs.getString(1), JdbcText.read(rs, 2, s.dialect)))
                                : byId.get(JdbcText.read(rs, 1, s.dialect));
                        if (i != null) {
                            claims[i] = upserted(rs, answer, entries.get(i), compact[i], donePayload);
                        }
                    }
                }
            }
            for (int i = 0; i < n; i++) {
                if (claims[i] == null) {
                    claims[i] = duplicate(entries.get(i), compact[i], donePayload);
                }
            }
        }

        /** PostgreSQL: one key's claim in one statement, {@link Statements#pgClaimOne}. */
        private Claim claimPostgresOne(
                Connection c, Statements s, BatchEntry entry, long retentionMillis, byte[] donePayload)
                throws SQLException {
            Long fp = compact(entry.fingerprint());
            try (PreparedStatement ps = c.prepareStatement(s.pgClaimOne)) {
                bindKey(ps, 1, entry.key(), s);
                bindFingerprint(ps, 3, fp);
                ps.setLong(4, retentionMillis);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? upserted(rs, 3, entry, fp, donePayload) : duplicate(entry, fp, donePayload);
                }
            }
        }

        /**
         * A row the PostgreSQL upsert returned (from column {@code at}: its fingerprint now, 1 if
         * inserted): inserted ⇒ fresh; rewritten with the request's fingerprint ⇒ an expired row
         * taken over; any other fingerprint ⇒ a live row kept as it was, the key reused with
         * another payload.
         */
        private Claim upserted(ResultSet rs, int at, BatchEntry entry, Long requestFp, byte[] donePayload)
                throws SQLException {
            long fp = rs.getLong(at);
            Long stored = rs.wasNull() ? null : fp;
            if (rs.getInt(at + 1) == 1) {
                return Claim.FRESH;
            }
            if (Objects.equals(stored, requestFp)) {
                return Claim.TAKEOVER;
            }
            return new Claim.Existing(record(entry.key(), expand(stored, entry.fingerprint(), requestFp), donePayload));
        }

        /** A key the PostgreSQL upsert did not return: a live row with the request's fingerprint, or none. */
        private Claim duplicate(BatchEntry entry, Long requestFp, byte[] donePayload) {
            return new Claim.Existing(
                    record(entry.key(), expand(requestFp, entry.fingerprint(), requestFp), donePayload));
        }

        /**
         * Reads MariaDB's poll statement's answer — scope, message id, fingerprint, live flag, and 2
         * for a row it inserted, 3 for one it took over, 1 for a live one — into {@code claims}:
         * inserted ⇒ fresh, taken over ⇒ takeover, live ⇒ existing. A key the statement did not
         * answer (none is expected) is left open for the single-key claim.
         */
        private void answer(
                PreparedStatement ps,
                Statements s,
                List<BatchEntry> entries,
                Map<IdempotencyKey, Integer> position,
                byte[] donePayload,
                Claim[] claims)
                throws SQLException {
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    IdempotencyKey key = IdempotencyKey.of(rs.getString(1), JdbcText.read(rs, 2, s.dialect));
                    Integer i = position.get(key);
                    if (i == null) {
                        continue;
                    }
                    long marker = rs.getLong(5);
                    if (marker == 2 || marker == 3) {
                        claims[i] = marker == 2 ? Claim.FRESH : Claim.TAKEOVER;
                        continue;
                    }
                    long fp = rs.getLong(3);
                    Long stored = rs.wasNull() ? null : fp;
                    if (rs.getInt(4) == 1) {
                        Fingerprint request = entries.get(i).fingerprint();
                        claims[i] =
                                new Claim.Existing(record(key, expand(stored, request, compact(request)), donePayload));
                    }
                }
            }
        }

        private void claimMariaDb(
                Connection c,
                Statements s,
                List<BatchEntry> entries,
                long retentionMillis,
                byte[] donePayload,
                Claim[] claims)
                throws SQLException {
            Map<IdempotencyKey, Integer> position = JdbcBatchClaims.positions(entries);
            List<BatchEntry> sorted = new ArrayList<>(entries);
            sorted.sort((a, b) -> KeyOrder.KEYS.compare(a.key(), b.key()));
            try (PreparedStatement ps = c.prepareStatement(s.mariaDbClaim(entries.size()))) {
                int p = 1;
                for (BatchEntry e : sorted) {
                    bindKey(ps, p, e.key(), s);
                    bindFingerprint(ps, p + 2, compact(e.fingerprint()));
                    ps.setLong(p + 3, retentionMillis);
                    p += 4;
                }
                answer(ps, s, entries, position, donePayload, claims);
            }
        }

        @Override
        public Set<IdempotencyKey> completeAll(
                Connection c, List<BatchCompletion> completions, String owner, long retentionMillis) {
            throw new IllegalStateException(
                    "a processed-messages table records Void results with their claim; a batch completed with"
                            + " another result or retention");
        }

        @Override
        public void releaseAll(Connection c, List<IdempotencyKey> keys, String owner) throws SQLException {
            Statements s = statements(c);
            try (PreparedStatement ps = c.prepareStatement(s.delete)) {
                for (IdempotencyKey key : keys) {
                    bindKey(ps, 1, key, s);
                    ps.addBatch();
                }
                ps.executeBatch();
            }
        }
    }

    private static void requireCompleted(RecordStatus status, IdempotencyKey key) {
        if (status != RecordStatus.COMPLETED) {
            throw storesNoFailures(key);
        }
    }

    private static IllegalStateException storesNoFailures(IdempotencyKey key) {
        return new IllegalStateException(
                "a processed-messages table stores no failures (" + key + "): its executor releases on failure");
    }

    private static Array texts(Connection c, List<String> values) throws SQLException {
        return c.createArrayOf("text", values.toArray());
    }

    /** Builder; not thread-safe. */
    public static final class Builder extends JdbcStoreBuilder<Builder, JdbcProcessedMessages> {
        private boolean fingerprints = true;

        private Builder(DataSource dataSource) {
            super(dataSource, DEFAULT_TABLE);
        }

        /**
         * Whether to keep the first 8 bytes of each payload's SHA-256 (default true). Without them a
         * key reused with another payload is not told apart from a duplicate: it is skipped silently
         * instead of refused, and each row is 8 bytes smaller.
         *
         * @param keep true to keep fingerprints
         * @return this builder
         */
        public Builder fingerprints(boolean keep) {
            this.fingerprints = keep;
            return this;
        }

        @Override
        public JdbcProcessedMessages build() {
            return new JdbcProcessedMessages(this);
        }
    }
}
