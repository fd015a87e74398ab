package io.dupguard.jdbc.dedupe;

import io.dupguard.jdbc.SqlDialect;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * A checked clean-up target: the table, its key and ordering columns as stored, the comparison,
 * and the names of the tables dupguard keeps next to it. Builds every SQL fragment from these
 * checked names only; values are always bound.
 */
final class Target {
    static final String RUNS_TABLE = "dupguard_dedupe_runs";

    record OrderTerm(TableInfo.Column column, boolean descending) {}

    final TableInfo info;
    final List<TableInfo.Column> key;
    final Set<Comparison> compare;
    final List<OrderTerm> order;
    final String keepSpec;
    final List<TableInfo.Column> merge;
    final String backupTable;
    final String planTable;
    final String indexName;

    Target(
            TableInfo info,
            List<TableInfo.Column> key,
            Set<Comparison> compare,
            List<OrderTerm> order,
            String keepSpec,
            List<TableInfo.Column> merge,
            String backupTable,
            String planTable,
            String indexName) {
        this.info = info;
        this.key = List.copyOf(key);
        this.compare = Set.copyOf(compare);
        this.order = List.copyOf(order);
        this.keepSpec = keepSpec;
        this.merge = List.copyOf(merge);
        this.backupTable = backupTable;
        this.planTable = planTable;
        this.indexName = indexName;
    }

    SqlDialect dialect() {
        return info.dialect;
    }

    String table() {
        return info.table;
    }

    String id() {
        return info.id.name();
    }

    String keySpec() {
        return key.stream().map(TableInfo.Column::name).collect(Collectors.joining(","));
    }

    String compareSpec() {
        return Comparison.describe(compare);
    }

    private static String ref(String alias, String column) {
        return alias == null ? column : alias + "." + column;
    }

    /** The compared form of one key column. */
    String keyExpr(String alias, TableInfo.Column column) {
        String x = ref(alias, column.name());
        if (!column.isText()) {
            return x;
        }
        SqlDialect d = dialect();
        if (compare.contains(Comparison.NFC)) {
            x = "normalize(" + x + ", NFC)"; // PostgreSQL only; checked when the target is built
        }
        if (compare.contains(Comparison.TRIM)) {
            x = "TRIM(" + x + ")";
        }
        if (d == SqlDialect.MYSQL) {
            // On MySQL/MariaDB the column's collation decides equality. A case-insensitive collation
            // is what "ignore-case" means there (and exactly what a unique index on it enforces);
            // "exact" compares the bytes (guarantee K6).
            if (compare.contains(Comparison.IGNORE_CASE)) {
                return column.caseInsensitiveCollation() ? x : "LOWER(" + x + ")";
            }
            return column.caseInsensitiveCollation() ? "CAST(" + x + " AS BINARY)" : x;
        }
        return compare.contains(Comparison.IGNORE_CASE) ? "LOWER(" + x + ")" : x;
    }

    String keyList(String alias) {
        return key.stream().map(c -> keyExpr(alias, c)).collect(Collectors.joining(", "));
    }

    String keysNotNull(String alias) {
        return key.stream().map(c -> ref(alias, c.name()) + " IS NOT NULL").collect(Collectors.joining(" AND "));
    }

    String keysMatch(String a, String b) {
        return key.stream().map(c -> keyExpr(a, c) + " = " + keyExpr(b, c)).collect(Collectors.joining(" AND "));
    }

    String sameValue(String a, String b) {
        return dialect() == SqlDialect.MYSQL ? a + " <=> " + b : a + " IS NOT DISTINCT FROM " + b;
    }

    /** Merge columns equal between two rows; TRUE when there are none. */
    String mergeMatch(String a, String b) {
        if (merge.isEmpty()) {
            return "1 = 1";
        }
        return merge.stream()
                .map(c -> sameValue(ref(a, c.name()), ref(b, c.name())))
                .collect(Collectors.joining(" AND "));
    }

    /** Keep order: the first row is kept. NULLs last, the id breaks ties. */
    String orderBy(String alias) {
        StringBuilder sb = new StringBuilder();
        for (OrderTerm t : order) {
            String x = ref(alias, t.column().name());
            sb.append("CASE WHEN ")
                    .append(x)
                    .append(" IS NULL THEN 1 ELSE 0 END, ")
                    .append(x)
                    .append(t.descending() ? " DESC" : " ASC")
                    .append(", ");
        }
        return sb.append(ref(alias, id())).append(" ASC").toString();
    }

    /**
     * Rows to delete: {@code dg_row, dg_keeper, dg_grp, dg_conflict}; one row per duplicate beyond
     * the kept one. {@code dg_conflict} is 1 for every row of a group whose merge columns differ.
     */
    String planSelect() {
        String w = "OVER (PARTITION BY " + keyList(null) + " ORDER BY " + orderBy(null) + ")";
        StringBuilder inner = new StringBuilder("SELECT ")
                .append(id())
                .append(" AS dg_row, FIRST_VALUE(")
                .append(id())
                .append(") ")
                .append(w)
                .append(" AS dg_keeper, ROW_NUMBER() ")
                .append(w)
                .append(" AS dg_rn, DENSE_RANK() OVER (ORDER BY ")
                .append(keyList(null))
                .append(") AS dg_grp, COUNT(*) OVER (PARTITION BY ")
                .append(keyList(null))
                .append(") AS dg_n");
        StringBuilder diff = new StringBuilder();
        for (int i = 0; i < merge.size(); i++) {
            String m = merge.get(i).name();
            inner.append(", ").append(m).append(" AS dg_m").append(i);
            inner.append(", FIRST_VALUE(")
                    .append(m)
                    .append(") ")
                    .append(w)
                    .append(" AS dg_k")
                    .append(i);
            diff.append(diff.length() == 0 ? "" : " OR ")
                    .append("NOT (")
                    .append(sameValue("z.dg_m" + i, "z.dg_k" + i))
                    .append(")");
        }
        inner.append(" FROM ").append(table()).append(" WHERE ").append(keysNotNull(null));
        String conflict =
                merge.isEmpty() ? "0" : "MAX(CASE WHEN " + diff + " THEN 1 ELSE 0 END) OVER (PARTITION BY z.dg_grp)";
        return "SELECT y.dg_row, y.dg_keeper, y.dg_grp, y.dg_conflict FROM (SELECT z.dg_row, z.dg_keeper, z.dg_grp,"
                + " z.dg_rn, " + conflict + " AS dg_conflict FROM (" + inner + ") z WHERE z.dg_n > 1) y"
                + " WHERE y.dg_rn > 1";
    }

    /** Duplicate keys with their row counts: {@code dg_k0.., dg_n}. */
    String scanSelect() {
        StringBuilder cols = new StringBuilder();
        for (int i = 0; i < key.size(); i++) {
            cols.append(keyExpr(null, key.get(i))).append(" AS dg_k").append(i).append(", ");
        }
        return "SELECT " + cols + "COUNT(*) AS dg_n FROM " + table() + " WHERE " + keysNotNull(null) + " GROUP BY "
                + keyList(null) + " HAVING COUNT(*) > 1";
    }

    /** Stored column list, for copying rows between the table and its backup. */
    String columnList(String alias) {
        return info.storedColumns().stream().map(c -> ref(alias, c.name())).collect(Collectors.joining(", "));
    }
}
