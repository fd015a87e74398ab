package io.dupguard.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * Through ShardingSphere-JDBC, refuses a retry store whose shards hand out the same task ids: an
 * operator's {@code find}, {@code unblock} or {@code cancel} by id carries no shard key, so it
 * reaches every shard and would change each shard's task with that id. Each shard must count ids
 * in its own residue class (docs/scaling-sharding.md, "Retry task ids unique across shards"):
 * MySQL/MariaDB {@code auto_increment_increment} at least the number of shards with a distinct
 * {@code auto_increment_offset} per shard; PostgreSQL the id sequence's increment at least the
 * number of shards with a distinct residue per shard.
 */
final class ShardedTaskIds {
    private ShardedTaskIds() {}

    /** One shard's id step and residue. */
    private record Ids(String shard, long increment, long residue, String shown) {}

    /**
     * @throws IllegalStateException naming the setting and the shards whose ids collide
     */
    static void require(Connection c, SqlDialect dialect, String table) throws SQLException {
        Map<String, DataSource> shards = ShardingProxy.dataSources(c);
        if (shards.size() < 2) {
            return;
        }
        List<Ids> all = new ArrayList<>();
        for (Map.Entry<String, DataSource> shard : shards.entrySet()) {
            try (Connection sc = shard.getValue().getConnection()) {
                all.add(
                        dialect == SqlDialect.POSTGRESQL
                                ? postgres(sc, shard.getKey(), table)
                                : mysql(sc, shard.getKey()));
            }
        }
        Map<Long, Ids> residues = new HashMap<>();
        for (Ids ids : all) {
            String fix = dialect == SqlDialect.POSTGRESQL
                    ? "run ALTER TABLE " + table + " ALTER COLUMN id SET INCREMENT BY " + shards.size()
                            + " and a setval of its sequence to a value ≡ i+1 (mod " + shards.size()
                            + ") on shard i"
                    : "give shard i's pool the connectionInitSql SET SESSION auto_increment_increment = "
                            + shards.size() + ", auto_increment_offset = <i+1>";
            Ids other = residues.putIfAbsent(ids.residue, ids);
            if (ids.increment < shards.size() || ids.increment != all.get(0).increment || other != null) {
                throw new IllegalStateException("the retry table " + table + " is sharded over " + shards.size()
                        + " ShardingSphere data sources whose task ids collide (" + ids.shown
                        + (other != null ? "; " + other.shown : "") + "): find, unblock and cancel by id would"
                        + " reach every shard and change each shard's task with that id. Each shard needs ids of"
                        + " its own: " + fix + " (docs/scaling-sharding.md, \"Retry task ids unique across shards\")");
            }
        }
    }

    private static Ids mysql(Connection c, String shard) throws SQLException {
        try (Statement st = c.createStatement();
                ResultSet rs =
                        st.executeQuery("SELECT @@session.auto_increment_increment, @@session.auto_increment_offset")) {
            rs.next();
            long increment = rs.getLong(1);
            long offset = rs.getLong(2);
            return new Ids(
                    shard,
                    increment,
                    Math.floorMod(offset, increment),
                    shard + ": auto_increment_increment = " + increment + ", auto_increment_offset = " + offset);
        }
    }

    private static Ids postgres(Connection c, String shard, String table) throws SQLException {
        String sequence;
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_get_serial_sequence(?, 'id')")) {
            ps.setString(1, table);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                sequence = rs.getString(1);
            }
        }
        if (sequence == null) {
            throw new IllegalStateException("the retry table " + table + " on ShardingSphere data source '" + shard
                    + "' has no id sequence: create it with dupguard's DDL on every shard (docs/scaling-sharding.md)");
        }
        try (Statement st = c.createStatement();
                // the sequence's name comes quoted from pg_get_serial_sequence
                ResultSet rs = st.executeQuery("SELECT s.last_value, q.seqincrement FROM " + sequence
                        + " s, pg_sequence q WHERE q.seqrelid = '" + sequence.replace("'", "''") + "'::regclass")) {
            rs.next();
            long last = rs.getLong(1);
            long increment = rs.getLong(2);
            return new Ids(
                    shard,
                    increment,
                    Math.floorMod(last, increment),
                    shard + ": sequence " + sequence + " increment " + increment + ", last value " + last);
        }
    }
}
