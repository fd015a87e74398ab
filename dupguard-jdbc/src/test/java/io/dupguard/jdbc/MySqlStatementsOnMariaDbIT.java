package io.dupguard.jdbc;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import javax.sql.DataSource;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The store contract with the statements dupguard sends to MySQL (no {@code INSERT … RETURNING}),
 * run on MariaDB: the server's version is reported as MySQL's, so a batch claim takes its MySQL
 * form, a multi-row insert and one read.
 */
@Execution(ExecutionMode.CONCURRENT) // in the MariaDB lane: see Lanes
@ResourceLock(Lanes.MARIADB)
class MySqlStatementsOnMariaDbIT extends AbstractJdbcIdempotencyStoreIT {
    MySqlStatementsOnMariaDbIT() {
        super(TestDatabases.Db.MARIADB, ds -> TestDatabases.store(asMySql(ds)));
    }

    @Override
    protected int claimAllRoundTrips(int keys) {
        return 2;
    }

    static DataSource asMySql(DataSource ds) {
        return proxy(DataSource.class, ds);
    }

    private static <T> T proxy(Class<T> type, Object target) {
        return type.cast(Proxy.newProxyInstance(
                MySqlStatementsOnMariaDbIT.class.getClassLoader(), new Class<?>[] {type}, (p, method, args) -> {
                    if (target instanceof DatabaseMetaData && method.getName().equals("getDatabaseProductVersion")) {
                        return "8.0.36";
                    }
                    Object result;
                    try {
                        result = method.invoke(target, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                    if (result instanceof Connection c) {
                        return proxy(Connection.class, c);
                    }
                    if (result instanceof DatabaseMetaData md) {
                        return proxy(DatabaseMetaData.class, md);
                    }
                    return result;
                }));
    }
}
