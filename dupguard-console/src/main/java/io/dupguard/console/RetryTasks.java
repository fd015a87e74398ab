package io.dupguard.console;

import io.dupguard.retry.TaskState;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The read model of a retry task table, paged by the database (keyset pagination, never OFFSET):
 *
 * <ol>
 *   <li>PENDING, BLOCKED and CANCELLED tasks by (type, id) on the open index {@code (state,
 *       task_type, id)}; RUNNING by (lease end, id) on the due index; SUCCEEDED newest first by
 *       (updated_at, id) on the done index (on MySQL/MariaDB named in {@code FORCE INDEX}). A page reads
 *       only its own rows, however large the table.
 *   <li>A search (task key, error text, dedup key without its type) reads windows of {@value
 *       #WINDOW} ids by primary key, newest first, until the page is full or {@value #BUDGET_MILLIS}
 *       ms have passed; the cursor continues where the scan stopped. No index serves it, so the
 *       write path pays nothing for it.
 *   <li>Counts per state are capped at {@value #COUNT_CAP} (shown as "10000+"), so the overview
 *       reads at most that many index entries per state.
 * </ol>
 */
final class RetryTasks {
    static final int PAYLOAD_LIMIT = 4096;
    static final int WINDOW = 50_000;
    static final int BUDGET_MILLIS = 100;
    static final int COUNT_CAP = 10_000;

    private static final String LIST_COLUMNS =
            "id, task_type, task_key, dedup_key, state, runs - run_base, due_at, last_error, created_at, updated_at";

    private final Db db;
    private final String table;
    private volatile String doneHint;

    RetryTasks(Db db, String table) {
        this.db = db;
        this.table = table;
    }

    String table() {
        return table;
    }

    Optional<TaskRow> find(long id) {
        return db.read("read retry task", c -> find(c, id));
    }

    Optional<TaskRow> find(Connection c, long id) throws SQLException {
        String sql = "SELECT " + LIST_COLUMNS + ", SUBSTRING(payload FROM 1 FOR " + PAYLOAD_LIMIT
                + "), OCTET_LENGTH(payload) FROM " + table + " WHERE id = ?";
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setLong(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(row(rs, true)) : Optional.empty();
            }
        }
    }

    Page<TaskRow> list(TaskFilter f) {
        return f.search() ? search(f) : range(f);
    }

    private Page<TaskRow> range(TaskFilter f) {
        TaskState state = f.listState();
        Sql q = rangeQuery(f);
        List<TaskRow> rows = db.read("list retry tasks", c -> rows(c, q));
        String next = null;
        if (rows.size() > f.limit()) {
            rows = rows.subList(0, f.limit());
            TaskRow last = rows.get(rows.size() - 1);
            next = switch (state) {
                case RUNNING -> Cursor.of(last.id(), last.dueAt());
                case SUCCEEDED -> Cursor.of(last.id(), last.updatedAt());
                default -> Cursor.of(last.id(), last.type());
            };
        }
        return new Page<>(rows, next, null);
    }

    /** The statement of a list page (not a search): {@code limit + 1} rows, to know if there is a next page. */
    Sql rangeQuery(TaskFilter f) {
        TaskState state = f.listState();
        String from = state == TaskState.SUCCEEDED ? table + doneIndexHint() : table;
        Sql q = new Sql().append("SELECT " + LIST_COLUMNS + " FROM " + from + " WHERE state = ?", code(state));
        if (f.type() != null) {
            q.append(" AND task_type = ?", new Sql.Text(f.type()));
        }
        if (f.dedupKey() != null) {
            q.append(" AND dedup_key = ?", new Sql.Text(f.dedupKey()));
        }
        if (f.since() != null) {
            q.append(" AND updated_at >= ?", f.since());
        }
        Cursor at = Cursor.parse(f.cursor());
        switch (state) {
            case RUNNING -> {
                q.append(" AND due_at IS NOT NULL");
                if (at != null) {
                    at.requireTime(f.cursor());
                    after(q, "due_at", ">", at.time(), at.id());
                }
                q.append(" ORDER BY due_at, id");
            }
            case SUCCEEDED -> {
                if (at != null) {
                    at.requireTime(f.cursor());
                    after(q, "updated_at", "<", at.time(), at.id());
                }
                q.append(" ORDER BY updated_at DESC, id DESC");
            }
            default -> {
                if (at != null && f.type() != null) {
                    q.append(" AND id > ?", at.id());
                } else if (at != null) {
                    if (at.text() == null) {
                        throw new BadRequestException("not a page cursor of this list: " + f.cursor());
                    }
                    after(q, "task_type", ">", new Sql.Text(at.text()), at.id());
                }
                q.append(f.type() != null ? " ORDER BY id" : " ORDER BY task_type, id");
            }
        }
        return q.append(db.limit(), f.limit() + 1);
    }

    /**
     * The keyset predicate "{@code (column, id) op (value, id)}" in the form the dialect's optimizer
     * turns into an index range starting at the cursor: a row value on PostgreSQL and H2 (an index
     * condition there; the expanded OR is only a filter, which walks every row before the cursor), the
     * expanded OR on MySQL/MariaDB (whose range optimizer builds the range from it, not from a row value).
     */
    private void after(Sql q, String column, String op, Object value, long id) {
        if (db.mysql()) {
            q.append(
                    " AND (" + column + " " + op + " ? OR (" + column + " = ? AND id " + op + " ?))", value, value, id);
        } else {
            q.append(" AND (" + column + ", id) " + op + " (?, ?)", value, id);
        }
    }

    /**
     * On MySQL/MariaDB, {@code FORCE INDEX} of the table's {@code (state, updated_at)} index, found in
     * {@code information_schema} once; empty elsewhere or if there is none. Without it MariaDB reads a
     * SUCCEEDED page after a cursor by {@code ref} on {@code state} alone, walking every newer row
     * (page 8 001 of 900 000: 400 000 rows) whenever the range after the cursor looks larger than the
     * ref estimate; with it the page is a range from the cursor, its own rows only.
     */
    private String doneIndexHint() {
        String hint = doneHint;
        if (hint == null && db.mysql()) {
            hint = db.read("find the done index", c -> {
                int dot = table.lastIndexOf('.');
                String sql = "SELECT a.INDEX_NAME FROM information_schema.STATISTICS a JOIN"
                        + " information_schema.STATISTICS b ON b.TABLE_SCHEMA = a.TABLE_SCHEMA AND b.TABLE_NAME ="
                        + " a.TABLE_NAME AND b.INDEX_NAME = a.INDEX_NAME WHERE a.TABLE_SCHEMA = "
                        + (dot < 0 ? "DATABASE()" : "?") + " AND a.TABLE_NAME = ? AND a.SEQ_IN_INDEX = 1 AND"
                        + " a.COLUMN_NAME = 'state' AND b.SEQ_IN_INDEX = 2 AND b.COLUMN_NAME = 'updated_at'"
                        + " ORDER BY a.INDEX_NAME";
                try (PreparedStatement ps = c.prepareStatement(sql)) {
                    int i = 1;
                    if (dot >= 0) {
                        ps.setString(i++, table.substring(0, dot));
                    }
                    ps.setString(i, table.substring(dot + 1));
                    try (ResultSet rs = ps.executeQuery()) {
                        return rs.next() ? " FORCE INDEX (`" + rs.getString(1).replace("`", "``") + "`)" : null;
                    }
                }
            });
            doneHint = hint; // not found (no table yet, or another schema): asked again next time
        }
        return hint == null ? "" : hint;
    }

    private Page<TaskRow> search(TaskFilter f) {
        return db.read("search retry tasks", c -> {
            Cursor at = Cursor.parse(f.cursor());
            long upper = at != null ? at.id() : maxId(c) + 1;
            long deadline = System.nanoTime() + BUDGET_MILLIS * 1_000_000L;
            List<TaskRow> found = new ArrayList<>();
            while (upper > 0 && found.size() < f.limit() && System.nanoTime() < deadline) {
                long lower = Math.max(0, upper - WINDOW);
                Sql q = new Sql()
                        .append(
                                "SELECT " + LIST_COLUMNS + " FROM " + table + " WHERE id >= ? AND id < ?",
                                lower,
                                upper);
                if (f.state() != null) {
                    q.append(" AND state = ?", code(f.state()));
                }
                if (f.type() != null) {
                    q.append(" AND task_type = ?", new Sql.Text(f.type()));
                }
                if (f.taskKey() != null) {
                    q.append(" AND task_key = ?", f.taskKey());
                }
                if (f.dedupKey() != null) {
                    q.append(" AND dedup_key = ?", new Sql.Text(f.dedupKey()));
                }
                if (f.error() != null) {
                    q.append(" AND last_error LIKE ?", contains(f.error()));
                }
                if (f.since() != null) {
                    q.append(" AND updated_at >= ?", f.since());
                }
                q.append(" ORDER BY id DESC").append(db.limit(), f.limit() - found.size());
                List<TaskRow> rows = rows(c, q);
                found.addAll(rows);
                upper = found.size() == f.limit() ? rows.get(rows.size() - 1).id() : lower;
            }
            String next = upper > 0 ? Cursor.of(upper, (String) null) : null;
            String note = upper > 0
                    ? "searched the tasks with ids from " + upper + " up; the next page continues below"
                    : null;
            return new Page<>(found, next, note);
        });
    }

    private long maxId(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT MAX(id) FROM " + table);
                ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /**
     * Task counts by state and type; each state's count stops at {@link #COUNT_CAP} + 1 rows read.
     * On PostgreSQL, whose open index leaves RUNNING tasks out, they are counted among the first
     * {@link #COUNT_CAP} + 1 entries of the due index (which also holds the PENDING ones): a lower
     * bound when that window is full.
     */
    List<Count> counts() {
        return db.read("count retry tasks", c -> {
            List<Count> out = new ArrayList<>();
            for (TaskState s : new TaskState[] {
                TaskState.BLOCKED, TaskState.PENDING, TaskState.RUNNING, TaskState.CANCELLED, TaskState.SUCCEEDED
            }) {
                // PostgreSQL's open index leaves RUNNING out; elsewhere it holds every state.
                boolean dueWindow = s == TaskState.RUNNING && db.dialect == io.dupguard.jdbc.SqlDialect.POSTGRESQL;
                String inner = dueWindow
                        ? "SELECT task_type, state FROM " + table + " WHERE due_at IS NOT NULL ORDER BY due_at"
                                + db.limit()
                        : "SELECT task_type, state FROM " + table + " WHERE state = ?" + db.limit();
                String sql = "SELECT task_type, COUNT(*), SUM(CASE WHEN state = ? THEN 1 ELSE 0 END) FROM (" + inner
                        + ") capped GROUP BY task_type ORDER BY task_type";
                try (PreparedStatement ps = c.prepareStatement(sql)) {
                    int i = 1;
                    ps.setString(i++, code(s));
                    if (!dueWindow) {
                        ps.setString(i++, code(s));
                    }
                    ps.setInt(i, COUNT_CAP + 1);
                    long read = 0;
                    long total = 0;
                    List<Count> rows = new ArrayList<>();
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            read += rs.getLong(2);
                            long n = rs.getLong(3);
                            total += n;
                            if (n > 0) {
                                rows.add(new Count(s, db.readText(rs, 1), n, false));
                            }
                        }
                    }
                    boolean capped = read > COUNT_CAP;
                    out.add(new Count(s, null, Math.min(total, COUNT_CAP), capped));
                    for (Count r : rows) {
                        out.add(capped ? new Count(s, r.type(), Math.min(r.count(), COUNT_CAP), true) : r);
                    }
                }
            }
            return out;
        });
    }

    /**
     * A count of tasks in {@code state} (of {@code type}, or of every type if null).
     *
     * @param state the state
     * @param type the type, or null for all
     * @param count the count, at most {@link #COUNT_CAP}
     * @param capped whether counting stopped at the cap (the real number is higher, or, for a type,
     *     the number is a lower bound)
     */
    record Count(TaskState state, String type, long count, boolean capped) {}

    private List<TaskRow> rows(Connection c, Sql q) throws SQLException {
        List<TaskRow> out = new ArrayList<>();
        try (PreparedStatement ps = q.prepare(c, db);
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(row(rs, false));
            }
        }
        return out;
    }

    private TaskRow row(ResultSet rs, boolean withPayload) throws SQLException {
        return new TaskRow(
                rs.getLong(1),
                db.readText(rs, 2),
                rs.getString(3),
                db.readText(rs, 4),
                TaskState.ofCode(rs.getString(5).charAt(0)),
                rs.getInt(6),
                db.instant(rs, 7),
                rs.getString(8),
                db.instant(rs, 9),
                db.instant(rs, 10),
                withPayload ? rs.getBytes(11) : new byte[0],
                withPayload ? rs.getInt(12) : -1);
    }

    static String code(TaskState s) {
        return String.valueOf(s.code());
    }

    /** The {@code LIKE} pattern of text that contains {@code s}. */
    static String contains(String s) {
        return "%" + s.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%";
    }
}
