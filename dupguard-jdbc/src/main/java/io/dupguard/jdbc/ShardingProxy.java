package io.dupguard.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.TreeMap;
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

    /**
     * The actual data sources (storage units) behind a ShardingSphere-JDBC connection by name, in
     * name order, read through its context manager by reflection (dupguard does not depend on
     * ShardingSphere); empty if this ShardingSphere version does not expose them.
     */
    static Map<String, DataSource> dataSources(Connection c) throws SQLException {
        Object connection = unwrap(c);
        if (connection == null) {
            return Map.of();
        }
        try {
            Object database =
                    connection.getClass().getMethod("getCurrentDatabaseName").invoke(connection);
            Object manager =
                    connection.getClass().getMethod("getContextManager").invoke(connection);
            Map<?, ?> units = (Map<?, ?>) manager.getClass()
                    .getMethod("getStorageUnits", String.class)
                    .invoke(manager, database);
            Map<String, DataSource> sources = new TreeMap<>();
            for (Map.Entry<?, ?> unit : units.entrySet()) {
                Object ds =
                        unit.getValue().getClass().getMethod("getDataSource").invoke(unit.getValue());
                sources.put(String.valueOf(unit.getKey()), (DataSource) ds);
            }
            return sources;
        } catch (ReflectiveOperationException | ClassCastException | LinkageError e) {
            return Map.of();
        }
    }

    private static Object unwrap(Connection c) throws SQLException {
        if (c.getClass().getName().equals(CONNECTION_CLASS)) {
            return c;
        }
        Class<?> type = type(c);
        return type != null && c.isWrapperFor(type) ? c.unwrap(type) : null;
    }

    private static Class<?> type(Connection c) {
        try {
            return Class.forName(CONNECTION_CLASS, false, c.getClass().getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            try {
                return Class.forName(
                        CONNECTION_CLASS, false, Thread.currentThread().getContextClassLoader());
            } catch (ClassNotFoundException | LinkageError | NullPointerException again) {
                return null;
            }
        }
    }

    static boolean is(Connection c) throws SQLException {
        return unwrap(c) != null;
    }
}
