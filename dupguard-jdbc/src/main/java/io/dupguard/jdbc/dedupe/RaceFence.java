package io.dupguard.jdbc.dedupe;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Closes the race between the last delete and the unique index. While {@code guard} cleans and
 * builds, a trigger refuses any insert (or key update) whose key another row already holds, with
 * the same error the index will give (SQLState 23505 / MySQL 1062). Same-key writers are
 * serialised first — PostgreSQL by a transaction-scoped advisory lock on the key's hash,
 * MySQL/MariaDB by a row lock on one of 1024 bucket rows picked by the key's collation weight —
 * so two concurrent inserts of one new key cannot both pass the check. The check is a lookup on a
 * helper index built online first. After the trigger is in place no new duplicate can appear, so
 * the clean-up that follows is the last and the build cannot lose the race; everything is removed
 * again when {@code guard} ends, also after a failure (and on the next run after a crash).
 *
 * <p>The check is a plain read taken after the key's lock, so it sees every row committed before
 * it: that holds for READ COMMITTED writers and for single-statement (autocommit) inserts at any
 * level. A REPEATABLE READ transaction that already read something before inserting checks
 * against its older snapshot and can still slip a duplicate in; then the build fails and {@code
 * guard} cleans and tries again. (A locking read would close that too, but its gap locks make
 * concurrent inserts of neighbouring keys deadlock.)
 */
final class RaceFence {
    static final int BUCKETS = 32 * 32;

    private final Target t;
    private final String trigger;
    private final String function;
    private final String buckets;
    private final String lookupIndex;
    private boolean ownLookupIndex;

    RaceFence(Target t) {
        this.t = t;
        String base = t.table().toLowerCase(Locale.ROOT);
        this.trigger = cut("dg_fence_" + base);
        this.function = cut("dg_fence_fn_" + base);
        this.buckets = cut("dg_fence_b_" + base);
        this.lookupIndex = cut("dg_lookup_" + base);
    }

    private static String cut(String name) {
        return name.length() > 60 ? name.substring(0, 60) : name;
    }

    /** Removes leftovers of an earlier crash, builds the lookup index, installs the trigger. */
    void install(Connection c, Duration lockWait) throws SQLException {
        remove(c, lockWait);
        switch (t.dialect()) {
            case POSTGRESQL -> installPostgres(c, lockWait);
            case MYSQL -> installMysql(c);
            case H2 -> {
                // H2 builds indexes under a table lock; there is no race to close.
            }
        }
    }

    private void installPostgres(Connection c, Duration lockWait) throws SQLException {
        Sql.execute(c, "CREATE INDEX CONCURRENTLY " + lookupIndex + " ON " + t.table() + " (" + t.keyList(null) + ")");
        ownLookupIndex = true;
        String key = t.key.stream()
                .map(col -> t.keyExpr("NEW", col) + "::text")
                .collect(Collectors.joining(" || chr(31) || "));
        Sql.execute(
                c,
                "CREATE OR REPLACE FUNCTION " + function + "() RETURNS trigger LANGUAGE plpgsql AS $dg$ BEGIN IF "
                        + t.keysNotNull("NEW") + " THEN PERFORM pg_advisory_xact_lock(hashtext('" + t.table()
                        + "'), hashtext(" + key + ")); IF EXISTS (SELECT 1 FROM " + t.table() + " x WHERE "
                        + t.keysMatch("x", "NEW") + " AND x." + t.id() + " IS DISTINCT FROM NEW." + t.id()
                        + ") THEN RAISE EXCEPTION USING ERRCODE = 'unique_violation', MESSAGE = 'duplicate key value"
                        + " violates unique index " + t.indexName + " that dupguard is adding to " + t.table()
                        + "'; END IF; END IF; RETURN NEW; END $dg$");
        withLockTimeout(
                c,
                lockWait,
                "CREATE TRIGGER " + trigger + " BEFORE INSERT OR UPDATE OF " + t.keySpec() + " ON " + t.table()
                        + " FOR EACH ROW EXECUTE FUNCTION " + function + "()");
    }

    private void installMysql(Connection c) throws SQLException {
        String first = t.key.get(0).name();
        long covering = Sql.queryLong(
                c,
                "SELECT COUNT(*) FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE()"
                        + " AND TABLE_NAME = ? AND SEQ_IN_INDEX = 1 AND COLUMN_NAME = ?",
                t.table(),
                first);
        if (covering == 0) {
            Sql.execute(
                    c,
                    "ALTER TABLE " + t.table() + " ADD INDEX " + lookupIndex + " (" + t.keySpec()
                            + "), ALGORITHM=INPLACE, LOCK=NONE");
            ownLookupIndex = true;
        }
        Sql.execute(c, "CREATE TABLE " + buckets + " (b INT NOT NULL PRIMARY KEY)");
        Sql.execute(
                c,
                "INSERT INTO " + buckets + " (b) WITH RECURSIVE s (n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM s"
                        + " WHERE n < 31) SELECT a.n * 32 + b.n FROM s a CROSS JOIN s b");
        String weight = t.key.stream()
                .map(col -> "WEIGHT_STRING(" + t.keyExpr("NEW", col) + ")")
                .collect(Collectors.joining(", "));
        for (String event : new String[] {"INSERT", "UPDATE"}) {
            Sql.execute(
                    c,
                    "CREATE TRIGGER " + cut(trigger + "_" + event.charAt(0)) + " BEFORE " + event + " ON " + t.table()
                            + " FOR EACH ROW BEGIN DECLARE dg_n INT DEFAULT 0; IF " + t.keysNotNull("NEW")
                            + " THEN SELECT COUNT(*) INTO dg_n FROM " + buckets + " WHERE b = CRC32(CONCAT(" + weight
                            + ")) % " + BUCKETS + " FOR UPDATE; SELECT COUNT(*) INTO dg_n FROM " + t.table()
                            + " x WHERE " + t.keysMatch("x", "NEW") + " AND x." + t.id() + " <> NEW." + t.id()
                            + "; IF dg_n > 0 THEN SIGNAL SQLSTATE '23000' SET MYSQL_ERRNO = 1062,"
                            + " MESSAGE_TEXT = 'Duplicate entry: dupguard is adding unique index " + t.indexName
                            + " to " + t.table() + "'; END IF; END IF; END");
        }
    }

    /** Drops the trigger, its helpers and the lookup index; idempotent. */
    void remove(Connection c, Duration lockWait) throws SQLException {
        switch (t.dialect()) {
            case POSTGRESQL -> {
                withLockTimeout(c, lockWait, "DROP TRIGGER IF EXISTS " + trigger + " ON " + t.table());
                Sql.execute(c, "DROP FUNCTION IF EXISTS " + function + "()");
                Sql.execute(c, "DROP INDEX CONCURRENTLY IF EXISTS " + lookupIndex);
            }
            case MYSQL -> {
                Sql.execute(c, "DROP TRIGGER IF EXISTS " + cut(trigger + "_I"));
                Sql.execute(c, "DROP TRIGGER IF EXISTS " + cut(trigger + "_U"));
                Sql.execute(c, "DROP TABLE IF EXISTS " + buckets);
                if (ownLookupIndex
                        || Sql.queryLong(
                                        c,
                                        "SELECT COUNT(*) FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE()"
                                                + " AND TABLE_NAME = ? AND INDEX_NAME = ?",
                                        t.table(),
                                        lookupIndex)
                                > 0) {
                    Sql.execute(
                            c,
                            "ALTER TABLE " + t.table() + " DROP INDEX " + lookupIndex
                                    + ", ALGORITHM=INPLACE, LOCK=NONE");
                }
            }
            case H2 -> {}
        }
        ownLookupIndex = false;
    }

    /**
     * Trigger DDL needs a short exclusive table lock; waiting for it in the lock queue would stall
     * every writer behind it, so it waits at most {@code lockWait} and fails (transient) instead.
     */
    private static void withLockTimeout(Connection c, Duration lockWait, String ddl) throws SQLException {
        Sql.execute(c, "SET lock_timeout = " + Math.max(1, lockWait.toMillis()));
        try {
            Sql.execute(c, ddl);
        } finally {
            Sql.execute(c, "SET lock_timeout = 0");
        }
    }
}
