package io.dupguard.jdbc.dedupe;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.stream.Collectors;

/** The read-only scan: groups, rows to delete, largest groups, a sample in keep order. */
final class Scanner {
    static final int LARGEST = 10;

    private Scanner() {}

    private record Found(List<Object> key, long rows) {}

    static ScanReport scan(Connection c, Target t, int sampleGroups) throws SQLException {
        long start = System.nanoTime();
        long total;
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + t.table())) {
            rs.next();
            total = rs.getLong(1);
        }
        long groups = 0;
        long extra = 0;
        PriorityQueue<Found> largest = new PriorityQueue<>(Comparator.comparingLong(Found::rows));
        List<Found> sample = new ArrayList<>();
        try (Statement s = c.createStatement()) {
            s.setFetchSize(1000);
            try (ResultSet rs = s.executeQuery(t.scanSelect())) {
                while (rs.next()) {
                    List<Object> key = new ArrayList<>();
                    for (int i = 1; i <= t.key.size(); i++) {
                        key.add(rs.getObject(i));
                    }
                    Found f = new Found(key, rs.getLong(t.key.size() + 1));
                    groups++;
                    extra += f.rows() - 1;
                    largest.add(f);
                    if (largest.size() > LARGEST) {
                        largest.poll();
                    }
                    if (sample.size() < sampleGroups) {
                        sample.add(f);
                    }
                }
            }
        }
        List<DuplicateGroup> top = largest.stream()
                .sorted(Comparator.comparingLong(Found::rows).reversed())
                .map(f -> new DuplicateGroup(text(f.key()), f.rows(), List.of()))
                .toList();
        List<DuplicateGroup> sampled = members(c, t, sample);
        return new ScanReport(
                t.table(),
                t.key.stream().map(TableInfo.Column::name).toList(),
                t.compareSpec(),
                total,
                groups,
                extra,
                top,
                sampled,
                memberColumns(t),
                Duration.ofNanos(System.nanoTime() - start));
    }

    /** The columns shown for each member of a sampled group (after its id). */
    static List<String> memberColumns(Target t) {
        List<String> shown = new ArrayList<>();
        t.key.forEach(k -> shown.add(k.name()));
        t.order.forEach(o -> {
            if (!shown.contains(o.column().name()) && !o.column().name().equals(t.id())) {
                shown.add(o.column().name());
            }
        });
        t.merge.forEach(m -> {
            if (!shown.contains(m.name())) {
                shown.add(m.name());
            }
        });
        return shown;
    }

    /** Counts duplicate rows beyond the first of each group (one pass). */
    static long countExtra(Connection c, Target t) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT COALESCE(SUM(q.dg_n - 1), 0) FROM (" + t.scanSelect() + ") q")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static List<DuplicateGroup> members(Connection c, Target t, List<Found> groups) throws SQLException {
        if (groups.isEmpty()) {
            return List.of();
        }
        String keyTuple = t.key.size() == 1 ? t.keyList(null) : "(" + t.keyList(null) + ")";
        String one = t.key.size() == 1 ? "?" : "(" + "?, ".repeat(t.key.size() - 1) + "?)";
        List<String> shown = new ArrayList<>();
        shown.add(t.id());
        shown.addAll(memberColumns(t));
        String sql = "SELECT " + t.keyList(null) + ", " + String.join(", ", shown) + " FROM " + t.table() + " WHERE "
                + keyTuple + " IN (" + String.join(", ", java.util.Collections.nCopies(groups.size(), one)) + ")"
                + " ORDER BY " + t.keyList(null) + ", " + t.orderBy(null);
        Map<List<String>, List<DuplicateGroup.Member>> byKey = new LinkedHashMap<>();
        groups.forEach(g -> byKey.put(folded(t, g.key()), new ArrayList<>()));
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            int p = 1;
            for (Found g : groups) {
                for (Object v : g.key()) {
                    ps.setObject(p++, v);
                }
            }
            try (ResultSet rs = ps.executeQuery()) {
                int k = t.key.size();
                while (rs.next()) {
                    List<Object> key = new ArrayList<>();
                    for (int i = 1; i <= k; i++) {
                        key.add(rs.getObject(i));
                    }
                    List<String> values = new ArrayList<>();
                    for (int i = 2; i <= shown.size(); i++) {
                        values.add(show(rs.getObject(k + i)));
                    }
                    List<DuplicateGroup.Member> list = byKey.get(folded(t, key));
                    if (list != null) {
                        list.add(new DuplicateGroup.Member(show(rs.getObject(k + 1)), values));
                    }
                }
            }
        }
        return groups.stream()
                .map(g -> new DuplicateGroup(text(g.key()), g.rows(), byKey.get(folded(t, g.key()))))
                .collect(Collectors.toList());
    }

    /**
     * The key as text, folded as the comparison folds it: on MySQL/MariaDB a case-insensitive
     * collation returns one spelling for the group but each row's own spelling.
     */
    private static List<String> folded(Target t, List<Object> values) {
        return text(values).stream()
                .map(v -> t.compare.contains(Comparison.IGNORE_CASE) ? v.toLowerCase(java.util.Locale.ROOT) : v)
                .map(v -> t.compare.contains(Comparison.TRIM) ? v.strip() : v)
                .toList();
    }

    static List<String> text(List<Object> values) {
        return values.stream().map(Scanner::show).toList();
    }

    static String show(Object v) {
        if (v == null) {
            return "null";
        }
        return v instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : v.toString();
    }
}
