package io.dupguard.jdbc;

import io.dupguard.idempotency.BatchCompletion;
import io.dupguard.idempotency.BatchEntry;
import io.dupguard.idempotency.Claim;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.RecordStatus;
import io.dupguard.internal.Maps;
import java.nio.charset.StandardCharsets;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The batch statements of {@link JdbcIdempotencyStore}, one dialect and table. Per batch:
 *
 * <ol>
 *   <li>PostgreSQL: the claim is the insert of every key from arrays ({@code unnest}) with {@code
 *       ON CONFLICT DO NOTHING RETURNING} the keys it inserted, which leaves existing rows unlocked
 *       (a {@code DO UPDATE … WHERE expires_at <= now} would lock and log every duplicate's row;
 *       dupguard-bench/pgbench/consumer-claim) and reaches the table only through its arbiter
 *       index, so no plan of it can read the table sequentially. A batch whose keys are all new
 *       costs that one statement; otherwise one read of the rows of the keys it did not insert
 *       follows. An expired row among them goes through the single-key takeover. Completion is one
 *       statement ({@code INSERT … ON CONFLICT DO UPDATE} of the rows found key by key and locked,
 *       {@code LATERAL … FOR UPDATE}), release one {@code DELETE} of them by tuple id. The read,
 *       the completion and the release are planned on every execution (pgJDBC does not prepare
 *       them on the server): a plan that the server cached while the table was empty — a new
 *       deployment, a truncated or purged table, statistics analyzed then — reads the table
 *       sequentially, at no cost on zero pages, and a connection would keep using it long after
 *       the table has grown (a sequential scan per batch of a 20,000-row table took 10–40 ms
 *       against under 1 ms through the index; an independent consumer check measured a quarter of
 *       the throughput). A plan made at the execution sees the table's present size. No read has
 *       a shape that rules the scan out in a cached plan: a generic plan made on an empty, analyzed
 *       table reads it sequentially for one key's primary-key equality, for {@code scope = ? AND
 *       idem_key = ANY(?)} and for a {@code LATERAL} probe alike (zero pages cost nothing, the
 *       index probe does); only an insert's arbiter probe has no other path.
 *   <li>MariaDB 10.5+: the claim is one multi-row {@code INSERT … ON DUPLICATE KEY UPDATE scope =
 *       scope RETURNING …}, answering every key with its row (ours or the existing one). MySQL
 *       (no {@code RETURNING}): the same insert without it, then one read of the keys: two round
 *       trips. Completion is one multi-table {@code UPDATE} of the rows, found by primary key from
 *       a derived table of the completions; release one JDBC batch of the single-key statement
 *       (MariaDB Connector/J sends it in one go).
 *   <li>H2 (embedded, no network), and any database through ShardingSphere-JDBC (which routes a
 *       statement by the keys it names, and cannot split an array or a multi-row {@code RETURNING}
 *       between shards): the single-key claim per key on one connection; completion and release
 *       as one JDBC batch.
 * </ol>
 *
 * <p>A key that the batch statement cannot settle — its row expired but another caller took it
 * over during the statement, or a concurrent transaction inserted it after the statement's
 * snapshot — goes through the single-key claim on the same connection, which loops until it
 * settles. That costs round trips only under such races.
 */
final class JdbcBatchClaims {
    /** The single-key operations on the batch's connection, for what a batch statement leaves open. */
    interface SingleKey {
        Claim claim(IdempotencyKey key, io.dupguard.idempotency.Fingerprint fingerprint) throws SQLException;
    }

    /**
     * What a claim writes besides the key and fingerprint: the owner token, the completed row's
     * payload (null: the row is in progress), the expiry and the purge time.
     */
    record ClaimRow(String owner, byte[] donePayload, long leaseMillis, long purgeMillis) {
        /** Binds owner[, payload], lease ms[, purge ms] from {@code index}; returns the next index. */
        int bind(PreparedStatement ps, int index, IdempotencySql s) throws SQLException {
            int i = index;
            ps.setString(i++, owner);
            if (donePayload != null) {
                ps.setBytes(i++, donePayload);
            }
            ps.setLong(i++, leaseMillis);
            if (s.purgeColumn) {
                ps.setLong(i++, purgeMillis);
            }
            return i;
        }
    }

    /** The order in which batches are claimed (BatchClaim sorts them so), and so locked. */
    private static final Comparator<IdempotencyKey> CLAIM_ORDER =
            Comparator.comparing(IdempotencyKey::scope).thenComparing(IdempotencyKey::key);

    private final IdempotencySql s;
    private final String table;
    /** Key by key (a sharding proxy routes each key to its shard), as on H2. */
    private final boolean keyByKey;

    private final String pgClaim;
    /** {@link #pgClaim} writing completed rows (the transactional mode's claim of a {@code Void} result). */
    private final String pgClaimDone;
    /** The read of the rows of keys {@link #pgClaim} did not insert. */
    private final String pgExisting;

    private final String pgComplete;
    private final String pgRelease;

    JdbcBatchClaims(IdempotencySql s, String table, boolean keyByKey) {
        this.s = s;
        this.table = table;
        this.keyByKey = keyByKey;
        SqlDialect d = s.dialect;
        String nowPlus = d.nowPlusMillisParam();
        String purgeCol = s.purgeColumn ? ", purge_after" : "";
        this.pgClaim = pgClaim(table, false);
        this.pgClaimDone = pgClaim(table, true);
        this.pgExisting = pgExisting(s, table);
        // The batch's own rows are found key by key through the primary key and locked (FOR UPDATE
        // in a LATERAL subquery: one index probe per key, on every table size and in every cached
        // plan). The completion then writes them through an INSERT … ON CONFLICT DO UPDATE, whose
        // arbiter index leads it to each row — it never inserts: every row it proposes exists and
        // is locked by the statement. The release deletes them by tuple id.
        // The rows are locked in the order of the claims, scope then key (the caller sorts the keys), so
        // that a completion and a concurrent claim of overlapping keys cannot deadlock.
        // A row is the batch's own when it carries the batch's owner token (unique per call): an
        // in-progress row, or a completed one the transactional mode inserted.
        String ownRows = " FROM (SELECT * FROM unnest(?::text[], ?::text[]%s) WITH ORDINALITY AS u(scope, idem_key%s,"
                + " ord) ORDER BY ord) u CROSS JOIN LATERAL (SELECT"
                + " x.%s FROM " + table + " x WHERE x.scope = u.scope COLLATE \"C\""
                + " AND x.idem_key = u.idem_key COLLATE \"C\" AND x.owner = ? FOR UPDATE) x";
        this.pgComplete = "WITH target AS (SELECT u.scope, u.idem_key, u.status, u.payload, x.fingerprint"
                + String.format(ownRows, ", ?::text[], ?::bytea[]", ", status, payload", "fingerprint") + ")"
                + " INSERT INTO " + table + " AS r (scope, idem_key, status, fingerprint, owner, payload, expires_at"
                + purgeCol + ") SELECT scope, idem_key, status, fingerprint, NULL, payload, " + nowPlus
                + (s.purgeColumn ? ", " + nowPlus : "") + " FROM target"
                + " ON CONFLICT (scope, idem_key) DO UPDATE SET status = EXCLUDED.status, payload = EXCLUDED.payload,"
                + " owner = NULL, expires_at = EXCLUDED.expires_at"
                + (s.purgeColumn ? ", purge_after = GREATEST(r.purge_after, EXCLUDED.purge_after)" : "")
                + " RETURNING r.scope, r.idem_key";
        this.pgRelease = "DELETE FROM " + table + " AS r WHERE r.ctid = ANY(ARRAY(SELECT x.ctid"
                + String.format(ownRows, "", "", "ctid") + "))";
    }

    /**
     * The PostgreSQL claim's insert: in-progress rows, or ({@code done}) completed rows carrying
     * one payload for all (a parameter after the owner). It reaches the table only through its
     * arbiter index (the primary key), so no plan of it can scan the table, and it returns the keys
     * it inserted.
     */
    private String pgClaim(String table, boolean done) {
        String nowPlus = s.dialect.nowPlusMillisParam();
        return "INSERT INTO " + table + " AS r (scope, idem_key, status, fingerprint, owner, payload, expires_at"
                + (s.purgeColumn ? ", purge_after" : "") + ") SELECT u.scope, u.idem_key, "
                + (done ? "'C'" : "'P'") + ", u.fingerprint, ?, " + (done ? "?::bytea" : "NULL::bytea") + ", " + nowPlus
                + (s.purgeColumn ? ", " + nowPlus : "")
                + " FROM unnest(?::text[], ?::text[], ?::text[]) WITH ORDINALITY AS u(scope, idem_key, fingerprint, ord)"
                + " ORDER BY u.ord ON CONFLICT (scope, idem_key) DO NOTHING RETURNING r.scope, r.idem_key";
    }

    /** The rows of the keys the claim's insert did not take (their rows existed). */
    private static String pgExisting(IdempotencySql s, String table) {
        return "SELECT x.scope, x.idem_key, x.status, x.fingerprint, x.owner, x.payload, CASE WHEN x.expires_at > "
                + s.dialect.now() + " THEN 1 ELSE 0 END FROM " + table + " x WHERE (x.scope, x.idem_key) IN"
                + " (SELECT u.scope COLLATE \"C\", u.idem_key COLLATE \"C\" FROM unnest(?::text[], ?::text[]) AS"
                + " u(scope, idem_key))";
    }

    /** The keys of a batch must be distinct: one statement cannot claim a row twice. */
    static void checkDistinct(List<BatchEntry> entries) {
        Set<IdempotencyKey> seen = Maps.hashSet(entries.size());
        for (BatchEntry e : entries) {
            if (!seen.add(e.key())) {
                throw new IllegalArgumentException("entries must have distinct keys; " + e.key() + " repeats");
            }
        }
    }

    /**
     * Claims the batch; with {@code donePayload} the rows are written completed with that payload
     * (the transactional mode's claim of a {@code Void} result), still carrying {@code owner}.
     */
    List<Claim> claimAll(Connection c, List<BatchEntry> entries, ClaimRow row, SingleKey single) throws SQLException {
        Claim[] claims = new Claim[entries.size()];
        if (entries.size()
                > 1) { // a batch of one key takes the single-key statement below: lighter, as many round trips
            switch (keyByKey ? SqlDialect.H2 : s.dialect) {
                case POSTGRESQL -> claimPostgres(c, entries, row, claims);
                case MYSQL -> claimMysql(c, entries, row, claims);
                case H2 -> {}
            }
        }
        for (int i = 0; i < claims.length; i++) {
            if (claims[i] == null) {
                claims[i] = single.claim(entries.get(i).key(), entries.get(i).fingerprint());
            }
        }
        return Arrays.asList(claims);
    }

    /**
     * The insert of every key, then, only if it left keys out, one read of those keys' rows. The
     * read is planned on every execution ({@link #planEachTime}): a plan cached by the connection
     * while the table was small could read the table sequentially long after it has grown, and a
     * plan made now sees the table's present size.
     */
    private void claimPostgres(Connection c, List<BatchEntry> entries, ClaimRow row, Claim[] claims)
            throws SQLException {
        Map<IdempotencyKey, Integer> position = positions(entries);
        try (PreparedStatement ps = c.prepareStatement(row.donePayload() == null ? pgClaim : pgClaimDone)) {
            int p = row.bind(ps, 1, s);
            ps.setArray(p++, texts(c, entries.stream().map(e -> e.key().scope()).toList()));
            ps.setArray(p++, texts(c, entries.stream().map(e -> e.key().key()).toList()));
            ps.setArray(
                    p, texts(c, entries.stream().map(e -> e.fingerprint().hex()).toList()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    Integer i = position.get(IdempotencyKey.of(rs.getString(1), rs.getString(2)));
                    if (i != null) {
                        claims[i] = Claim.FRESH;
                    }
                }
            }
        }
        List<IdempotencyKey> others = new java.util.ArrayList<>();
        for (int i = 0; i < claims.length; i++) {
            if (claims[i] == null) {
                others.add(entries.get(i).key());
            }
        }
        if (others.isEmpty()) {
            return;
        }
        try (PreparedStatement ps = c.prepareStatement(pgExisting)) {
            planEachTime(ps);
            ps.setArray(1, texts(c, others.stream().map(IdempotencyKey::scope).toList()));
            ps.setArray(2, texts(c, others.stream().map(IdempotencyKey::key).toList()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    IdempotencyKey key = IdempotencyKey.of(rs.getString(1), rs.getString(2));
                    Integer i = position.get(key);
                    if (i != null) {
                        claims[i] = existing(rs, 3, key);
                    }
                }
            }
        }
    }

    /**
     * Keeps pgJDBC from preparing {@code ps} on the server, so that the server plans it on every
     * execution with the table's present size rather than reusing a plan it cached. Another driver,
     * or one behind a wrapper that does not unwrap, keeps its own behaviour.
     */
    static void planEachTime(PreparedStatement ps) {
        try {
            if (ps.isWrapperFor(org.postgresql.PGStatement.class)) {
                Object statement = ps.unwrap(org.postgresql.PGStatement.class);
                if (statement instanceof org.postgresql.PGStatement pg) {
                    pg.setPrepareThreshold(0);
                }
            }
        } catch (SQLException | RuntimeException | LinkageError e) {
            // not pgJDBC, or a wrapper that does not unwrap: nothing to change
        }
    }

    /** Each entry's index in {@code entries}, by key (the keys are distinct). */
    static Map<IdempotencyKey, Integer> positions(List<BatchEntry> entries) {
        Map<IdempotencyKey, Integer> position = Maps.hashMap(entries.size());
        for (int i = 0; i < entries.size(); i++) {
            position.put(entries.get(i).key(), i);
        }
        return position;
    }

    private void claimMysql(Connection c, List<BatchEntry> entries, ClaimRow row, Claim[] claims) throws SQLException {
        String columns = "status, fingerprint, owner, payload, CASE WHEN expires_at > " + s.dialect.now()
                + " THEN 1 ELSE 0 END, scope, idem_key";
        String insert = mysqlInsert(entries.size(), row.donePayload() != null);
        Map<IdempotencyKey, Integer> position = positions(entries);
        if (s.insertReturning != null) {
            try (PreparedStatement ps = c.prepareStatement(insert + " RETURNING " + columns)) {
                bindMysqlInsert(ps, entries, row);
                try (ResultSet rs = ps.executeQuery()) {
                    readMysqlRows(rs, row.owner(), position, claims);
                }
            }
            return;
        }
        try (PreparedStatement ps = c.prepareStatement(insert)) {
            bindMysqlInsert(ps, entries, row);
            ps.executeUpdate();
        }
        String pairs = String.join(", ", java.util.Collections.nCopies(entries.size(), "(?, ?)"));
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT " + columns + " FROM " + table + " WHERE (scope, idem_key) IN (" + pairs + ")")) {
            int p = 1;
            for (BatchEntry e : entries) {
                bindKey(ps, p, e.key());
                p += 2;
            }
            try (ResultSet rs = ps.executeQuery()) {
                readMysqlRows(rs, row.owner(), position, claims);
            }
        }
    }

    /** The multi-row claim: in-progress rows, or ({@code done}) completed ones with a payload each. */
    private String mysqlInsert(int rows, boolean done) {
        String nowPlus = s.dialect.nowPlusMillisParam();
        String row = "(?, ?, " + (done ? "'C'" : "'P'") + ", ?, ?, " + (done ? "?" : "NULL") + ", " + nowPlus
                + (s.purgeColumn ? ", " + nowPlus : "") + ")";
        return "INSERT INTO " + table + " (scope, idem_key, status, fingerprint, owner, payload, expires_at"
                + (s.purgeColumn ? ", purge_after" : "") + ") VALUES "
                + String.join(", ", java.util.Collections.nCopies(rows, row))
                + " ON DUPLICATE KEY UPDATE scope = scope";
    }

    private void bindMysqlInsert(PreparedStatement ps, List<BatchEntry> entries, ClaimRow row) throws SQLException {
        int p = 1;
        for (BatchEntry e : entries) {
            bindKey(ps, p, e.key());
            p += 2;
            JdbcIdempotencyStore.bindFingerprint(ps, p++, e.fingerprint(), s);
            p = row.bind(ps, p, s);
        }
    }

    /**
     * Rows carrying our owner token (unique per call) are ours (fresh), in progress or completed;
     * live others exist; expired ones stay open.
     */
    private void readMysqlRows(ResultSet rs, String owner, Map<IdempotencyKey, Integer> position, Claim[] claims)
            throws SQLException {
        while (rs.next()) {
            IdempotencyKey key = IdempotencyKey.of(rs.getString(6), new String(rs.getBytes(7), StandardCharsets.UTF_8));
            Integer i = position.get(key);
            if (i == null) {
                continue;
            }
            claims[i] = owner.equals(rs.getString(3)) ? Claim.FRESH : existing(rs, key);
        }
    }

    /** The row at {@code rs} as an existing claim if it is live, else null (settled one key at a time). */
    private Claim existing(ResultSet rs, IdempotencyKey key) throws SQLException {
        return existing(rs, 1, key);
    }

    /** {@link #existing(ResultSet, IdempotencyKey)} of the row's columns from {@code first}. */
    private Claim existing(ResultSet rs, int first, IdempotencyKey key) throws SQLException {
        JdbcIdempotencyStore.Row row = JdbcIdempotencyStore.readCurrentRow(rs, first, s);
        return row != null && row.live() ? new Claim.Existing(row.toRecord(key)) : null;
    }

    /**
     * Completes in one statement (PostgreSQL and MySQL/MariaDB, two keys or more) or one JDBC batch
     * of the single-key completion; returns the keys not completed.
     */
    Set<IdempotencyKey> completeAll(Connection c, List<BatchCompletion> completions, String owner, long retentionMillis)
            throws SQLException {
        Set<IdempotencyKey> lost = new LinkedHashSet<>();
        completions.forEach(x -> lost.add(x.key()));
        if (s.dialect == SqlDialect.POSTGRESQL && !keyByKey && completions.size() > 1) {
            completions = completions.stream()
                    .sorted(Comparator.comparing(BatchCompletion::key, CLAIM_ORDER))
                    .toList();
            try (PreparedStatement ps = c.prepareStatement(pgComplete)) {
                planEachTime(ps);
                int p = 1;
                ps.setArray(
                        p++,
                        texts(c, completions.stream().map(x -> x.key().scope()).toList()));
                ps.setArray(
                        p++,
                        texts(c, completions.stream().map(x -> x.key().key()).toList()));
                ps.setArray(
                        p++,
                        texts(
                                c,
                                completions.stream()
                                        .map(x -> status(x.status()))
                                        .toList()));
                ps.setArray(
                        p++,
                        c.createArrayOf(
                                "bytea",
                                completions.stream()
                                        .map(BatchCompletion::payload)
                                        .toArray(byte[][]::new)));
                ps.setString(p++, owner);
                ps.setLong(p++, retentionMillis);
                if (s.purgeColumn) {
                    ps.setLong(p, retentionMillis);
                }
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        lost.remove(IdempotencyKey.of(rs.getString(1), rs.getString(2)));
                    }
                }
            }
            return lost;
        }
        if (s.dialect == SqlDialect.MYSQL && !keyByKey && completions.size() > 1) {
            completions = completions.stream()
                    .sorted(Comparator.comparing(BatchCompletion::key, CLAIM_ORDER))
                    .toList();
            return completeMysql(c, completions, owner, retentionMillis);
        }
        try (PreparedStatement ps = c.prepareStatement(s.complete)) {
            for (BatchCompletion x : completions) {
                int p = 1;
                ps.setString(p++, status(x.status()));
                ps.setBytes(p++, x.payload());
                ps.setLong(p++, retentionMillis);
                if (s.purgeColumn) {
                    ps.setLong(p++, retentionMillis);
                }
                bindKey(ps, p, x.key());
                ps.setString(p + 2, owner);
                ps.addBatch();
            }
            int[] counts = ps.executeBatch();
            List<BatchCompletion> untold = new java.util.ArrayList<>();
            for (int i = 0; i < counts.length; i++) {
                if (counts[i] == 1) {
                    lost.remove(completions.get(i).key());
                } else if (counts[i] == java.sql.Statement.SUCCESS_NO_INFO) {
                    untold.add(completions.get(i));
                }
            }
            if (!untold.isEmpty()) {
                lost.removeAll(completedAsWritten(c, untold));
            }
        }
        return lost;
    }

    /**
     * MySQL/MariaDB: one multi-table {@code UPDATE} of the batch's rows, found through the primary
     * key from a derived table of the completions ({@code STRAIGHT_JOIN}: the completions are read
     * first, in the order of the claims, so the rows are locked in that order, as the claim locked
     * them). Its count is the rows that carried our owner token: all of them (the usual case) means
     * none was lost; fewer, and the rows are read back ({@link #completedAsWritten}).
     */
    private Set<IdempotencyKey> completeMysql(
            Connection c, List<BatchCompletion> completions, String owner, long retentionMillis) throws SQLException {
        String nowPlus = s.dialect.nowPlusMillisParam();
        String values = "SELECT ? AS scope, ? AS idem_key, ? AS status, ? AS payload"
                + " UNION ALL SELECT ?, ?, ?, ?".repeat(completions.size() - 1);
        String sql = "UPDATE (" + values + ") v STRAIGHT_JOIN " + table
                + " t ON t.scope = v.scope AND t.idem_key = v.idem_key SET t.status = v.status,"
                + " t.payload = v.payload, t.owner = NULL, t.expires_at = " + nowPlus
                + (s.purgeColumn ? ", t.purge_after = GREATEST(t.purge_after, " + nowPlus + ")" : "")
                + " WHERE t.owner = ?";
        int updated;
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            int p = 1;
            for (BatchCompletion x : completions) {
                bindKey(ps, p, x.key());
                p += 2;
                ps.setString(p++, status(x.status()));
                ps.setBytes(p++, x.payload());
            }
            ps.setLong(p++, retentionMillis);
            if (s.purgeColumn) {
                ps.setLong(p++, retentionMillis);
            }
            ps.setString(p, owner);
            updated = ps.executeUpdate();
        }
        Set<IdempotencyKey> lost = new LinkedHashSet<>();
        if (updated < completions.size()) {
            completions.forEach(x -> lost.add(x.key()));
            lost.removeAll(completedAsWritten(c, completions));
        }
        return lost;
    }

    /**
     * For a driver that ran a batch without telling each statement's count (MariaDB Connector/J
     * with {@code useBulkStmts=true} answers {@link java.sql.Statement#SUCCESS_NO_INFO}): the keys
     * whose rows now carry the completion as written — its status and payload, no owner. A key a
     * caller took over and completed with the same outcome reads the same, and is counted as ours.
     */
    private Set<IdempotencyKey> completedAsWritten(Connection c, List<BatchCompletion> completions)
            throws SQLException {
        Map<IdempotencyKey, BatchCompletion> byKey = new HashMap<>();
        completions.forEach(x -> byKey.put(x.key(), x));
        Set<IdempotencyKey> done = new HashSet<>();
        String pairs =
                String.join(" OR ", java.util.Collections.nCopies(completions.size(), "(scope = ? AND idem_key = ?)"));
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT scope, idem_key, status, payload FROM " + table + " WHERE owner IS NULL AND (" + pairs + ")")) {
            int p = 1;
            for (BatchCompletion x : completions) {
                bindKey(ps, p, x.key());
                p += 2;
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    byte[] key = rs.getBytes(2);
                    IdempotencyKey k = IdempotencyKey.of(rs.getString(1), new String(key, StandardCharsets.UTF_8));
                    BatchCompletion x = byKey.get(k);
                    if (x != null
                            && status(x.status()).equals(rs.getString(3).trim())
                            && Arrays.equals(x.payload(), rs.getBytes(4))) {
                        done.add(k);
                    }
                }
            }
        }
        return done;
    }

    /** Releases in one statement (PostgreSQL, two keys or more) or one JDBC batch of the single-key release. */
    void releaseAll(Connection c, List<IdempotencyKey> keys, String owner) throws SQLException {
        if (s.dialect == SqlDialect.POSTGRESQL && !keyByKey && keys.size() > 1) {
            keys = keys.stream().sorted(CLAIM_ORDER).toList();
            try (PreparedStatement ps = c.prepareStatement(pgRelease)) {
                planEachTime(ps);
                ps.setArray(1, texts(c, keys.stream().map(IdempotencyKey::scope).toList()));
                ps.setArray(2, texts(c, keys.stream().map(IdempotencyKey::key).toList()));
                ps.setString(3, owner);
                ps.executeUpdate();
            }
            return;
        }
        try (PreparedStatement ps = c.prepareStatement(s.release)) {
            for (IdempotencyKey key : keys) {
                bindKey(ps, 1, key);
                ps.setString(3, owner);
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    private static String status(RecordStatus status) {
        return status == RecordStatus.COMPLETED ? "C" : "F";
    }

    private static Array texts(Connection c, List<String> values) throws SQLException {
        return c.createArrayOf("text", values.toArray());
    }

    private void bindKey(PreparedStatement ps, int index, IdempotencyKey key) throws SQLException {
        JdbcIdempotencyStore.bindKey(ps, index, key, s);
    }
}
