package io.dupguard.jdbc.dedupe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.jdbc.SqlDialect;
import io.dupguard.jdbc.dedupe.NaiveWriters.Phase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * The scale test: 1 M rows, 3 % of them duplicates in groups of 2–5 (a third of the
 * extras differ only by letter case), while naive writers keep inserting — some of them new
 * duplicates — through the whole scan → apply → guard.
 */
abstract class DedupeScaleContract {
    static final String TABLE = "t_scale";
    static final int BASE = 970_000;
    static final int GROUPS = 12_000;
    static final int EXTRAS = 30_000; // sum over g = 1..12000 of (1 + g % 4)

    abstract SqlDialect dialect();

    /** Loads BASE unique rows, then the extras (later created_at, so the base row is kept). */
    abstract void load(Statement s) throws SQLException;

    /** The writers' lookup, as the service would write it under this comparison. */
    abstract String lookup();

    /** Two rows' keys equal under the comparison, in a form the lookup index serves. */
    abstract String sameKey(String a, String b);

    @Test
    void millionRowsAreCleanedAndIndexedWhileNaiveWritersKeepInserting() throws Exception {
        try (HikariDataSource ds = DedupeDb.pool(dialect(), 4)) {
            try (Connection c = ds.getConnection();
                    Statement s = c.createStatement()) {
                DedupeDb.createAccounts(c, dialect(), TABLE);
                load(s);
            }
            Dedupe dedupe = Dedupe.builder(ds)
                    .table(TABLE)
                    .key("open_id")
                    .compare(Comparison.IGNORE_CASE)
                    .keep(Keep.oldest("created_at"))
                    .batchSize(1000)
                    .rate(Rate.parse("30000/s"))
                    .build();
            GuardResult guard;
            ScanReport before;
            try (NaiveWriters writers = new NaiveWriters(DedupeDb.url(dialect()), TABLE, lookup(), 4, 0.03)) {
                writers.start();
                await().atMost(Duration.ofSeconds(30)).until(() -> writers.completed(Phase.BEFORE) >= 500);
                writers.phase(Phase.SCAN);
                before = dedupe.scan();
                writers.phase(Phase.APPLY);
                ApplyResult applied = dedupe.apply(p -> {}, () -> false);
                writers.phase(Phase.GUARD);
                guard = dedupe.guard();
                writers.phase(Phase.AFTER);
                await().atMost(Duration.ofSeconds(30)).until(() -> writers.completed(Phase.AFTER) >= 500);
                writers.close();

                System.out.printf(
                        Locale.ROOT,
                        "%s: scan %d rows in %d ms, %d groups, %d to delete; apply deleted %d in %d ms; guard %s;"
                                + " writers inserted %d, refused %d; p99 ms before %.1f scan %.1f apply %.1f guard %.1f"
                                + " after %.1f; max ms apply %.1f guard %.1f%n",
                        dialect(),
                        before.rowsScanned(),
                        before.elapsed().toMillis(),
                        before.groups(),
                        before.rowsToDelete(),
                        applied.deleted(),
                        applied.elapsed().toMillis(),
                        guard,
                        writers.inserted.size(),
                        writers.refused.get(),
                        writers.p99Millis(Phase.BEFORE),
                        writers.p99Millis(Phase.SCAN),
                        writers.p99Millis(Phase.APPLY),
                        writers.p99Millis(Phase.GUARD),
                        writers.p99Millis(Phase.AFTER),
                        writers.maxMillis(Phase.APPLY),
                        writers.maxMillis(Phase.GUARD));

                assertThat(writers.errors).isEmpty();
                assertThat(before.rowsToDelete()).isGreaterThanOrEqualTo(EXTRAS);
                assertThat(guard.valid()).isTrue();
                assertThat(dedupe.scan().groups()).isZero();
                try (Connection c = ds.getConnection();
                        Statement s = c.createStatement()) {
                    long baseLeft = count(s, "SELECT COUNT(*) FROM " + TABLE + " WHERE id <= " + BASE);
                    long rows = count(s, "SELECT COUNT(*) FROM " + TABLE);
                    long backup = count(s, "SELECT COUNT(*) FROM " + TABLE + "_dedupe_backup");
                    long backupIds = count(s, "SELECT COUNT(DISTINCT id) FROM " + TABLE + "_dedupe_backup");
                    long both = count(
                            s,
                            "SELECT COUNT(*) FROM " + TABLE + " t JOIN " + TABLE + "_dedupe_backup b ON b.id = t.id");
                    long orphans = count(
                            s,
                            "SELECT COUNT(*) FROM " + TABLE + "_dedupe_backup b WHERE NOT EXISTS (SELECT 1 FROM "
                                    + TABLE + " t WHERE " + sameKey("t", "b") + ")");
                    assertThat(baseLeft).as("every original non-duplicate row").isEqualTo(BASE);
                    assertThat(rows + backup)
                            .as("every row ever inserted is in the table or in the backup")
                            .isEqualTo(BASE + EXTRAS + writers.inserted.size());
                    assertThat(backupIds).isEqualTo(backup);
                    assertThat(both).isZero();
                    assertThat(orphans)
                            .as("every deleted row's key is still held by its kept row")
                            .isZero();
                }
                long insertedAfter = writers.inserted.stream()
                        .filter(i -> i.phase() == Phase.AFTER)
                        .count();
                assertThat(insertedAfter + writers.refused.get()).isPositive();
            }
        }
    }

    private static long count(Statement s, String sql) throws SQLException {
        try (var rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
