package io.dupguard.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.console.Actor;
import io.dupguard.console.Console;
import io.dupguard.console.ConsoleHandler;
import io.dupguard.console.ConsoleRequest;
import io.dupguard.console.ConsoleResponse;
import io.dupguard.jdbc.JdbcIdempotencyStore;
import io.dupguard.jdbc.JdbcLockProvider;
import io.dupguard.jdbc.JdbcRetryStore;
import io.dupguard.jdbc.SqlDialect;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The operator console's list pages with 1 M retry tasks and 1 M retained idempotency keys (issue
 * 27: "< 200 ms p99"). Per database, tables of their own are filled by one INSERT … SELECT each (PostgreSQL
 * generate_series, MariaDB's sequence engine): 1 M tasks (900 000 SUCCEEDED, 60 000 PENDING, 30 000
 * CANCELLED, 10 000 BLOCKED over 10 types) and 1 M keys in one scope (100 of them stuck claims). Each
 * page is rendered by {@link ConsoleHandler} as a browser asks for it (its SQL, the counts shown above
 * lists, the HTML), {@code --iterations} times after a warm-up; reported: p50, p99 and max in ms.
 * The pages add no index to the stores' tables, so the hot path's writes cost the same as before.
 *
 * <pre>scripts/bench-console [--dbs postgresql,mariadb] [--tasks 1000000] [--keys 1000000] [--iterations 200]
 *     [--prefix bcon_] [--keep false]</pre>
 *
 * {@code --prefix} names the tables ({@code <prefix>retry}, {@code <prefix>idem}, …); {@code --keep
 * true} leaves them filled after the run, to read the pages' query plans (docs/console.md
 * "Performance").
 */
public final class ConsoleBench {
    private ConsoleBench() {}

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = new LinkedHashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            opts.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        }
        int tasks = Integer.parseInt(opts.getOrDefault("tasks", "1000000"));
        int keys = Integer.parseInt(opts.getOrDefault("keys", "1000000"));
        int iterations = Integer.parseInt(opts.getOrDefault("iterations", "200"));
        String prefix = opts.getOrDefault("prefix", "bcon_");
        if (!prefix.matches("[a-z][a-z0-9_]{0,20}")) {
            throw new IllegalArgumentException("--prefix: lower-case letters, digits and _, not " + prefix);
        }
        boolean keep = Boolean.parseBoolean(opts.getOrDefault("keep", "false"));
        StringBuilder report = new StringBuilder();
        for (String db : opts.getOrDefault("dbs", "postgresql,mariadb").split(",")) {
            String url = db.equals("postgresql")
                    ? opts.getOrDefault("pg-url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres")
                    : opts.getOrDefault("mariadb-url", "jdbc:mariadb://127.0.0.1:3306/test?user=root");
            report.append(run(db, url, prefix, keep, tasks, keys, iterations));
        }
        System.out.println("===== REPORT =====");
        System.out.print(report);
    }

    private static String run(String db, String url, String p, boolean keep, int tasks, int keys, int iterations)
            throws Exception {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setMaximumPoolSize(4);
        try (HikariDataSource ds = new HikariDataSource(config)) {
            for (String t : new String[] {"retry", "idem", "locks", "audit"}) {
                exec(ds, "DROP TABLE IF EXISTS " + p + t);
            }
            JdbcRetryStore retry = JdbcRetryStore.builder(ds)
                    .tableName(p + "retry")
                    .createSchemaIfMissing(true)
                    .build();
            retry.stats();
            JdbcIdempotencyStore idem = JdbcIdempotencyStore.builder(ds)
                    .tableName(p + "idem")
                    .createSchemaIfMissing(true)
                    .build();
            idem.find(io.dupguard.idempotency.IdempotencyKey.of("s", "k"));
            JdbcLockProvider locks = JdbcLockProvider.builder(ds)
                    .tableName(p + "locks")
                    .createSchemaIfMissing(true)
                    .build();
            locks.tryAcquire("warm-up").ifPresent(io.dupguard.lock.Lease::close);
            SqlDialect dialect = retry.dialect();
            long t0 = System.nanoTime();
            fill(ds, dialect, p, tasks, keys);
            long fillSeconds = (System.nanoTime() - t0) / 1_000_000_000L;
            Console console = Console.builder(ds)
                    .tables(Map.of(
                            "retry",
                            p + "retry",
                            "idempotency",
                            p + "idem",
                            "locks",
                            p + "locks",
                            "audit",
                            p + "audit"))
                    .build();
            ConsoleHandler h = new ConsoleHandler(console);
            String deep = cursorAfter(h, "/tasks?state=SUCCEEDED", 20);
            String deepBlocked = cursorAfter(h, "/tasks?state=BLOCKED", 20);
            int middle = Math.max(50, tasks / 50 / 5 * 2 * 50); // 40 % into the table, on a page boundary
            String mid = succeededCursorAt(ds, dialect, p, middle);
            Map<String, String> pages = new LinkedHashMap<>();
            pages.put("overview", "/");
            pages.put("tasks: BLOCKED, first page (with the counts)", "/tasks");
            pages.put("tasks: BLOCKED, page 21", "/tasks?state=BLOCKED&cursor=" + deepBlocked);
            pages.put("tasks: PENDING of one type", "/tasks?state=PENDING&type=type.5");
            pages.put("tasks: SUCCEEDED, newest first", "/tasks?state=SUCCEEDED");
            pages.put("tasks: SUCCEEDED, page 21", "/tasks?state=SUCCEEDED&cursor=" + deep);
            pages.put(
                    String.format(Locale.ROOT, "tasks: SUCCEEDED, page %,d", middle / 50 + 1),
                    "/tasks?state=SUCCEEDED&cursor=" + mid);
            pages.put("tasks: RUNNING", "/tasks?state=RUNNING");
            pages.put("tasks: search error text (100 ms budget)", "/tasks?state=any&error=timeout");
            pages.put("task detail", "/tasks/500000");
            pages.put("key lookup", "/keys?scope=payments&key=k-777777");
            pages.put("stuck claims of a scope (100 ms budget)", "/keys/stuck?scope=payments");
            pages.put("locks", "/locks");
            pages.put("audit", "/audit");
            StringBuilder out = new StringBuilder();
            out.append(String.format(
                    Locale.ROOT, "%n### %s: %,d tasks, %,d keys (filled in %d s)%n%n", db, tasks, keys, fillSeconds));
            out.append("| page | p50 ms | p99 ms | max ms |\n|---|---:|---:|---:|\n");
            for (Map.Entry<String, String> e : pages.entrySet()) {
                double[] ms = time(h, e.getValue(), iterations);
                out.append(String.format(
                        Locale.ROOT,
                        "| %s | %.1f | %.1f | %.1f |%n",
                        e.getKey(),
                        pct(ms, 50),
                        pct(ms, 99),
                        ms[ms.length - 1]));
                System.err.print(".");
            }
            System.err.println();
            for (String t : keep ? new String[0] : new String[] {"retry", "idem", "locks", "audit"}) {
                exec(ds, "DROP TABLE IF EXISTS " + p + t);
            }
            return out.toString();
        }
    }

    private static void fill(HikariDataSource ds, SqlDialect d, String p, int tasks, int keys) throws Exception {
        boolean pg = d == SqlDialect.POSTGRESQL;
        String seq = pg ? "generate_series(1, %d) g" : "seq_1_to_%d s";
        String g = pg ? "g" : "s.seq";
        String now = pg ? "now()" : "UTC_TIMESTAMP(6)";
        String ms = pg ? "(%s * interval '1 millisecond')" : "INTERVAL %s * 1000 MICROSECOND";
        String older = now + " - " + String.format(ms, g);
        String state = "CASE WHEN " + g + " %% 100 = 0 THEN 'B' WHEN " + g + " %% 100 < 4 THEN 'C' WHEN " + g
                + " %% 100 < 10 THEN 'P' ELSE 'S' END";
        String type = pg ? "'type.' || (" + g + " % 10)" : "CONCAT('type.', " + g + " % 10)";
        String md5 = pg ? "md5(" + g + "::text)" : "MD5(" + g + ")";
        String payload =
                pg ? "convert_to('{\"order\":' || " + g + " || '}', 'UTF8')" : "CONCAT('{\"order\":', " + g + ", '}')";
        String error = "CASE WHEN " + g + " % 100 = 0 THEN 'gateway timeout after 30 s' ELSE NULL END";
        exec(
                ds,
                "INSERT INTO " + p + "retry (task_type, task_key, state, runs, run_base, due_at, last_error,"
                        + " created_at, updated_at, payload) SELECT " + type + ", " + md5 + ", " + String.format(state)
                        + ", 1, 0, CASE WHEN " + g + " % 100 BETWEEN 4 AND 9 THEN " + now + " + "
                        + String.format(ms, "3600000")
                        + " ELSE NULL END, " + error + ", " + older + ", " + older + ", " + payload + " FROM "
                        + String.format(seq, tasks));
        String fp = pg ? "md5(" + g + "::text) || md5(" + g + "::text)" : "UNHEX(SHA2(" + g + ", 256))";
        String key = pg ? "'k-' || " + g : "CONCAT('k-', " + g + ")";
        String status = "CASE WHEN " + g + " % 10000 = 0 THEN 'P' ELSE 'C' END";
        String expires = "CASE WHEN " + g + " % 10000 = 0 THEN " + now + " - " + String.format(ms, "60000") + " ELSE "
                + now + " + " + String.format(ms, "86400000") + " END";
        exec(
                ds,
                "INSERT INTO " + p + "idem (scope, idem_key, status, fingerprint, owner, payload, expires_at,"
                        + " purge_after) SELECT 'payments', " + key + ", " + status + ", " + fp + ", CASE WHEN " + g
                        + " % 10000 = 0 THEN 'worker-1' ELSE NULL END, " + payload + ", " + expires + ", " + now + " + "
                        + String.format(ms, "86400000") + " FROM " + String.format(seq, keys));
        // A table in service is vacuumed by autovacuum (index-only scans need its visibility map).
        exec(ds, pg ? "VACUUM ANALYZE " + p + "retry" : "ANALYZE TABLE " + p + "retry");
        exec(ds, pg ? "VACUUM ANALYZE " + p + "idem" : "ANALYZE TABLE " + p + "idem");
    }

    /**
     * The cursor of the SUCCEEDED list after its first {@code offset} rows (newest first), as the
     * console writes it: {@code id~microseconds of updated_at}.
     */
    private static String succeededCursorAt(HikariDataSource ds, SqlDialect d, String p, int offset) throws Exception {
        try (Connection c = ds.getConnection();
                java.sql.PreparedStatement ps = c.prepareStatement("SELECT id, updated_at FROM " + p
                        + "retry WHERE state = 'S' ORDER BY updated_at DESC, id DESC LIMIT 1 OFFSET ?")) {
            ps.setInt(1, offset - 1);
            try (java.sql.ResultSet rs = ps.executeQuery()) {
                rs.next();
                java.time.Instant t = d == SqlDialect.POSTGRESQL
                        ? rs.getObject(2, java.time.OffsetDateTime.class).toInstant()
                        : rs.getObject(2, java.time.LocalDateTime.class).toInstant(java.time.ZoneOffset.UTC);
                return rs.getLong(1) + "~" + (t.getEpochSecond() * 1_000_000L + t.getNano() / 1000);
            }
        }
    }

    private static String cursorAfter(ConsoleHandler h, String path, int pages) {
        String cursor = null;
        Pattern next = Pattern.compile("cursor=([^\"&]+)\"");
        for (int i = 0; i < pages; i++) {
            String body = h.handle(request(path + (cursor == null ? "" : "&cursor=" + cursor)))
                    .body();
            Matcher m = next.matcher(body);
            if (!m.find()) {
                throw new IllegalStateException("no next page after page " + i + " of " + path);
            }
            cursor = m.group(1);
        }
        return cursor;
    }

    private static double[] time(ConsoleHandler h, String path, int iterations) {
        ConsoleRequest r = request(path);
        for (int i = 0; i < Math.max(10, iterations / 10); i++) {
            check(h.handle(r), path);
        }
        double[] ms = new double[iterations];
        for (int i = 0; i < iterations; i++) {
            long t = System.nanoTime();
            check(h.handle(r), path);
            ms[i] = (System.nanoTime() - t) / 1e6;
        }
        Arrays.sort(ms);
        return ms;
    }

    private static void check(ConsoleResponse r, String path) {
        if (r.status() != 200) {
            throw new IllegalStateException(path + " answered " + r.status() + ": " + r.body());
        }
    }

    private static ConsoleRequest request(String pathAndQuery) {
        int q = pathAndQuery.indexOf('?');
        Map<String, String> params = new LinkedHashMap<>();
        if (q >= 0) {
            for (String kv : pathAndQuery.substring(q + 1).split("&")) {
                int eq = kv.indexOf('=');
                params.put(
                        kv.substring(0, eq),
                        java.net.URLDecoder.decode(kv.substring(eq + 1), java.nio.charset.StandardCharsets.UTF_8));
            }
        }
        return new ConsoleRequest(
                "GET",
                q >= 0 ? pathAndQuery.substring(0, q) : pathAndQuery,
                params,
                new Actor("bench", false),
                new ConsoleRequest.Csrf("_csrf", "x", false),
                "/dupguard");
    }

    private static double pct(double[] sorted, int p) {
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p / 100.0 * sorted.length) - 1)];
    }

    private static void exec(HikariDataSource ds, String sql) throws Exception {
        try (Connection c = ds.getConnection();
                Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }
}
