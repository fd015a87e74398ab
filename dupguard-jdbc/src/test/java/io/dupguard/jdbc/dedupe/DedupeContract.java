package io.dupguard.jdbc.dedupe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.jdbc.SqlDialect;
import io.dupguard.jdbc.UniqueViolation;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What every database must do for {@code dedupe}, on a {@code t_account} table (12 rows). */
abstract class DedupeContract {
    static final String TABLE = "t_account";
    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    HikariDataSource ds;

    abstract SqlDialect dialect();

    /** Where the table is and dedupe runs. */
    String url() {
        return DedupeDb.url(dialect());
    }

    /** Where the tests read the outcome: the same server, or another node of a cluster. */
    DataSource reader() {
        return ds;
    }

    /** The comparison the guard test uses: what a unique index on this database can enforce. */
    Comparison guardComparison() {
        return Comparison.IGNORE_CASE;
    }

    @BeforeEach
    void createTable() throws SQLException {
        ds = DedupeDb.pool(url(), 4);
        try (Connection c = ds.getConnection()) {
            DedupeDb.createAccounts(c, dialect(), TABLE);
            Object[][] rows = {
                {"oid-1", "a", 0}, {"oid-1", "a", 1}, {"OID-1", "a", 2}, {"oid-2", "b", 5}, {"oid-2", "b", 3},
                {"oid-3", "c", 0}, {"oid-4", "x", 0}, {"oid-4", "y", 1}, {null, "n", 0}, {null, "n", 1},
                {"Db00X", "k", 0}, {"DB00x", "k", 1}
            };
            try (PreparedStatement ps = c.prepareStatement(
                    "INSERT INTO " + TABLE + " (id, open_id, local_identifier, created_at) VALUES (?, ?, ?, ?)")) {
                int id = 1;
                for (Object[] r : rows) {
                    ps.setLong(1, id++);
                    ps.setString(2, (String) r[0]);
                    ps.setString(3, (String) r[1]);
                    ps.setTimestamp(4, Timestamp.from(T0.plusSeconds((Integer) r[2])));
                    ps.addBatch();
                }
                ps.executeBatch();
            }
            try (PreparedStatement ps = c.prepareStatement(
                    switch (dialect()) {
                        case POSTGRESQL -> "SELECT setval(pg_get_serial_sequence('" + TABLE + "', 'id'), 12)";
                        case H2 -> "ALTER TABLE " + TABLE + " ALTER COLUMN id RESTART WITH 13";
                        case MYSQL -> "ALTER TABLE " + TABLE + " AUTO_INCREMENT = 13";
                    })) {
                ps.execute();
            }
        }
    }

    @AfterEach
    void closePool() {
        ds.close();
    }

    Dedupe.Builder dedupe() {
        return Dedupe.builder(ds).table(TABLE).key("open_id").keep(Keep.oldest("created_at"));
    }

    @Test
    void exactScanKeepsCaseVariantsApart() {
        ScanReport report = dedupe().build().scan();

        assertThat(report.rowsScanned()).isEqualTo(12);
        assertThat(report.groups()).isEqualTo(3);
        assertThat(report.rowsToDelete()).isEqualTo(3);
    }

    @Test
    void ignoreCaseScanFindsTheSeedsCollision() {
        ScanReport report = dedupe().compare(Comparison.IGNORE_CASE).build().scan();

        assertThat(report.groups()).isEqualTo(4);
        assertThat(report.rowsToDelete()).isEqualTo(5);
        assertThat(report.largest().get(0).rows()).isEqualTo(3);
        DuplicateGroup seed = report.sample().stream()
                .filter(g -> g.key().get(0).equalsIgnoreCase("db00x"))
                .findFirst()
                .orElseThrow();
        assertThat(seed.members()).extracting(DuplicateGroup.Member::id).containsExactly("11", "12");
    }

    @Test
    void applyKeepsTheOldestAndBacksUpEveryDeletedRow() throws SQLException {
        ApplyResult result = dedupe().compare(Comparison.IGNORE_CASE)
                .rate(Rate.UNLIMITED)
                .build()
                .apply(p -> {}, () -> false);

        assertThat(result.finished()).isTrue();
        assertThat(result.deleted()).isEqualTo(5);
        assertThat(ids(TABLE)).containsExactly(1L, 5L, 6L, 7L, 9L, 10L, 11L);
        assertThat(ids(TABLE + "_dedupe_backup")).containsExactly(2L, 3L, 4L, 8L, 12L);
    }

    @Test
    void dryRunDeletesNothing() throws SQLException {
        ApplyResult result = dedupe().compare(Comparison.IGNORE_CASE).build().dryRun();

        assertThat(result.planned()).isEqualTo(5);
        assertThat(count(TABLE)).isEqualTo(12);
    }

    @Test
    void mergeCheckLeavesGroupsThatDifferForAPerson() throws SQLException {
        ApplyResult result = dedupe().compare(Comparison.IGNORE_CASE)
                .mergeCheck(List.of("local_identifier"))
                .rate(Rate.UNLIMITED)
                .build()
                .apply(p -> {}, () -> false);

        assertThat(result.conflicts()).isEqualTo(1);
        assertThat(ids(TABLE)).contains(7L, 8L).doesNotContain(2L, 3L, 4L, 12L);
    }

    @Test
    void aStoppedRunResumesAndDeletesNothingTwice() throws SQLException {
        Dedupe dedupe = dedupe().compare(Comparison.IGNORE_CASE)
                .batchSize(1)
                .rate(Rate.UNLIMITED)
                .build();
        AtomicInteger batches = new AtomicInteger();
        assertThatThrownBy(() -> dedupe.apply(
                        p -> {
                            if (batches.incrementAndGet() == 2) {
                                throw new IllegalStateException("killed");
                            }
                        },
                        () -> false))
                .hasMessage("killed");
        assertThat(count(TABLE + "_dedupe_backup")).isEqualTo(2);

        ApplyResult resumed = dedupe.apply(p -> {}, () -> false);

        assertThat(resumed.resumed()).isTrue();
        assertThat(resumed.finished()).isTrue();
        assertThat(resumed.batches()).isEqualTo(3);
        assertThat(ids(TABLE)).containsExactly(1L, 5L, 6L, 7L, 9L, 10L, 11L);
        assertThat(ids(TABLE + "_dedupe_backup")).containsExactly(2L, 3L, 4L, 8L, 12L);
    }

    @Test
    void restorePutsARunsRowsBack() throws SQLException {
        Dedupe dedupe =
                dedupe().compare(Comparison.IGNORE_CASE).rate(Rate.UNLIMITED).build();
        ApplyResult applied = dedupe.apply(p -> {}, () -> false);

        RestoreResult restored = dedupe.restore(null);

        assertThat(restored.runId()).isEqualTo(applied.runId());
        assertThat(restored.restored()).isEqualTo(5);
        assertThat(ids(TABLE)).hasSize(12);
        assertThat(dedupe.restore(applied.runId()).restored()).isZero();
    }

    @Test
    void guardAddsTheUniqueIndexAndTheDatabaseRefusesNewDuplicates() throws SQLException {
        Dedupe dedupe = dedupe().compare(guardComparison()).rate(Rate.UNLIMITED).build();
        dedupe.apply(p -> {}, () -> false);

        GuardResult guard = dedupe.guard();

        assertThat(guard.valid()).isTrue();
        assertThat(dedupe.guard().alreadyPresent()).isTrue();
        String variant = guardComparison() == Comparison.IGNORE_CASE ? "OID-2" : "oid-2";
        assertThatThrownBy(() -> insert(variant))
                .isInstanceOf(SQLException.class)
                .satisfies(
                        e -> assertThat(UniqueViolation.test((SQLException) e)).isTrue());
    }

    @Test
    void guardCleansDuplicatesLeftSinceTheLastApply() throws SQLException {
        Dedupe dedupe = dedupe().compare(guardComparison()).build();

        GuardResult guard = dedupe.guard();

        assertThat(guard.valid()).isTrue();
        assertThat(guard.raceRowsDeleted()).isPositive();
        assertThat(dedupe.scan().groups()).isZero();
    }

    @Test
    void unknownTableIsRefusedByName() throws SQLException {
        assertBadInput(Dedupe.builder(ds).table("no_such_table").key("open_id"), "no_such_table");
    }

    @Test
    void unknownColumnIsRefusedWithTheTablesColumns() throws SQLException {
        assertBadInput(Dedupe.builder(ds).table(TABLE).key("openid"), "openid");
    }

    @Test
    void tableWithoutTheOrderingColumnIsRefused() throws SQLException {
        assertBadInput(dedupe().keep(Keep.oldest("inserted_at")), "inserted_at");
    }

    @Test
    void nonIdentifierIsRefusedBeforeAnySql() throws SQLException {
        assertThatThrownBy(() -> Dedupe.builder(ds).table("t_account; DROP TABLE t_account"))
                .isInstanceOf(DedupeException.class)
                .hasMessageContaining("--table");
        assertThatThrownBy(() -> dedupe().keep(Keep.parse("oldest:created_at) --")))
                .isInstanceOf(DedupeException.class)
                .hasMessageContaining("--keep");
        assertThatThrownBy(() -> dedupe().keep(Keep.parse("order:created_at; DELETE")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--keep");
        assertThat(count(TABLE)).isEqualTo(12);
    }

    void assertBadInput(Dedupe.Builder builder, String named) throws SQLException {
        Dedupe dedupe = builder.rate(Rate.UNLIMITED).build();
        for (Runnable phase :
                List.<Runnable>of(dedupe::scan, () -> dedupe.apply(p -> {}, () -> false), dedupe::guard)) {
            assertThatThrownBy(phase::run)
                    .isInstanceOf(DedupeException.class)
                    .hasMessageContaining(named)
                    .matches(e -> ((DedupeException) e).isBadInput());
        }
        assertThat(count(TABLE)).isEqualTo(12);
    }

    void insert(String openId) throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement(
                        "INSERT INTO " + TABLE + " (open_id, local_identifier, created_at) VALUES (?, 'z', ?)")) {
            ps.setString(1, openId);
            ps.setTimestamp(2, Timestamp.from(Instant.now()));
            ps.executeUpdate();
        }
    }

    List<Long> ids(String table) throws SQLException {
        List<Long> ids = new ArrayList<>();
        try (Connection c = reader().getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT id FROM " + table + " ORDER BY id");
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                ids.add(rs.getLong(1));
            }
        }
        return ids;
    }

    long count(String table) throws SQLException {
        return ids(table).size();
    }
}
