package io.dupguard.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.dupguard.retry.TaskState;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToLongFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The list pages' query plans on MariaDB and PostgreSQL, as the servers execute them ({@code ANALYZE
 * FORMAT=JSON}, {@code EXPLAIN (ANALYZE, FORMAT JSON)}): with 20 000 tasks (15 000 SUCCEEDED), the
 * console's own statement for the first page and for page 11 of each list reads about its own 51 rows
 * from an index, never sorting and never walking the rows before its cursor. Not pinned: RUNNING,
 * which reads every running task (MariaDB: by state, then sorted by lease end; PostgreSQL: the due
 * index through the PENDING tasks due before them), see docs/console.md "Performance".
 */
class ListPlanIT {
    static final int TASKS = 20_000;
    static final int SLACK = 10;

    @Test
    void mariaDbPagesReadOnlyTheirOwnRows() throws Exception {
        check(
                System.getProperty("dupguard.mariadb.url", "jdbc:mariadb://127.0.0.1:3306/test?user=root"),
                fill(
                                "CONCAT('plan.', s.seq % 7)",
                                "MD5(s.seq)", "UTC_TIMESTAMP(6)", "INTERVAL s.seq SECOND", "s.seq", "'{}'")
                        + " FROM seq_1_to_" + TASKS + " s",
                "ANALYZE TABLE $retry",
                "ANALYZE FORMAT=JSON ",
                "filesort",
                plan -> numbers(plan, "r_rows").stream()
                        .mapToLong(Long::longValue)
                        .sum());
    }

    @Test
    void postgresPagesReadOnlyTheirOwnRows() throws Exception {
        check(
                System.getProperty("dupguard.pg.url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres"),
                fill(
                                "'plan.' || (g % 7)",
                                "md5(g::text)", "now()", "(g * interval '1 second')", "g", "convert_to('{}', 'UTF8')")
                        + " FROM generate_series(1, " + TASKS + ") g",
                "VACUUM ANALYZE $retry",
                "EXPLAIN (ANALYZE, FORMAT JSON) ",
                "\"Sort\"",
                // the scan's rows (the largest node's) and those its filter dropped
                plan -> numbers(plan, "Actual Rows").stream()
                                .mapToLong(Long::longValue)
                                .max()
                                .orElseThrow()
                        + numbers(plan, "Rows Removed by Filter").stream()
                                .mapToLong(Long::longValue)
                                .sum());
    }

    /**
     * Fills a fixture's task table with {@code fill}, then checks the plan of every page in {@link
     * #pages}: without {@code sort} (a sort of the rows read), and at most the page's rows (plus
     * {@link #SLACK}) read as {@code rowsRead} counts them in the plan.
     */
    static void check(
            String url, String fill, String analyze, String explain, String sort, ToLongFunction<String> rowsRead)
            throws Exception {
        try (ConsoleFixture f = new ConsoleFixture(url)) {
            f.sql(fill);
            f.sql(analyze);
            for (TaskFilter filter : pages(f)) {
                String plan = plan(f, explain, filter);
                assertThat(plan).as("%s: %s", filter, plan).doesNotContain(sort, "Seq Scan");
                assertThat(rowsRead.applyAsLong(plan))
                        .as("rows read for %s: %s", filter, plan)
                        .isLessThanOrEqualTo(filter.limit() + 1 + SLACK);
            }
        }
    }

    /**
     * One INSERT … SELECT of {@link #TASKS} tasks: per 20, one BLOCKED, one CANCELLED, two PENDING
     * (due in the future), one RUNNING (leased) and 15 SUCCEEDED, over 7 types; each a second older
     * than the one before.
     */
    static String fill(String type, String key, String now, String seconds, String g, String payload) {
        String state = "CASE " + g + " % 20 WHEN 0 THEN 'B' WHEN 1 THEN 'C' WHEN 2 THEN 'P' WHEN 3 THEN 'P'"
                + " WHEN 4 THEN 'R' ELSE 'S' END";
        String due = "CASE WHEN " + g + " % 20 BETWEEN 2 AND 4 THEN " + now + " + " + seconds + " ELSE NULL END";
        return "INSERT INTO $retry (task_type, task_key, state, runs, run_base, due_at, created_at, updated_at,"
                + " payload) SELECT " + type + ", " + key + ", " + state + ", 1, 0, " + due + ", " + now + " - "
                + seconds + ", " + now + " - " + seconds + ", " + payload;
    }

    /** The first page and page 11 of each list. */
    static List<TaskFilter> pages(ConsoleFixture f) {
        List<TaskFilter> out = new ArrayList<>();
        for (TaskFilter first : new TaskFilter[] {
            filter(TaskState.BLOCKED, null),
            filter(TaskState.PENDING, "plan.3"),
            filter(TaskState.PENDING, null),
            filter(TaskState.SUCCEEDED, null)
        }) {
            out.add(first);
            TaskFilter at = first;
            for (int page = 1; page < 11; page++) {
                at = first.at(f.console.tasks(at).next());
            }
            assertThat(at.cursor()).as("page 11 of %s", first).isNotNull();
            out.add(at);
        }
        return out;
    }

    static TaskFilter filter(TaskState state, String type) {
        return new TaskFilter(state, type, null, null, null, null, null, TaskFilter.DEFAULT_LIMIT);
    }

    /** The plan of the console's statement for {@code filter}, executed with {@code explain} in front. */
    static String plan(ConsoleFixture f, String explain, TaskFilter filter) throws Exception {
        Db db = new Db(f.ds);
        Sql page = new RetryTasks(db, f.prefix + "retry").rangeQuery(filter);
        Sql q = page.prefixed(explain);
        StringBuilder out = new StringBuilder();
        try (Connection c = f.ds.getConnection();
                PreparedStatement ps = q.prepare(c, db);
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.append(rs.getString(1));
            }
        }
        return out.toString();
    }

    static List<Long> numbers(String json, String field) {
        List<Long> out = new ArrayList<>();
        Matcher m = Pattern.compile("\"" + Pattern.quote(field) + "\"\\s*:\\s*([0-9.]+)")
                .matcher(json);
        while (m.find()) {
            out.add(Math.round(Double.parseDouble(m.group(1))));
        }
        return out;
    }
}
