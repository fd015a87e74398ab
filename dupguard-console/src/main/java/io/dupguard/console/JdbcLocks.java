package io.dupguard.console;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The lock table of {@code JdbcLockProvider}: a row per lock name, held while it has an owner and
 * its lease has not ended. A release by force clears the owner as the holder's own release does;
 * the fence counter stays, so the next holder's token is higher and the resource can refuse the old
 * holder's writes.
 */
final class JdbcLocks implements LockSource {
    private final Db db;
    private final String table;

    JdbcLocks(Db db, String table) {
        this.db = db;
        this.table = table;
    }

    @Override
    public String provider() {
        return "jdbc";
    }

    private String select() {
        return "SELECT name, owner, fence, lease_until, " + db.now() + " FROM " + table
                + " WHERE owner IS NOT NULL AND lease_until > " + db.now();
    }

    @Override
    public Page<LockRow> held(String after, int limit) {
        return db.read("list locks", c -> {
            Sql q = new Sql().append(select());
            if (after != null) {
                q.append(" AND name > ?", new Sql.Text(after));
            }
            q.append(" ORDER BY name").append(db.limit(), limit + 1);
            List<LockRow> out = new ArrayList<>();
            try (PreparedStatement ps = q.prepare(c, db);
                    ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(row(rs));
                }
            }
            String next = null;
            if (out.size() > limit) {
                out = out.subList(0, limit);
                next = out.get(limit - 1).name();
            }
            return new Page<>(out, next, null);
        });
    }

    @Override
    public Optional<LockRow> find(String name) {
        return db.read("read lock", c -> {
            Sql q = new Sql().append(select() + " AND name = ?", new Sql.Text(name));
            try (PreparedStatement ps = q.prepare(c, db);
                    ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(row(rs)) : Optional.empty();
            }
        });
    }

    @Override
    public boolean release(Connection c, String name, String owner) throws SQLException {
        Sql q = new Sql()
                .append(
                        "UPDATE " + table + " SET owner = NULL, lease_until = " + db.now()
                                + " WHERE name = ? AND owner = ? AND lease_until > " + db.now(),
                        new Sql.Text(name),
                        owner);
        try (PreparedStatement ps = q.prepare(c, db)) {
            return ps.executeUpdate() == 1;
        }
    }

    @Override
    public boolean releasesInTransaction() {
        return true;
    }

    private LockRow row(ResultSet rs) throws SQLException {
        return new LockRow(
                "jdbc", db.readText(rs, 1), rs.getString(2), rs.getLong(3), db.instant(rs, 4), db.instant(rs, 5));
    }
}
