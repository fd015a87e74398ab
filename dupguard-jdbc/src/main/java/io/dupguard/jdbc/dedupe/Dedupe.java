package io.dupguard.jdbc.dedupe;

import io.dupguard.jdbc.SqlDialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;

/**
 * Cleans the duplicates an existing table already has, then adds the unique key — online,
 * throttled, nothing lost (guarantee C1). The phases:
 *
 * <ul>
 *   <li>{@link #scan()} — read-only report of the duplicate groups under the chosen {@link
 *       Comparison};
 *   <li>{@link #dryRun()} — what {@code apply} would delete and which groups the merge check refuses;
 *   <li>{@link #apply} — deletes the extras in throttled batches, each one transaction that first
 *       copies the rows to the backup table; resumes a stopped run;
 *   <li>{@link #guard()} — adds the unique index without blocking writers, cleaning duplicates that
 *       writers insert meanwhile;
 *   <li>{@link #restore(String)} — puts a run's backed-up rows back.
 * </ul>
 *
 * <pre>{@code
 * Dedupe dedupe = Dedupe.builder(dataSource)
 *         .table("t_account").key("open_id")
 *         .compare(Comparison.IGNORE_CASE).keep(Keep.oldest("created_at"))
 *         .rate(Rate.parse("1000keys/min")).build();
 * dedupe.apply(Progress.Listener.none(), () -> false);
 * dedupe.guard();
 * }</pre>
 *
 * Names are checked against the database's catalog before any SQL that uses them runs; a wrong
 * name, a missing column or a missing privilege raises {@link DedupeException} and deletes
 * nothing. dupguard keeps three tables next to the target: {@code <table>_dedupe_backup}, {@code
 * <table>_dedupe_plan} and {@code dupguard_dedupe_runs}.
 *
 * <p>Immutable and thread-safe; each call takes its own connection. Two {@code apply} calls on the
 * same table do not delete a row twice (batches lock the run row), but there is no point in it.
 */
public final class Dedupe {
    /** Rows deleted per batch (one transaction each) unless set. */
    public static final int DEFAULT_BATCH_SIZE = 500;
    /** Largest accepted batch size. */
    public static final int MAX_BATCH_SIZE = 10_000;
    /** Groups shown with their rows in the scan report unless set. */
    public static final int DEFAULT_SAMPLE_GROUPS = 5;
    /** Index builds {@code guard} tries before giving up unless set. */
    public static final int DEFAULT_GUARD_ATTEMPTS = 5;
    /** Duplicate rows {@code guard} deletes on its own before asking for {@code apply}, unless set. */
    public static final long DEFAULT_GUARD_MAX_CLEAN_ROWS = 10_000;
    /** How long the MySQL/MariaDB DDL waits for its metadata lock before trying again, unless set. */
    public static final Duration DEFAULT_LOCK_WAIT = Duration.ofSeconds(3);

    private final Builder b;

    private Dedupe(Builder b) {
        this.b = b;
    }

    /**
     * Starts a builder for the table reached through {@code dataSource}.
     *
     * @param dataSource the database; not null
     * @return a new builder
     */
    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    /**
     * The duplicate groups; reads only.
     *
     * @return the groups, their counts and a sample; never null
     * @throws DedupeException for a wrong name or a database failure
     */
    public ScanReport scan() {
        return run("scan", (c, t) -> Scanner.scan(c, t, b.sampleGroups));
    }

    /**
     * What {@link #apply} would delete now, without writing anything.
     *
     * @return the rows and groups that would be deleted; never null
     */
    public ApplyResult dryRun() {
        return run("dry run", Applier::dryRun);
    }

    /**
     * Deletes the duplicates: continues the newest unfinished run for this table, key, comparison
     * and keep rule, or plans a new one. Returns when the run is finished, or early (resumable)
     * when {@code stop} answers true between batches or the thread is interrupted.
     *
     * @param listener receives progress after every committed batch; not null
     * @param stop polled between batches; not null
     * @return what the run deleted, and whether it finished or stopped early; never null
     * @throws DedupeException for a wrong name, a missing privilege or a database failure; the
     *     batch in progress is rolled back and the run can be resumed
     */
    public ApplyResult apply(Progress.Listener listener, BooleanSupplier stop) {
        Objects.requireNonNull(listener, "listener");
        Objects.requireNonNull(stop, "stop");
        return run("apply", (c, t) -> Applier.apply(c, t, applySettings(listener, stop, b.rate)));
    }

    /**
     * Adds the unique index on the key without blocking writers (see {@link GuardResult#valid()}
     * for the only success).
     *
     * @return the index's state after the attempt; never null
     * @throws DedupeException when the database cannot enforce the comparison with a unique index,
     *     when too many duplicates remain (run {@link #apply} first), or on a database failure
     */
    public GuardResult guard() {
        Applier.Settings cleanup = applySettings(Progress.Listener.none(), () -> false, Rate.UNLIMITED);
        return run(
                "guard",
                (c, t) -> Guard.guard(
                        c, t, new Guard.Settings(b.guardAttempts, b.guardMaxCleanRows, b.lockWait, cleanup)));
    }

    /**
     * Puts the rows a run deleted back into the table.
     *
     * @param runId the run, or null for the newest applied, unrestored run of the table
     * @return how many rows were put back; never null
     */
    public RestoreResult restore(String runId) {
        return run("restore", (c, t) -> Restorer.restore(c, t, runId));
    }

    private Applier.Settings applySettings(Progress.Listener listener, BooleanSupplier stop, Rate rate) {
        return new Applier.Settings(b.batchSize, rate, b.pause, listener, stop);
    }

    @FunctionalInterface
    private interface Phase<R> {
        R run(Connection c, Target t) throws SQLException;
    }

    private <R> R run(String phase, Phase<R> work) {
        String table = b.table;
        try (Connection c = b.dataSource.getConnection()) {
            boolean autoCommit = c.getAutoCommit();
            int isolation = c.getTransactionIsolation();
            try {
                c.setAutoCommit(true);
                // Reads of the whole table (scan, plan) must not take row locks that block writers;
                // on MySQL/MariaDB REPEATABLE READ would make INSERT … SELECT do exactly that.
                c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
                Target t = target(c);
                return work.run(c, t);
            } finally {
                c.setAutoCommit(autoCommit);
                c.setTransactionIsolation(isolation);
            }
        } catch (SQLException e) {
            if (Sql.isPermission(e)) {
                throw DedupeException.badInput(
                        phase + " on table '" + table + "': missing privilege: " + e.getMessage()
                                + "; nothing was deleted by the failing step",
                        e);
            }
            throw DedupeException.failed(
                    phase + " on table '" + table + "' failed: " + e.getMessage()
                            + "; the batch in progress (if any) was rolled back",
                    e);
        }
    }

    private Target target(Connection c) throws SQLException {
        SqlDialect dialect = SqlDialect.detect(c);
        if (b.compare.contains(Comparison.NFC) && dialect != SqlDialect.POSTGRESQL) {
            throw DedupeException.badInput("--compare nfc needs PostgreSQL (normalize()); " + dialect.id()
                    + " has no Unicode normalisation function");
        }
        TableInfo info = TableInfo.read(c, dialect, b.table, b.idColumn);
        List<TableInfo.Column> key = new ArrayList<>();
        for (String k : b.key) {
            key.add(info.column(k, "--key"));
        }
        List<Target.OrderTerm> order = new ArrayList<>();
        Keep keep = b.keep != null ? b.keep : Keep.lowest(info.id.name());
        for (Keep.Term term : keep.terms()) {
            order.add(new Target.OrderTerm(info.column(term.column(), "--keep"), term.descending()));
        }
        List<TableInfo.Column> merge = new ArrayList<>();
        for (String m : b.mergeCheck) {
            merge.add(info.column(m, "--merge-check"));
        }
        String base = info.table.toLowerCase(Locale.ROOT);
        String backup = name(b.backupTable, base + "_dedupe_backup", "--backup-table", 60);
        String plan = name(null, base + "_dedupe_plan", "--table", 60);
        String index =
                name(b.indexName, "ux_" + base + "_" + String.join("_", b.key).toLowerCase(Locale.ROOT), "--index", 63);
        return new Target(info, key, b.compare, order, keep.toString(), merge, backup, plan, index);
    }

    private static String name(String given, String derived, String field, int max) {
        String n = given != null ? given : derived;
        if (given == null && n.length() > max) {
            if (!field.equals("--index")) {
                throw DedupeException.badInput(field + ": the derived name '" + n + "' is longer than " + max
                        + " characters; name the backup table with --backup-table");
            }
            n = n.substring(0, max);
        }
        return TableInfo.checkIdentifier(n, field);
    }

    /** Builds a {@link Dedupe}; setters reject bad values at once, naming the field. Not thread-safe. */
    public static final class Builder {
        private final DataSource dataSource;
        private String table;
        private List<String> key = List.of();
        private Set<Comparison> compare = EnumSet.noneOf(Comparison.class);
        private Keep keep;
        private List<String> mergeCheck = List.of();
        private String idColumn;
        private int batchSize = DEFAULT_BATCH_SIZE;
        private Rate rate = Rate.DEFAULT;
        private Duration pause = Duration.ZERO;
        private String backupTable;
        private String indexName;
        private int sampleGroups = DEFAULT_SAMPLE_GROUPS;
        private int guardAttempts = DEFAULT_GUARD_ATTEMPTS;
        private long guardMaxCleanRows = DEFAULT_GUARD_MAX_CLEAN_ROWS;
        private Duration lockWait = DEFAULT_LOCK_WAIT;

        private Builder(DataSource dataSource) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        }

        /**
         * The table to clean (a plain identifier). Required.
         *
         * @param table the table; a plain SQL identifier, not null
         * @return this builder
         */
        public Builder table(String table) {
            this.table = TableInfo.checkIdentifier(table, "--table");
            return this;
        }

        /**
         * The key columns whose values must be unique. Required, at least one.
         *
         * @param columns the key columns; plain SQL identifiers, at least one
         * @return this builder
         */
        public Builder key(String... columns) {
            return key(List.of(columns));
        }

        /**
         * The key columns whose values must be unique. Required, at least one.
         *
         * @param columns the key columns; plain SQL identifiers, at least one
         * @return this builder
         */
        public Builder key(List<String> columns) {
            if (columns.isEmpty()) {
                throw new IllegalArgumentException("--key: at least one column is required");
            }
            columns.forEach(col -> TableInfo.checkIdentifier(col, "--key"));
            if (columns.stream().map(s -> s.toLowerCase(Locale.ROOT)).distinct().count() != columns.size()) {
                throw new IllegalArgumentException("--key: a column is listed twice in " + columns);
            }
            this.key = List.copyOf(columns);
            return this;
        }

        /**
         * How keys compare; none means exact (the default).
         *
         * @param comparisons the comparisons; none means exact
         * @return this builder
         */
        public Builder compare(Comparison... comparisons) {
            EnumSet<Comparison> set = EnumSet.noneOf(Comparison.class);
            set.addAll(List.of(comparisons));
            set.remove(Comparison.EXACT);
            this.compare = set;
            return this;
        }

        /**
         * How keys compare, e.g. from {@link Comparison#parse}.
         *
         * @param comparisons the comparisons; not null, empty means exact
         * @return this builder
         */
        public Builder compare(Set<Comparison> comparisons) {
            return compare(comparisons.toArray(new Comparison[0]));
        }

        /**
         * Which row of a group survives (default: the lowest id).
         *
         * @param keep the keep rule; not null
         * @return this builder
         */
        public Builder keep(Keep keep) {
            this.keep = Objects.requireNonNull(keep, "keep");
            keep.terms().forEach(term -> TableInfo.checkIdentifier(term.column(), "--keep"));
            return this;
        }

        /**
         * Columns whose values must be equal across a group before any row of it is deleted; groups
         * that differ are left alone and reported for a person.
         *
         * @param columns the columns to compare within a group; plain SQL identifiers, not null
         * @return this builder
         */
        public Builder mergeCheck(List<String> columns) {
            columns.forEach(col -> TableInfo.checkIdentifier(col, "--merge-check"));
            this.mergeCheck = List.copyOf(columns);
            return this;
        }

        /**
         * The row id column when the table has no single-column primary key.
         *
         * @param column the id column; a plain SQL identifier, not null
         * @return this builder
         */
        public Builder idColumn(String column) {
            this.idColumn = column == null ? null : TableInfo.checkIdentifier(column, "--id");
            return this;
        }

        /**
         * Rows per batch (one transaction each), 1..{@value #MAX_BATCH_SIZE}; default {@value
         * #DEFAULT_BATCH_SIZE}.
         *
         * @param rows the rows per batch, 1..{@value #MAX_BATCH_SIZE}
         * @return this builder
         * @throws IllegalArgumentException if {@code rows} is out of range
         */
        public Builder batchSize(int rows) {
            if (rows < 1 || rows > MAX_BATCH_SIZE) {
                throw new IllegalArgumentException(
                        "--batch must be between 1 and " + MAX_BATCH_SIZE + " rows, was " + rows);
            }
            this.batchSize = rows;
            return this;
        }

        /**
         * The deletion rate limit (default {@link Rate#DEFAULT}).
         *
         * @param rate the rate limit; not null
         * @return this builder
         */
        public Builder rate(Rate rate) {
            this.rate = Objects.requireNonNull(rate, "rate");
            return this;
        }

        /**
         * A pause after every batch, on top of the rate limit (default none).
         *
         * @param pause the pause; not null, zero or positive
         * @return this builder
         */
        public Builder pause(Duration pause) {
            if (pause.isNegative()) {
                throw new IllegalArgumentException("--pause must not be negative, was " + pause);
            }
            this.pause = pause;
            return this;
        }

        /**
         * The backup table (default {@code <table>_dedupe_backup}).
         *
         * @param name the backup table; a plain SQL identifier, or null for the default
         * @return this builder
         */
        public Builder backupTable(String name) {
            this.backupTable = name == null ? null : TableInfo.checkIdentifier(name, "--backup-table");
            return this;
        }

        /**
         * The unique index's name (default {@code ux_<table>_<columns>}).
         *
         * @param name the index name; a plain SQL identifier, or null for the default
         * @return this builder
         */
        public Builder indexName(String name) {
            this.indexName = name == null ? null : TableInfo.checkIdentifier(name, "--index");
            return this;
        }

        /**
         * Groups shown with their rows in the scan report (default {@value
         * #DEFAULT_SAMPLE_GROUPS}).
         *
         * @param groups the number of sample groups, 0–1000
         * @return this builder
         * @throws IllegalArgumentException if {@code groups} is out of range
         */
        public Builder sampleGroups(int groups) {
            if (groups < 0 || groups > 1000) {
                throw new IllegalArgumentException("--sample must be between 0 and 1000 groups, was " + groups);
            }
            this.sampleGroups = groups;
            return this;
        }

        /**
         * Index builds {@code guard} tries before giving up (default {@value
         * #DEFAULT_GUARD_ATTEMPTS}).
         *
         * @param attempts the number of index builds, 1–100
         * @return this builder
         * @throws IllegalArgumentException if {@code attempts} is out of range
         */
        public Builder guardAttempts(int attempts) {
            if (attempts < 1 || attempts > 100) {
                throw new IllegalArgumentException("--attempts must be between 1 and 100, was " + attempts);
            }
            this.guardAttempts = attempts;
            return this;
        }

        /**
         * Duplicate rows {@code guard} deletes on its own (with backup) before refusing and asking
         * for {@code apply} (default {@value #DEFAULT_GUARD_MAX_CLEAN_ROWS}).
         *
         * @param rows the most duplicate rows {@code guard} deletes itself, zero or positive
         * @return this builder
         */
        public Builder guardMaxCleanRows(long rows) {
            if (rows < 0) {
                throw new IllegalArgumentException("--max-clean must not be negative, was " + rows);
            }
            this.guardMaxCleanRows = rows;
            return this;
        }

        /**
         * How long the MySQL/MariaDB DDL waits for its metadata lock before trying again (default 3
         * s).
         *
         * @param wait the metadata lock wait; not null, positive
         * @return this builder
         */
        public Builder lockWait(Duration wait) {
            if (wait.isNegative() || wait.isZero()) {
                throw new IllegalArgumentException("--lock-wait must be positive, was " + wait);
            }
            this.lockWait = wait;
            return this;
        }

        /**
         * @return an immutable, thread-safe clean-up of one table
         * @throws IllegalArgumentException when the table or the key is missing
         */
        public Dedupe build() {
            if (table == null) {
                throw new IllegalArgumentException("--table is required");
            }
            if (key.isEmpty()) {
                throw new IllegalArgumentException("--key is required (one or more columns)");
            }
            Builder copy = new Builder(dataSource);
            copy.table = table;
            copy.key = key;
            copy.compare = EnumSet.copyOf(compare.isEmpty() ? EnumSet.of(Comparison.EXACT) : compare);
            copy.compare.remove(Comparison.EXACT);
            copy.keep = keep;
            copy.mergeCheck = mergeCheck;
            copy.idColumn = idColumn;
            copy.batchSize = batchSize;
            copy.rate = rate;
            copy.pause = pause;
            copy.backupTable = backupTable;
            copy.indexName = indexName;
            copy.sampleGroups = sampleGroups;
            copy.guardAttempts = guardAttempts;
            copy.guardMaxCleanRows = guardMaxCleanRows;
            copy.lockWait = lockWait;
            return new Dedupe(copy);
        }
    }
}
