package io.dupguard.lab.dedupe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dupguard.lab.LabCli;
import io.dupguard.lab.SecondLane;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * {@code dupguard dedupe} end to end on PostgreSQL, including an apply killed with SIGKILL in the
 * middle of its run that a second apply finishes with the same final state.
 */
@Execution(ExecutionMode.CONCURRENT) // in the second lane: see SecondLane
@ResourceLock(SecondLane.LOCK)
class DedupeCliIT {
    static final String URL =
            System.getProperty("dupguard.pg.url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
    static final String TABLE = "t_cli_account";
    static final int BASE = 20_000;
    static final int EXTRAS = 2_500; // sum over g = 1..1000 of (1 + g % 4)

    @BeforeEach
    void createTable() throws SQLException {
        try (Connection c = DriverManager.getConnection(URL);
                Statement s = c.createStatement()) {
            for (String t : new String[] {TABLE + "_dedupe_backup", TABLE + "_dedupe_plan", TABLE}) {
                s.execute("DROP TABLE IF EXISTS " + t);
            }
            if (exists(s, "dupguard_dedupe_runs")) {
                s.execute("DELETE FROM dupguard_dedupe_runs WHERE table_name = '" + TABLE + "'");
            }
            s.execute("CREATE TABLE " + TABLE + " (id BIGSERIAL PRIMARY KEY, open_id VARCHAR(64),"
                    + " local_identifier VARCHAR(64), created_at TIMESTAMP NOT NULL)");
            s.execute("INSERT INTO " + TABLE + " (open_id, local_identifier, created_at) SELECT 'oid-' || g,"
                    + " 'li-' || g, TIMESTAMP '2026-01-01' + g * INTERVAL '1 second' FROM generate_series(1, " + BASE
                    + ") g");
            s.execute("INSERT INTO " + TABLE + " (open_id, local_identifier, created_at) SELECT CASE WHEN e % 3 = 0"
                    + " THEN UPPER('oid-' || (g * 20)) ELSE 'oid-' || (g * 20) END, 'li-' || (g * 20),"
                    + " TIMESTAMP '2026-06-01' + g * INTERVAL '1 second' + e * INTERVAL '1 millisecond'"
                    + " FROM generate_series(1, 1000) g, generate_series(1, 4) e WHERE e <= 1 + g % 4");
        }
    }

    private static String[] args(String phase, String... more) {
        List<String> a = new ArrayList<>(List.of(
                "dedupe",
                phase,
                "--jdbc-url",
                URL,
                "--table",
                TABLE,
                "--key",
                "open_id",
                "--compare",
                "ignore-case",
                "--keep",
                "oldest:created_at"));
        a.addAll(List.of(more));
        return a.toArray(new String[0]);
    }

    @Test
    void allCleansTheTableAndAddsTheIndex() throws Exception {
        Path json = Files.createTempFile("dedupe", ".json");

        LabCli.Result r = LabCli.run(args("all", "--rate", "unlimited", "--json", json.toString()));

        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out())
                .contains("duplicate groups        1,000")
                .contains("rows to delete          2,500")
                .contains("guard: unique index ux_t_cli_account_open_id is valid");
        assertThat(Files.readString(json)).contains("\"valid\" : true").contains("\"exitStatus\" : 0");
        assertFinalState();
    }

    @Test
    void aKilledApplyResumesAndEndsInTheSameState() throws Exception {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                "io.dupguard.lab.cli.DupguardCli"));
        command.addAll(List.of(args("apply", "--rate", "1000/s", "--batch", "50")));
        Process victim = new ProcessBuilder(command).redirectErrorStream(true).start();
        try (Connection c = DriverManager.getConnection(URL);
                Statement s = c.createStatement()) {
            await().atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> exists(s, TABLE + "_dedupe_backup")
                            && count(s, "SELECT COUNT(*) FROM " + TABLE + "_dedupe_backup") >= 500);
            victim.destroyForcibly(); // SIGKILL: no shutdown hook, the open batch is rolled back by the server
            assertThat(victim.waitFor(30, TimeUnit.SECONDS)).isTrue();
            long backedUp = count(s, "SELECT COUNT(*) FROM " + TABLE + "_dedupe_backup");
            assertThat(backedUp).isBetween(500L, (long) EXTRAS - 1);
            assertThat(count(s, "SELECT COUNT(*) FROM " + TABLE)).isEqualTo(BASE + EXTRAS - backedUp);
        }

        LabCli.Result resumed = LabCli.run(args("apply", "--rate", "unlimited"));

        assertThat(resumed.status()).as(resumed.err()).isZero();
        assertThat(resumed.out()).contains("(resumed)").contains("deleted 2,500 of 2,500 planned rows");
        assertFinalState();
    }

    @Test
    void badInputExitsTwoNamingWhatIsWrongAndDeletesNothing() throws Exception {
        LabCli.Result column = LabCli.run(args("apply", "--merge-check", "phone"));
        LabCli.Result keep = LabCli.run(
                "dedupe",
                "apply",
                "--jdbc-url",
                URL,
                "--table",
                TABLE,
                "--key",
                "open_id",
                "--keep",
                "oldest:inserted_at");
        LabCli.Result identifier = LabCli.run(args("scan", "--key", "open_id;drop"));
        LabCli.Result rate = LabCli.run(args("apply", "--rate", "fast"));

        assertThat(column.status()).isEqualTo(2);
        assertThat(column.err()).contains("--merge-check").contains("'phone'").contains("open_id");
        assertThat(keep.status()).isEqualTo(2);
        assertThat(keep.err()).contains("--keep").contains("inserted_at");
        assertThat(identifier.status()).isEqualTo(2);
        assertThat(identifier.err()).contains("--key");
        assertThat(rate.status()).isEqualTo(2);
        assertThat(rate.err()).contains("--rate");
        try (Connection c = DriverManager.getConnection(URL);
                Statement s = c.createStatement()) {
            assertThat(count(s, "SELECT COUNT(*) FROM " + TABLE)).isEqualTo(BASE + EXTRAS);
        }
    }

    private static void assertFinalState() throws SQLException {
        try (Connection c = DriverManager.getConnection(URL);
                Statement s = c.createStatement()) {
            assertThat(count(s, "SELECT COUNT(*) FROM " + TABLE)).isEqualTo(BASE);
            assertThat(count(s, "SELECT COUNT(*) FROM " + TABLE + " WHERE id <= " + BASE))
                    .isEqualTo(BASE);
            assertThat(count(s, "SELECT COUNT(*) FROM " + TABLE + "_dedupe_backup"))
                    .isEqualTo(EXTRAS);
            assertThat(count(s, "SELECT COUNT(DISTINCT id) FROM " + TABLE + "_dedupe_backup"))
                    .isEqualTo(EXTRAS);
        }
    }

    private static boolean exists(Statement s, String table) throws SQLException {
        return count(s, "SELECT COUNT(*) FROM information_schema.tables WHERE table_name = '" + table + "'") > 0;
    }

    private static long count(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
