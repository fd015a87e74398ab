package io.dupguard.jdbc;

import java.sql.Connection;
import java.sql.SQLException;

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
        if (c.getClass().getName().equals(CONNECTION_CLASS)) {
            return true;
        }
        Class<?> type;
        try {
            type = Class.forName(CONNECTION_CLASS, false, c.getClass().getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            try {
                type = Class.forName(
                        CONNECTION_CLASS, false, Thread.currentThread().getContextClassLoader());
            } catch (ClassNotFoundException | LinkageError | NullPointerException again) {
                return false;
            }
        }
        return c.isWrapperFor(type);
    }
}
