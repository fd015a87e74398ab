package io.dupguard.jdbc;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * One pool per server and a data source that hands out their connections in turn: threads sharing
 * it work on all the servers at once — on every node of a Galera cluster, like machines each
 * connected to its own.
 */
final class NodePools implements AutoCloseable {
    private final List<DataSource> pools;
    private final AtomicInteger next = new AtomicInteger();
    private final DataSource inTurn;

    NodePools(List<DataSource> pools) {
        this.pools = List.copyOf(pools);
        this.inTurn = (DataSource) Proxy.newProxyInstance(
                DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    DataSource target = method.getName().equals("getConnection")
                            ? this.pools.get(Math.floorMod(next.getAndIncrement(), this.pools.size()))
                            : this.pools.get(0);
                    try {
                        return method.invoke(target, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    /** Each {@code getConnection()} from the next server's pool. */
    DataSource dataSource() {
        return inTurn;
    }

    @Override
    public void close() {
        pools.forEach(TestDatabases::close);
    }
}
