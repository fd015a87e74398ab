package io.dupguard.console;

import io.dupguard.jdbc.SqlDialect;
import io.dupguard.retry.NewTask;
import io.dupguard.retry.TaskState;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Locale;
import java.util.Optional;

/**
 * The operator's actions on retry tasks, each one transaction: lock the row ({@code SELECT … FOR
 * UPDATE}), compare its state and version ({@code updated_at}) with what the operator saw, change
 * it, write the audit entry. A task that changed meanwhile is left as it is and no entry is written;
 * of two operators acting on one task at once the second waits for the first's lock, then finds the
 * new version and is told so.
 */
final class TaskActions {
    /** What an action on one task does. */
    enum Kind {
        UNBLOCK("unblock", "state = 'P', run_base = runs, due_at = %1$s, updated_at = %1$s", TaskState.PENDING),
        CANCEL("cancel", "state = 'C', due_at = NULL, updated_at = %1$s", TaskState.CANCELLED),
        RUN_NOW("run-now", "due_at = %1$s, updated_at = %1$s", TaskState.PENDING);

        final String name;
        final String set;
        final TaskState to;

        Kind(String name, String set, TaskState to) {
            this.name = name;
            this.set = set;
            this.to = to;
        }

        boolean appliesTo(TaskState s) {
            return switch (this) {
                case UNBLOCK -> s == TaskState.BLOCKED;
                case CANCEL -> s == TaskState.BLOCKED || s == TaskState.PENDING;
                case RUN_NOW -> s == TaskState.PENDING;
            };
        }

        String states() {
            return switch (this) {
                case UNBLOCK -> "'B'";
                case CANCEL -> "'B', 'P'";
                case RUN_NOW -> "'P'";
            };
        }

        static Kind named(String name) {
            for (Kind k : values()) {
                if (k.name.equals(name)) {
                    return k;
                }
            }
            throw new BadRequestException("unknown task action '" + name + "' (unblock, cancel or run-now)");
        }
    }

    private final Db db;
    private final RetryTasks tasks;
    private final AuditLog audit;

    TaskActions(Db db, RetryTasks tasks, AuditLog audit) {
        this.db = db;
        this.tasks = tasks;
        this.audit = audit;
    }

    /**
     * Applies {@code kind} to task {@code id} if it is still at {@code version} (required: the
     * version the operator saw) and in a state the action applies to; {@code payload} (unblock only,
     * null to keep) replaces the task's input.
     */
    Outcome apply(Actor actor, Kind kind, long id, Instant version, byte[] payload, String reason) {
        String why = Reasons.check(actor, reason);
        if (version == null) {
            throw new BadRequestException("give version: the task's version as shown (a number in the page's form"
                    + " and the API's task); nothing changed");
        }
        if (payload != null && (kind != Kind.UNBLOCK || payload.length > NewTask.MAX_PAYLOAD_BYTES)) {
            throw new BadRequestException(
                    kind != Kind.UNBLOCK
                            ? "only an unblock can edit the payload"
                            : "the payload is larger than " + NewTask.MAX_PAYLOAD_BYTES + " bytes");
        }
        return db.inTransaction(kind.name + " retry task", c -> {
            Optional<TaskRow> found = lock(c, id);
            if (found.isEmpty()) {
                throw new BadRequestException("there is no retry task " + id);
            }
            TaskRow before = found.get();
            if (!version.equals(before.updatedAt())) {
                return Outcome.refused("task " + id + " changed since it was shown (it is " + before.state()
                        + " now, last changed " + before.updatedAt() + "); nothing changed");
            }
            if (!kind.appliesTo(before.state())) {
                return Outcome.refused(
                        "task " + id + " is " + before.state() + ": " + kind.name + " does not apply; nothing changed");
            }
            String set = String.format(Locale.ROOT, kind.set, db.now()) + (payload != null ? ", payload = ?" : "");
            try (PreparedStatement ps =
                    c.prepareStatement("UPDATE " + tasks.table() + " SET " + set + " WHERE id = ?")) {
                int i = 1;
                if (payload != null) {
                    ps.setBytes(i++, payload);
                }
                ps.setLong(i, id);
                ps.executeUpdate();
            }
            notifyWorkers(c, kind);
            audit.write(
                    c,
                    actor,
                    kind.name,
                    "task " + id,
                    why,
                    Json.object(
                            "state",
                            before.state().name(),
                            "type",
                            before.type(),
                            "attempts",
                            before.attempts(),
                            "updatedAt",
                            before.updatedAt(),
                            "payloadBytes",
                            before.payloadSize()),
                    Json.object("state", kind.to.name(), "payloadEdited", payload != null));
            return Outcome.done(
                    kind.name + ": task " + id + " is " + kind.to + (kind == Kind.CANCEL ? "" : " and due now"));
        });
    }

    /** How many tasks a bulk action on {@code f} would change, and the highest id among them. */
    Selection select(Kind kind, TaskFilter f) {
        checkBulk(kind, f);
        return db.read("count retry tasks", c -> {
            Sql q = where(new Sql().append("SELECT COUNT(*), MAX(id) FROM " + tasks.table()), kind, f, Long.MAX_VALUE);
            try (PreparedStatement ps = q.prepare(c, db);
                    ResultSet rs = ps.executeQuery()) {
                rs.next();
                return new Selection(rs.getLong(1), rs.getLong(2));
            }
        });
    }

    /**
     * Applies {@code kind} to the tasks of {@code f} (every field of the filter: state, type, task
     * key, dedup key, error text, changed since) with ids up to {@code maxId}, if exactly {@code
     * expected} of them still match; otherwise rolls back and reports the new count.
     */
    Outcome applyAll(Actor actor, Kind kind, TaskFilter f, long maxId, long expected, String reason) {
        String why = Reasons.check(actor, reason);
        checkBulk(kind, f);
        return db.inTransaction("bulk " + kind.name, c -> {
            String set = String.format(Locale.ROOT, kind.set, db.now());
            Sql q = where(new Sql().append("UPDATE " + tasks.table() + " SET " + set), kind, f, maxId);
            int n;
            try (PreparedStatement ps = q.prepare(c, db)) {
                n = ps.executeUpdate();
            }
            if (n != expected) {
                c.rollback();
                return Outcome.refused("the selection changed: " + n + " task(s) match now, not " + expected
                        + " as confirmed; nothing changed — review and confirm again");
            }
            notifyWorkers(c, kind);
            String target = "tasks " + f.describe(f.listState()) + ", ids up to " + maxId;
            audit.write(
                    c,
                    actor,
                    "bulk-" + kind.name,
                    target,
                    why,
                    Json.object("state", f.listState().name(), "count", n),
                    Json.object("state", kind.to.name(), "count", n));
            return Outcome.done("bulk " + kind.name + ": " + n + " task(s) " + kind.to);
        });
    }

    /**
     * A bulk action's selection at confirmation time.
     *
     * @param count how many tasks match
     * @param maxId the highest matching id (the action is bounded by it)
     */
    record Selection(long count, long maxId) {}

    /**
     * Refuses a selection a bulk action cannot apply: a page cursor (a bulk action changes the whole
     * selection), a search without a state (it lists every state; a bulk action takes one), a state
     * the action does not apply to.
     */
    private static void checkBulk(Kind kind, TaskFilter f) {
        if (f.cursor() != null) {
            throw new BadRequestException(
                    "a bulk action applies to every task of the selection, not to a page: drop cursor; nothing changed");
        }
        if (f.state() == null && f.search()) {
            throw new BadRequestException("a bulk action takes the tasks of one state, and this search covers every"
                    + " state: give state (BLOCKED or PENDING); nothing changed");
        }
        if (kind == Kind.RUN_NOW && f.listState() != TaskState.PENDING
                || kind == Kind.UNBLOCK && f.listState() != TaskState.BLOCKED
                || !kind.appliesTo(f.listState())) {
            throw new BadRequestException(kind.name + " does not apply to " + f.listState() + " tasks");
        }
    }

    /** The selection's {@code WHERE}: every field of the filter, the action's states, ids up to {@code maxId}. */
    private Sql where(Sql q, Kind kind, TaskFilter f, long maxId) {
        q.append(" WHERE state = ?", RetryTasks.code(f.listState()));
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
            q.append(" AND last_error LIKE ?", RetryTasks.contains(f.error()));
        }
        if (f.since() != null) {
            q.append(" AND updated_at >= ?", f.since());
        }
        return q.append(" AND state IN (" + kind.states() + ") AND id <= ?", maxId);
    }

    private Optional<TaskRow> lock(Connection c, long id) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement("SELECT id FROM " + tasks.table() + " WHERE id = ? FOR UPDATE")) {
            ps.setLong(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
            }
        }
        return tasks.find(c, id);
    }

    /** On PostgreSQL, wakes the listening workers at commit, as an enqueue does. */
    private void notifyWorkers(Connection c, Kind kind) throws SQLException {
        if (kind != Kind.CANCEL && db.dialect == SqlDialect.POSTGRESQL) {
            try (PreparedStatement ps = c.prepareStatement("SELECT pg_notify(?, '')")) {
                ps.setString(1, tasks.table().toLowerCase(Locale.ROOT));
                ps.executeQuery().close();
            }
        }
    }
}
