package io.dupguard.console;

import io.dupguard.idempotency.RecordStatus;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * The idempotency key table: lookup by (scope, key), the scopes (a loose index scan of the primary
 * key, one probe per scope), stuck claims of a scope in bounded windows of {@value #WINDOW} keys of
 * the primary key (no index on status or expiry, so completions stay HOT updates), and force-expire.
 * A key not in it is looked up in the processed-messages table, when that table exists (checked at
 * each miss until it is found, so a table created after the console is seen): its rows are
 * listeners' messages, never in flight, so they have no stuck claims; force-expire applies to them.
 */
final class IdempotencyKeys {
    static final int WINDOW = 5_000;
    static final int MAX_SCOPES = 200;

    private final Db db;
    private final String table;
    private final String processedTable;
    private final AuditLog audit;
    private volatile boolean processedExists;

    IdempotencyKeys(Db db, String table, String processedTable, AuditLog audit) {
        this.db = db;
        this.table = table;
        this.processedTable = processedTable;
        this.audit = audit;
    }

    private String columns() {
        return "scope, idem_key, status, fingerprint, owner, expires_at, " + db.now()
                + ", SUBSTRING(payload FROM 1 FOR " + RetryTasks.PAYLOAD_LIMIT + "), OCTET_LENGTH(payload)";
    }

    Optional<KeyRow> find(String scope, String key) {
        return db.read("read idempotency key", c -> find(c, scope, key, false));
    }

    private Optional<KeyRow> find(Connection c, String scope, String key, boolean lock) throws SQLException {
        Sql q = new Sql()
                .append(
                        "SELECT " + columns() + " FROM " + table + " WHERE scope = ? AND idem_key = ?",
                        scope,
                        new Sql.Text(key))
                .append(lock ? " FOR UPDATE" : "");
        try (PreparedStatement ps = q.prepare(c, db);
                ResultSet rs = ps.executeQuery()) {
            if (rs.next()) {
                return Optional.of(row(rs));
            }
        }
        if (!processedTableExists(c)) {
            return Optional.empty();
        }
        Sql p = new Sql()
                .append(
                        "SELECT scope, msg_id, fingerprint, expires_at, " + db.now() + " FROM " + processedTable
                                + " WHERE scope = ? AND msg_id = ?",
                        scope,
                        new Sql.Text(key))
                .append(lock ? " FOR UPDATE" : "");
        try (PreparedStatement ps = p.prepare(c, db);
                ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) {
                return Optional.empty();
            }
            long fp = rs.getLong(3);
            String fingerprint = rs.wasNull() ? "" : String.format("%016x", fp);
            return Optional.of(new KeyRow(
                    rs.getString(1),
                    db.readText(rs, 2),
                    RecordStatus.COMPLETED,
                    fingerprint,
                    null,
                    db.instant(rs, 4),
                    db.instant(rs, 5),
                    null,
                    0,
                    true));
        }
    }

    /**
     * Whether the processed-messages table exists in the connection's current schema (PostgreSQL's
     * {@code current_schema()}, MySQL's database: where the stores' unqualified names resolve); once
     * it does, not asked again.
     */
    private boolean processedTableExists(Connection c) throws SQLException {
        if (processedTable == null) {
            return false;
        }
        if (!processedExists) {
            java.sql.DatabaseMetaData md = c.getMetaData();
            String schema = c.getSchema();
            for (String name : new String[] {
                processedTable,
                processedTable.toLowerCase(java.util.Locale.ROOT),
                processedTable.toUpperCase(java.util.Locale.ROOT)
            }) {
                try (ResultSet rs = md.getTables(c.getCatalog(), schema, name, new String[] {"TABLE"})) {
                    if (rs.next()) {
                        processedExists = true;
                        break;
                    }
                }
            }
        }
        return processedExists;
    }

    /** The scopes in the table, at most {@value #MAX_SCOPES}: one index probe each. */
    List<String> scopes() {
        return db.read("list scopes", c -> {
            List<String> out = new ArrayList<>();
            String next = "SELECT MIN(scope) FROM " + table + " WHERE scope > ?";
            String scope = "";
            try (PreparedStatement ps = c.prepareStatement(next)) {
                while (out.size() < MAX_SCOPES) {
                    ps.setString(1, scope);
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        scope = rs.getString(1);
                    }
                    if (scope == null) {
                        break;
                    }
                    out.add(scope);
                }
            }
            return out;
        });
    }

    /** Stuck claims of {@code scope} after key {@code after} (null: from the start). */
    Page<KeyRow> stuck(String scope, String after, int limit) {
        if (scope == null || scope.isBlank()) {
            throw new BadRequestException("give a scope");
        }
        return db.read("list stuck claims", c -> {
            long deadline = System.nanoTime() + RetryTasks.BUDGET_MILLIS * 1_000_000L;
            String from = after == null ? "" : after;
            List<KeyRow> found = new ArrayList<>();
            boolean end = false;
            while (!end && found.size() < limit && System.nanoTime() < deadline) {
                String upper = windowEnd(c, scope, from);
                end = upper == null;
                Sql q = new Sql()
                        .append(
                                "SELECT " + columns() + " FROM " + table + " WHERE scope = ? AND idem_key > ?",
                                scope,
                                new Sql.Text(from));
                if (upper != null) {
                    q.append(" AND idem_key <= ?", new Sql.Text(upper));
                }
                q.append(" AND status = 'P' AND expires_at <= " + db.now() + " ORDER BY idem_key")
                        .append(db.limit(), limit - found.size());
                try (PreparedStatement ps = q.prepare(c, db);
                        ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        found.add(row(rs));
                    }
                }
                if (found.size() == limit) {
                    from = found.get(found.size() - 1).key();
                    end = false;
                } else if (upper != null) {
                    from = upper;
                }
            }
            String note =
                    end ? null : "searched the keys of scope " + scope + " up to '" + from + "'; continue for the rest";
            return new Page<>(found, end ? null : from, note);
        });
    }

    /** The key {@value #WINDOW} keys after {@code from}, or null if fewer remain. */
    private String windowEnd(Connection c, String scope, String from) throws SQLException {
        String sql = "SELECT idem_key FROM " + table + " WHERE scope = ? AND idem_key > ? ORDER BY idem_key"
                + (db.limit().contains("FETCH") ? " OFFSET ? ROWS FETCH FIRST 1 ROWS ONLY" : " LIMIT 1 OFFSET ?");
        Sql q = new Sql().append(sql, scope, new Sql.Text(from), WINDOW - 1);
        try (PreparedStatement ps = q.prepare(c, db);
                ResultSet rs = ps.executeQuery()) {
            return rs.next() ? db.readText(rs, 1) : null;
        }
    }

    /**
     * Ends the key's lease or retention now, if it is live and still as the operator saw it ({@code
     * version}: its {@code expires_at}, required): the next request with the key runs the operation
     * again.
     */
    Outcome forceExpire(Actor actor, String scope, String key, Instant version, String reason) {
        String why = Reasons.check(actor, reason);
        if (version == null) {
            throw new BadRequestException("give version: the key's version as shown (a number in the page's form and"
                    + " the API's key); nothing changed");
        }
        return db.inTransaction("force-expire idempotency key", c -> {
            KeyRow before = find(c, scope, key, true)
                    .orElseThrow(() -> new BadRequestException("there is no key '" + key + "' in scope " + scope));
            if (!version.equals(before.expiresAt())) {
                return Outcome.refused("key " + scope + "/" + key + " changed since it was shown (it is "
                        + before.status() + " until " + before.expiresAt() + "); nothing changed");
            }
            if (!before.live()) {
                return Outcome.refused("key " + scope + "/" + key + " has expired already; nothing changed");
            }
            Sql q = new Sql()
                    .append(
                            "UPDATE " + (before.processed() ? processedTable : table) + " SET expires_at = " + db.now()
                                    + " WHERE scope = ? AND " + (before.processed() ? "msg_id" : "idem_key") + " = ?",
                            scope,
                            new Sql.Text(key));
            try (PreparedStatement ps = q.prepare(c, db)) {
                ps.executeUpdate();
            }
            audit.write(
                    c,
                    actor,
                    "force-expire",
                    "key " + scope + "/" + key,
                    why,
                    Json.object(
                            "status",
                            before.status(),
                            "owner",
                            before.owner(),
                            "expiresAt",
                            before.expiresAt(),
                            "table",
                            before.processed() ? processedTable : table),
                    Json.object("status", before.status(), "expiresAt", "now"));
            return Outcome.done("key " + scope + "/" + key + " expired: "
                    + (before.processed()
                            ? "the next delivery of the message runs its handler again"
                            : "the next request with it runs the operation again"));
        });
    }

    private KeyRow row(ResultSet rs) throws SQLException {
        String fp;
        if (db.mysql()) {
            byte[] b = rs.getBytes(4);
            fp = b.length == 32 ? HexFormat.of().formatHex(b) : new String(b, StandardCharsets.US_ASCII);
        } else {
            fp = rs.getString(4);
        }
        byte[] result = rs.getBytes(8);
        return new KeyRow(
                rs.getString(1),
                db.readText(rs, 2),
                status(rs.getString(3)),
                fp,
                rs.getString(5),
                db.instant(rs, 6),
                db.instant(rs, 7),
                result,
                result == null ? 0 : rs.getInt(9),
                false);
    }

    private static RecordStatus status(String code) {
        return switch (code) {
            case "P" -> RecordStatus.IN_PROGRESS;
            case "C" -> RecordStatus.COMPLETED;
            default -> RecordStatus.FAILED;
        };
    }
}
