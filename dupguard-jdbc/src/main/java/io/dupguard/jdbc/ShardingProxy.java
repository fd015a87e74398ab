package io.dupguard.jdbc;

import java.lang.reflect.InvocationTargetException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.sql.DataSource;

/**
 * Whether a connection is a ShardingSphere-JDBC logical connection (also inside a pool that wraps
 * it). Through one, dupguard sends only statements that name a row's sharding key (docs/scaling-sharding.md,
 * "ShardingSphere-JDBC"): a statement that carries its keys in an array, or that picks rows by a
 * condition other than their key ({@code … LIMIT n FOR UPDATE SKIP LOCKED}), would be sent to every
 * shard, or fail in ShardingSphere's parser.
 */
final class ShardingProxy {
    static final String CONNECTION_CLASS =
            "org.apache.shardingsphere.driver.jdbc.core.connection.ShardingSphereConnection";

    private ShardingProxy() {}

    static boolean is(Connection c) throws SQLException {
        Class<?> type = connectionType(c);
        return type != null && (type.isInstance(c) || c.isWrapperFor(type));
    }

    /**
     * The actual data sources behind a ShardingSphere-JDBC logical connection, by their storage
     * unit's name: a statement without a table is routed to one of them only, so a check of the
     * server (read-only, Galera) must ask each.
     *
     * @throws SQLException if ShardingSphere's API (5.5) cannot be read: the check cannot be made
     */
    static Map<String, DataSource> storageUnits(Connection c) throws SQLException {
        Class<?> type = connectionType(c);
        if (type == null) {
            throw new SQLException(
                    "not a ShardingSphere-JDBC connection: " + c.getClass().getName());
        }
        try {
            Object connection = c.unwrap(type);
            Object contextManager = type.getMethod("getContextManager").invoke(connection);
            String database = (String) type.getMethod("getCurrentDatabaseName").invoke(connection);
            Map<?, ?> units = (Map<?, ?>) contextManager
                    .getClass()
                    .getMethod("getStorageUnits", String.class)
                    .invoke(contextManager, database);
            Map<String, DataSource> out = new LinkedHashMap<>();
            for (Map.Entry<?, ?> unit : units.entrySet()) {
                Object ds =
                        unit.getValue().getClass().getMethod("getDataSource").invoke(unit.getValue());
                out.put(String.valueOf(unit.getKey()), (DataSource) ds);
            }
            return out;
        } catch (ReflectiveOperationException | ClassCastException e) {
            Throwable cause = e instanceof InvocationTargetException ite ? ite.getCause() : e;
            throw new SQLException(
                    "cannot list ShardingSphere's storage units to check each server (ShardingSphere-JDBC 5.5"
                            + " expected): " + cause,
                    cause);
        }
    }

    /** ShardingSphere's connection class as {@code c}'s class loader (or the thread's) sees it; null if absent. */
    private static Class<?> connectionType(Connection c) {
        if (c.getClass().getName().equals(CONNECTION_CLASS)) {
            return c.getClass();
        }
        Class<?> type;
        try {
            type = Class.forName(CONNECTION_CLASS, false, c.getClass().getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            try {
                type = Class.forName(
                        CONNECTION_CLASS, false, Thread.currentThread().getContextClassLoader());
            } catch (ClassNotFoundException | LinkageError | NullPointerException again) {
                return null;
            }
        }
        return type;
    }
}
