package io.dupguard.console;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** A statement built piece by piece with its parameters, bound by type ({@link Text} per dialect). */
final class Sql {
    /** A text parameter for a column that is VARBINARY on MySQL/MariaDB. */
    record Text(String value) {}

    private final StringBuilder sql = new StringBuilder();
    private final List<Object> params = new ArrayList<>();

    Sql append(String fragment, Object... values) {
        sql.append(fragment);
        params.addAll(List.of(values));
        return this;
    }

    /** This statement with {@code fragment} in front (e.g. {@code EXPLAIN}), with the same parameters. */
    Sql prefixed(String fragment) {
        Sql q = new Sql();
        q.sql.append(fragment).append(sql);
        q.params.addAll(params);
        return q;
    }

    PreparedStatement prepare(Connection c, Db db) throws SQLException {
        PreparedStatement ps = c.prepareStatement(sql.toString());
        try {
            for (int i = 0; i < params.size(); i++) {
                Object p = params.get(i);
                if (p instanceof Text t) {
                    db.bindText(ps, i + 1, t.value());
                } else if (p instanceof Instant t) {
                    db.bindInstant(ps, i + 1, t);
                } else {
                    ps.setObject(i + 1, p);
                }
            }
            return ps;
        } catch (SQLException e) {
            ps.close();
            throw e;
        }
    }

    @Override
    public String toString() {
        return sql.toString();
    }
}
