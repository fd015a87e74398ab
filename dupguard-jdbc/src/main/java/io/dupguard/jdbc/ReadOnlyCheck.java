package io.dupguard.jdbc;

import io.dupguard.ReadOnlyStoreException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collections;
import java.util.Locale;
import java.util.Map;
import java.util.WeakHashMap;
import javax.sql.DataSource;

/**
 * Keeps dupguard off read-only servers (guarantee K7), in two steps:
 *
 * <ol>
 *   <li>Before the first statement — once per store, or once per physical connection for the
 *       helpers that run on the caller's connection — ask the server: PostgreSQL {@code
 *       pg_is_in_recovery()} and {@code transaction_read_only}; MySQL/MariaDB {@code @@read_only},
 *       {@code @@innodb_read_only} and a configured replication source ({@link #replicationSource}),
 *       and on Galera the session's {@code wsrep_sync_wait} ({@link #requireGaleraSyncWait}). A write is not a test: a MariaDB/MySQL account with {@code
 *       SUPER} or {@code READ_ONLY ADMIN} (root) writes to a read-only replica without an error.
 *   <li>Afterwards, with no further round trip: a write the server refuses as read-only (SQLState
 *       {@code 25006}; MySQL/MariaDB errors 1290 naming read-only, 1792, 1836; H2 90097) — a
 *       failover that made the primary a replica — maps to the same {@link ReadOnlyStoreException}.
 * </ol>
 */
final class ReadOnlyCheck {
    private static final String FIX_POSTGRES = "dupguard must write to the primary: point the JDBC URL at it, or list"
            + " every host with targetServerType=primary"
            + " (jdbc:postgresql://host1:5432,host2:5432/db?targetServerType=primary)";
    private static final String FIX_MYSQL = "dupguard must write to the primary: point the JDBC URL at it"
            + " (MariaDB Connector/J: jdbc:mariadb:sequential://primary:3306,replica:3306/db tries the"
            + " primary first), not at a replica or a read-only connection";
    private static final String FIX_ANY = "dupguard must write to the primary: point the JDBC URL at it"
            + " (PostgreSQL: targetServerType=primary on a multi-host URL), not at a replica or a"
            + " read-only connection";

    /** Physical connections found writable, with their dialect, for the helpers on the caller's connection. */
    private static final Map<Connection, SqlDialect> WRITABLE = Collections.synchronizedMap(new WeakHashMap<>());

    /** ShardingSphere's actual data sources found writable: each is asked once per JVM, not per logical connection. */
    private static final Map<DataSource, Boolean> WRITABLE_SHARDS = Collections.synchronizedMap(new WeakHashMap<>());

    private ReadOnlyCheck() {}

    /**
     * Asks the server behind {@code c} whether it takes writes.
     *
     * Through ShardingSphere-JDBC every actual data source is asked, each on a connection of its own
     * (a statement without a table reaches only one of them).
     *
     * @throws ReadOnlyStoreException if it does not (a MySQL/MariaDB server configured with a
     *     replication source counts as read-only whatever its {@code read_only}), naming the cause
     *     and the fix
     * @throws IllegalStateException if it is a Galera node without {@code wsrep_sync_wait} 7 in the
     *     session ({@link #requireGaleraSyncWait})
     */
    static void requireWritable(Connection c, SqlDialect dialect, String store) throws SQLException {
        Map<String, DataSource> shards = ShardingProxy.is(c) ? ShardingProxy.dataSources(c) : Map.of();
        if (shards.isEmpty()) {
            requireWritable(c, dialect, store, "");
            return;
        }
        // ShardingSphere routes a statement without a table to one data source: ask each of them.
        for (Map.Entry<String, DataSource> shard : shards.entrySet()) {
            if (WRITABLE_SHARDS.containsKey(shard.getValue())) {
                continue; // asked before (a later failover shows as a refused write)
            }
            String where = "ShardingSphere data source '" + shard.getKey() + "': ";
            try (Connection sc = shard.getValue().getConnection()) {
                requireWritable(sc, dialect, store, where);
            } catch (IllegalStateException e) {
                throw new IllegalStateException(where + e.getMessage(), e);
            }
            WRITABLE_SHARDS.put(shard.getValue(), Boolean.TRUE);
        }
    }

    private static void requireWritable(Connection c, SqlDialect dialect, String store, String where)
            throws SQLException {
        String cause =
                switch (dialect) {
                    case POSTGRESQL -> postgresCause(c);
                    case MYSQL -> mysqlCause(c);
                    case H2 -> null; // embedded: no replicas; a read-only file fails the write (90097)
                };
        if (cause != null) {
            throw new ReadOnlyStoreException(
                    store, where + cause + ": " + (dialect == SqlDialect.POSTGRESQL ? FIX_POSTGRES : FIX_MYSQL), null);
        }
    }

    private static String postgresCause(Connection c) throws SQLException {
        try (Statement st = c.createStatement();
                ResultSet rs =
                        st.executeQuery("SELECT pg_is_in_recovery(), current_setting('transaction_read_only')")) {
            rs.next();
            if (rs.getBoolean(1)) {
                return "the DataSource points at a PostgreSQL hot standby (pg_is_in_recovery() = true)";
            }
            if ("on".equals(rs.getString(2))) {
                return "the PostgreSQL session is read-only (transaction_read_only = on: a read-only"
                        + " connection, or default_transaction_read_only for the user or database)";
            }
            return null;
        }
    }

    private static String mysqlCause(Connection c) throws SQLException {
        try (Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT @@read_only, @@innodb_read_only")) {
            rs.next();
            if (rs.getInt(1) != 0) {
                return "the DataSource points at a read-only MySQL/MariaDB server (@@read_only = 1), a replica";
            }
            if (rs.getInt(2) != 0) {
                return "the DataSource points at a MySQL/MariaDB server started read-only (@@innodb_read_only = 1)";
            }
        }
        String source = replicationSource(c);
        if (source != null) {
            return "the DataSource points at a MySQL/MariaDB replica (" + source + ", although @@read_only = 0:"
                    + " writes there are lost from the primary's view and a failover may overwrite them)";
        }
        requireGaleraSyncWait(c);
        return null;
    }

    /** Statements that list a server's replication sources, tried in order (a syntax error: the next). */
    private static final String[] REPLICA_STATUS = {
        "SHOW ALL SLAVES STATUS", // MariaDB: every connection of a multi-source replica
        "SHOW REPLICA STATUS", // MySQL 8.0.22 and later
        "SHOW SLAVE STATUS" // older MySQL
    };

    private static final int ER_SPECIFIC_ACCESS_DENIED = 1227;
    private static final int ER_ACCESS_DENIED = 1045;
    private static final int ER_TABLEACCESS_DENIED = 1142;

    /**
     * The replication source a MySQL/MariaDB server is configured with, as {@code "replicates from
     * host:port"}, or null if none. {@code read_only} defaults to off on a replica, so it alone does
     * not tell. Listing the sources needs a privilege ({@code REPLICA MONITOR}/{@code SLAVE MONITOR}
     * or {@code SUPER} on MariaDB, {@code REPLICATION CLIENT} on MySQL); without it, MariaDB's
     * {@code Slaves_running} status (which any account reads) shows a replica whose replication
     * runs, and a MySQL replica is recognised only through {@code read_only}.
     */
    static String replicationSource(Connection c) throws SQLException {
        for (String sql : REPLICA_STATUS) {
            try (Statement st = c.createStatement();
                    ResultSet rs = st.executeQuery(sql)) {
                while (rs.next()) {
                    String host = column(rs, "Source_Host", "Master_Host");
                    if (host != null && !host.isBlank()) {
                        return "replicates from " + host + ":" + column(rs, "Source_Port", "Master_Port");
                    }
                }
                return null;
            } catch (SQLException e) {
                int code = e.getErrorCode();
                if (code == ER_SPECIFIC_ACCESS_DENIED || code == ER_ACCESS_DENIED || code == ER_TABLEACCESS_DENIED) {
                    return runningReplication(c);
                }
                // a syntax error (another server's statement): the next form
            } catch (RuntimeException parserRefused) {
                // ShardingSphere-JDBC's parser refuses a statement it does not know (its own
                // unchecked exception): the next form; none known, the shards' read_only decides
            }
        }
        return null;
    }

    /** MariaDB's count of running replica SQL threads, readable without a privilege; else null. */
    private static String runningReplication(Connection c) throws SQLException {
        try (Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SHOW GLOBAL STATUS LIKE 'Slaves_running'")) {
            if (rs.next() && rs.getLong(2) > 0) {
                return "its replication runs: Slaves_running = " + rs.getLong(2);
            }
            return null;
        }
    }

    private static String column(ResultSet rs, String name, String oldName) throws SQLException {
        for (String n : new String[] {name, oldName}) {
            try {
                return rs.getString(n);
            } catch (SQLException unknownColumn) {
                // the other server's name
            }
        }
        return null;
    }

    /**
     * Refuses a Galera node whose session does not wait for the cluster before reads, updates,
     * deletes and inserts ({@code wsrep_sync_wait} bits 1, 2 and 4): a lock holder's check, a
     * create-once check or a duplicate's claim on a node that has not yet applied another node's
     * commit decides on an old row, and certification does not stop a duplicate that is another
     * row. Refused rather than set per statement: the application's own reads inside a lock need
     * the setting as much, and only the connection's session (the JDBC URL) gives it to them.
     *
     * @throws IllegalStateException naming the setting, its value and the fix
     */
    static void requireGaleraSyncWait(Connection c) throws SQLException {
        if (!IdempotencySql.galera(c)) {
            return;
        }
        GaleraClock.check(c, java.time.Clock.systemUTC());
        try (Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT @@session.wsrep_sync_wait")) {
            rs.next();
            long value = rs.getLong(1);
            if ((value & GALERA_SYNC_WAIT) != GALERA_SYNC_WAIT) {
                throw new IllegalStateException("the DataSource points at a Galera node whose session has"
                        + " wsrep_sync_wait = " + value + "; dupguard needs at least " + GALERA_SYNC_WAIT
                        + " (reads, updates, deletes and inserts wait until the node has applied the cluster's"
                        + " earlier commits, or a check on one node misses another node's row): add"
                        + " sessionVariables=wsrep_sync_wait=7 to the JDBC URL (MariaDB Connector/J), or set it"
                        + " for the account or server");
            }
        }
    }

    /** The {@code wsrep_sync_wait} bits dupguard needs on Galera: reads (1), updates and deletes (2), inserts (4). */
    static final int GALERA_SYNC_WAIT = 7;

    /** Whether the server refused {@code e}'s statement because it is read-only. */
    static boolean isReadOnlyRefusal(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s && isReadOnlyCode(s)) {
                return true;
            }
        }
        return false;
    }

    private static boolean isReadOnlyCode(SQLException e) {
        String state = e.getSQLState();
        if ("25006".equals(state) || "90097".equals(state)) { // read_only_sql_transaction; H2 DATABASE_IS_READ_ONLY
            return true;
        }
        return switch (e.getErrorCode()) {
            // ER_OPTION_PREVENTS_STATEMENT also stands for --secure-file-priv and others
            case 1290 -> String.valueOf(e.getMessage()).toLowerCase(Locale.ROOT).contains("read-only");
            case 1792, 1836 -> true; // ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION, ER_READ_ONLY_MODE
            default -> false;
        };
    }

    /** The exception for a write refused as read-only; {@code what} names the operation. */
    static ReadOnlyStoreException refused(String store, String what, SQLException e) {
        return new ReadOnlyStoreException(
                store,
                what + " was refused by a read-only server (SQLState " + e.getSQLState() + ", error "
                        + e.getErrorCode() + ": " + e.getMessage() + "), a replica or standby (after a"
                        + " failover?) or a read-only connection: " + FIX_ANY,
                e);
    }

    /** A statement that binds its parameters. */
    @FunctionalInterface
    interface Binder {
        void bind(PreparedStatement ps) throws SQLException;
    }

    /**
     * Runs one {@code UPDATE} on the caller's connection after checking — once per physical
     * connection — that its server takes writes; a write refused as read-only becomes a {@link
     * ReadOnlyStoreException}. In autocommit the statement is its own transaction: one the database
     * rolls back as transient ({@link JdbcAccess#isTransient}: a deadlock victim, a Galera write that
     * lost certification) runs again, guard and all, a bounded number of times. In the caller's
     * transaction the whole transaction was rolled back, so the error reaches the caller.
     *
     * @return the update count
     */
    static int update(Connection c, String sql, Binder binder) throws SQLException {
        SqlDialect dialect = requireWritable(c);
        for (int attempt = 1; ; attempt++) {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                binder.bind(ps);
                return ps.executeUpdate();
            } catch (SQLException e) {
                if (isReadOnlyRefusal(e)) {
                    throw refused("jdbc(" + dialect.id() + ")", sql, e);
                }
                if (attempt >= JdbcAccess.TRANSIENT_ATTEMPTS || !JdbcAccess.isTransient(e) || !c.getAutoCommit()) {
                    throw e;
                }
                JdbcAccess.pauseBeforeRetry(attempt);
            }
        }
    }

    private static SqlDialect requireWritable(Connection c) throws SQLException {
        // A pool hands out a new proxy per borrow; the connection to the server is what was checked.
        Connection physical = c.isWrapperFor(Connection.class) ? c.unwrap(Connection.class) : c;
        SqlDialect dialect = WRITABLE.get(physical);
        if (dialect == null) {
            dialect = SqlDialect.detect(c);
            requireWritable(c, dialect, "jdbc(" + dialect.id() + ")");
            WRITABLE.put(physical, dialect);
        }
        return dialect;
    }
}
