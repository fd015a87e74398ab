package io.dupguard.jdbc;

import io.dupguard.lock.Lease;
import io.dupguard.lock.LockOptions;
import io.dupguard.lock.LockProvider;
import io.dupguard.lock.LockUnavailableException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;
import javax.sql.DataSource;

/**
 * Create a row once — a balance initialised on first use, an account binding (guarantees K2, K3, L6, L8,
 * naive schemes 1–6). The default strategy needs a unique key on {@link Builder#keyColumns}:
 *
 * <ol>
 *   <li>Insert-if-absent ({@code ON CONFLICT DO NOTHING}; elsewhere a plain insert where only a
 *       unique violation means "exists", K5).
 *   <li>Not inserted ⇒ re-read the row by its key and verify the {@link Builder#verifiedColumns}: a
 *       row with the same key but, say, another currency is a {@link RowConflictException}, never a
 *       silent success (K3).
 * </ol>
 *
 * <p>Where the table has no unique key, {@link Strategy#LOCK_DOUBLE_CHECK} (L8) checks, takes a
 * lock from the given {@link LockProvider} (waiting for it, lease renewed by the watchdog), checks
 * again and inserts; it is only as safe as the lock. (Seed 000's try-lock-and-give-up schemes are in
 * the lab, which compares them.) Thread-safe.
 */
public final class CreateOnce {
    /** How the row is created once. */
    public enum Strategy {
        /** Insert-if-absent on the table's unique key, then re-read and verify (the default). */
        INSERT_IF_ABSENT,
        /** Check, lock, check again, insert: for a table without a unique key (L8). */
        LOCK_DOUBLE_CHECK
    }

    /**
     * What {@link #create} did: inserted the given row, or found the existing one.
     *
     * @param created whether this call inserted the row
     * @param row the inserted values, or the existing row (column → value, names case-insensitive)
     */
    public record Result(boolean created, Map<String, Object> row) {}

    private final JdbcAccess access;
    private final List<String> keyColumns;
    private final List<String> verifiedColumns;
    private final Strategy strategy;
    private final LockProvider locks;

    private CreateOnce(Builder b) {
        this.access = new JdbcAccess(b.dataSource, null, b.table, b.table, false);
        this.keyColumns = List.copyOf(b.keyColumns);
        this.verifiedColumns = List.copyOf(b.verifiedColumns);
        this.strategy = b.strategy;
        this.locks = b.locks;
    }

    /**
     * A builder for rows of {@code table}.
     *
     * @param dataSource where the table is
     * @param table a plain SQL identifier
     * @return a new builder
     * @throws NullPointerException if {@code dataSource} is null
     * @throws IllegalArgumentException if {@code table} is not a plain identifier
     */
    public static Builder builder(DataSource dataSource, String table) {
        return new Builder(dataSource, table);
    }

    /**
     * Creates {@code row} (column → value, including the key columns) unless a row with its key
     * exists.
     *
     * @param row the values to insert, including the key columns; names are plain identifiers
     * @return whether this call inserted the row, and the row
     * @throws RowConflictException if the existing row differs in a verified column
     * @throws IllegalArgumentException if a key column has no value or a name is not an identifier
     * @throws LockUnavailableException if {@code LOCK_DOUBLE_CHECK} did not get the lock in time
     * @throws io.dupguard.StoreUnavailableException if the database cannot be reached
     */
    public Result create(Map<String, Object> row) {
        Map<String, Object> values = checkRow(row);
        return switch (strategy) {
            case INSERT_IF_ABSENT -> insertIfAbsent(values);
            case LOCK_DOUBLE_CHECK -> lockDoubleCheck(values);
        };
    }

    private Result insertIfAbsent(Map<String, Object> values) {
        return access.withConnection("create once in " + access.table(), c -> {
            for (int round = 0; round < 100; round++) {
                if (tryInsert(c, values)) {
                    return new Result(true, values);
                }
                Optional<Map<String, Object>> existing = select(c, values);
                if (existing.isPresent()) {
                    return existing(values, existing.get());
                }
            }
            throw new SQLException("row in " + access.table() + " neither insertable nor readable after 100 rounds");
        });
    }

    private Result lockDoubleCheck(Map<String, Object> values) {
        Optional<Map<String, Object>> first = access.withConnection("check", c -> select(c, values));
        if (first.isPresent()) {
            return existing(values, first.get());
        }
        Lease lease = locks.acquire(lockName(values), LockOptions.ofDefaults());
        try {
            return checkAndInsert(values);
        } finally {
            lease.close();
        }
    }

    /** Under the lock: check again, then insert (L8). */
    private Result checkAndInsert(Map<String, Object> values) {
        return access.withConnection("check and insert", c -> {
            Optional<Map<String, Object>> found = select(c, values);
            if (found.isPresent()) {
                return existing(values, found.get());
            }
            return tryInsert(c, values)
                    ? new Result(true, values)
                    : existing(values, select(c, values).orElseThrow());
        });
    }

    private boolean tryInsert(Connection c, Map<String, Object> values) throws SQLException {
        SqlDialect d = access.dialect(c);
        String cols = String.join(", ", values.keySet());
        String marks = values.keySet().stream().map(k -> "?").collect(Collectors.joining(", "));
        String sql = "INSERT INTO " + access.table() + " (" + cols + ") VALUES (" + marks + ")"
                + (d.onConflictDoNothing() ? " ON CONFLICT DO NOTHING" : "");
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            int i = 1;
            for (Object v : values.values()) {
                ps.setObject(i++, v);
            }
            return ps.executeUpdate() == 1;
        } catch (SQLException e) {
            if (!d.onConflictDoNothing() && UniqueViolation.test(e)) {
                return false;
            }
            throw e;
        }
    }

    private Optional<Map<String, Object>> select(Connection c, Map<String, Object> values) throws SQLException {
        String where = keyColumns.stream().map(k -> k + " = ?").collect(Collectors.joining(" AND "));
        try (PreparedStatement ps = c.prepareStatement("SELECT * FROM " + access.table() + " WHERE " + where)) {
            int i = 1;
            for (String k : keyColumns) {
                ps.setObject(i++, values.get(k));
            }
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                ResultSetMetaData md = rs.getMetaData();
                Map<String, Object> row = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
                for (int col = 1; col <= md.getColumnCount(); col++) {
                    row.put(md.getColumnLabel(col), rs.getObject(col));
                }
                return Optional.of(row);
            }
        }
    }

    private Result existing(Map<String, Object> requested, Map<String, Object> stored) {
        for (String col : verifiedColumns) {
            if (!sameValue(requested.get(col), stored.get(col))) {
                throw new RowConflictException(access.table(), keyOf(requested), col);
            }
        }
        return new Result(false, stored);
    }

    private static boolean sameValue(Object a, Object b) {
        if (a instanceof Number x && b instanceof Number y) {
            return new java.math.BigDecimal(x.toString()).compareTo(new java.math.BigDecimal(y.toString())) == 0;
        }
        return Objects.equals(
                a == null ? null : a.toString().trim(),
                b == null ? null : b.toString().trim());
    }

    private String keyOf(Map<String, Object> values) {
        return keyColumns.stream().map(k -> String.valueOf(values.get(k))).collect(Collectors.joining("/"));
    }

    private String lockName(Map<String, Object> values) {
        return access.table() + ":" + keyOf(values);
    }

    private Map<String, Object> checkRow(Map<String, Object> row) {
        Objects.requireNonNull(row, "row");
        Map<String, Object> values = new LinkedHashMap<>();
        row.forEach((k, v) -> values.put(SqlIdentifier.check(k, "column"), v));
        for (String k : keyColumns) {
            if (values.get(k) == null) {
                throw new IllegalArgumentException("row must hold a value for key column " + k);
            }
        }
        return values;
    }

    /** Builder; not thread-safe. */
    public static final class Builder {
        private final DataSource dataSource;
        private final String table;
        private final List<String> keyColumns = new ArrayList<>();
        private final List<String> verifiedColumns = new ArrayList<>();
        private Strategy strategy = Strategy.INSERT_IF_ABSENT;
        private LockProvider locks;

        private Builder(DataSource dataSource, String table) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
            this.table = SqlIdentifier.check(table, "table");
        }

        /**
         * The columns of the key that identifies the row (at least one); unique for {@code
         * INSERT_IF_ABSENT}.
         *
         * @param columns plain SQL identifiers
         * @return this builder
         * @throws IllegalArgumentException if a name is not a plain identifier
         */
        public Builder keyColumns(String... columns) {
            for (String c : columns) {
                keyColumns.add(SqlIdentifier.check(c, "keyColumns"));
            }
            return this;
        }

        /**
         * Columns that must match when the row already exists (K3); none by default.
         *
         * @param columns plain SQL identifiers
         * @return this builder
         * @throws IllegalArgumentException if a name is not a plain identifier
         */
        public Builder verifiedColumns(String... columns) {
            for (String c : columns) {
                verifiedColumns.add(SqlIdentifier.check(c, "verifiedColumns"));
            }
            return this;
        }

        /**
         * The strategy, and the lock provider {@code LOCK_DOUBLE_CHECK} needs (the default, {@code
         * INSERT_IF_ABSENT}, needs none).
         *
         * @param strategy the strategy
         * @param locks the lock provider, or null for {@code INSERT_IF_ABSENT}
         * @return this builder
         */
        public Builder strategy(Strategy strategy, LockProvider locks) {
            this.strategy = Objects.requireNonNull(strategy, "strategy");
            this.locks = locks;
            return this;
        }

        /**
         * Builds the helper.
         *
         * @return the helper, thread-safe
         * @throws IllegalArgumentException if no key column was given, or {@code LOCK_DOUBLE_CHECK}
         *     has no lock provider
         */
        public CreateOnce build() {
            if (keyColumns.isEmpty()) {
                throw new IllegalArgumentException("keyColumns must name at least one column");
            }
            if (strategy != Strategy.INSERT_IF_ABSENT && locks == null) {
                throw new IllegalArgumentException("strategy " + strategy + " needs a LockProvider");
            }
            return new CreateOnce(this);
        }
    }
}
