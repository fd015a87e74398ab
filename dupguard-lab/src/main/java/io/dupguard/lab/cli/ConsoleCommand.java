package io.dupguard.lab.cli;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.StoreUnavailableException;
import io.dupguard.console.Console;
import io.dupguard.console.ConsoleServer;
import io.dupguard.jdbc.JdbcIdempotencyStore;
import io.dupguard.jdbc.JdbcLockProvider;
import io.dupguard.jdbc.JdbcProcessedMessages;
import io.dupguard.jdbc.JdbcRetryStore;
import io.dupguard.lab.env.UnreachableException;
import io.dupguard.redis.RedisLockProvider;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code dupguard console --jdbc-url … [--redis-url …]}: the operator console (docs/console.md) on
 * 127.0.0.1 for teams without Spring Boot, until interrupted. Prints the address and the generated
 * password of {@code admin} once.
 */
@Command(
        name = "console",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = "Serve the operator console on 127.0.0.1 (retry tasks, idempotency keys, locks, audit).")
final class ConsoleCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = "--jdbc-url", required = true, description = "JDBC URL of the database of the stores' tables.")
    String jdbcUrl;

    @Option(names = "--redis-url", description = "Redis of RedisLockProvider, e.g. redis://127.0.0.1:6379 (its locks).")
    String redisUrl;

    @Option(
            names = "--port",
            defaultValue = "8077",
            description = "Port on 127.0.0.1, 0 for any (default: ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--read-only", description = "No actions: admin has the viewer role only.")
    boolean readOnly;

    @Option(
            names = "--retry-table",
            defaultValue = JdbcRetryStore.DEFAULT_TABLE,
            description = "Default: ${DEFAULT-VALUE}.")
    String retryTable;

    @Option(
            names = "--idempotency-table",
            defaultValue = JdbcIdempotencyStore.DEFAULT_TABLE,
            description = "Default: ${DEFAULT-VALUE}.")
    String idempotencyTable;

    @Option(
            names = "--processed-table",
            defaultValue = JdbcProcessedMessages.DEFAULT_TABLE,
            description = "Processed-messages table, looked up for a key the idempotency table does not have, when it"
                    + " exists (default: ${DEFAULT-VALUE}).")
    String processedTable;

    @Option(
            names = "--lock-table",
            defaultValue = JdbcLockProvider.DEFAULT_TABLE,
            description = "Default: ${DEFAULT-VALUE}.")
    String lockTable;

    @Option(
            names = "--audit-table",
            defaultValue = "dupguard_console_audit",
            description = "Default: ${DEFAULT-VALUE}.")
    String auditTable;

    @Option(
            names = "--redis-lock-prefix",
            defaultValue = RedisLockProvider.DEFAULT_KEY_PREFIX,
            description = "Key prefix of the Redis locks (default: ${DEFAULT-VALUE}).")
    String redisLockPrefix;

    @Override
    public Integer call() throws Exception {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        config.setMaximumPoolSize(4);
        config.setConnectionTimeout(5_000);
        HikariDataSource ds;
        try {
            ds = new HikariDataSource(config);
        } catch (RuntimeException e) {
            throw new UnreachableException("cannot connect to --jdbc-url: " + e.getMessage(), e);
        }
        RedisClient redis = null;
        ConsoleServer server;
        try {
            Console.Builder b = Console.builder(ds)
                    .tables(Map.of(
                            "retry", retryTable,
                            "idempotency", idempotencyTable,
                            "processed", processedTable,
                            "locks", lockTable,
                            "audit", auditTable));
            if (redisUrl != null) {
                redis = RedisClient.create(redisUrl);
                StatefulRedisConnection<String, String> c = redis.connect();
                b.redisLocks(c, redisLockPrefix);
            }
            server = ConsoleServer.start(b.build(), port, !readOnly);
        } catch (StoreUnavailableException | RedisException | IOException e) {
            ds.close();
            if (redis != null) {
                redis.shutdown();
            }
            throw new UnreachableException("cannot start the console: " + e.getMessage(), e);
        }
        PrintWriter out = spec.commandLine().getOut();
        out.println("dupguard console: " + server.uri());
        out.println("  user " + ConsoleServer.USER + ", password " + server.password()
                + (readOnly ? " (read-only)" : " (operator)") + " — shown once; Ctrl-C stops the console");
        out.flush();
        CountDownLatch stopped = new CountDownLatch(1);
        RedisClient r = redis;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            if (r != null) {
                r.shutdown();
            }
            ds.close();
            stopped.countDown();
        }));
        stopped.await();
        return DupguardCli.OK;
    }
}
