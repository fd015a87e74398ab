package io.dupguard.spring.console;

import io.dupguard.console.Console;
import io.dupguard.console.ConsoleHandler;
import io.dupguard.redis.RedisLockProvider;
import io.dupguard.spring.autoconfigure.DupguardProperties;
import io.dupguard.spring.autoconfigure.DupguardRedisConnection;
import io.dupguard.spring.autoconfigure.InvalidDupguardPropertyException;
import io.dupguard.spring.retry.RetryTaskHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.util.Map;
import java.util.OptionalInt;
import javax.sql.DataSource;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.io.ResourceLoader;
import org.springframework.util.ClassUtils;

/**
 * The operator console at {@code dupguard.console.path} when {@code dupguard.console.enabled=true}
 * in a servlet application. It reads the stores' tables on the application's DataSource (and the
 * Redis locks when the Redis lock provider is in use) and requires Spring Security: without it the
 * application fails to start, since the console's actions must not be reachable unauthenticated.
 */
@AutoConfiguration(afterName = "io.dupguard.spring.autoconfigure.DupguardAutoConfiguration")
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(name = "io.dupguard.console.Console")
@ConditionalOnProperty(name = "dupguard.console.enabled", havingValue = "true")
@EnableConfigurationProperties(ConsoleProperties.class)
public class DupguardConsoleConfiguration {
    private static final String SECURITY = "org.springframework.security.web.csrf.CsrfToken";

    /** Created by Spring. */
    public DupguardConsoleConfiguration() {}

    /**
     * The console over the stores' tables.
     *
     * @param p the console's properties
     * @param dupguard dupguard's properties (table names)
     * @param dataSources the application's DataSource
     * @param handlers the retry task handlers (their maximum attempts explain why a task is BLOCKED)
     * @param redisLocks the Redis lock provider, if the application uses one
     * @param redis dupguard's Redis connection, if any
     * @param beans the application's beans (its meter registry, if Micrometer is present)
     * @param resources the application's class loader (is Spring Security on it?)
     * @return the console
     */
    @Bean
    @ConditionalOnMissingBean
    public Console dupguardConsole(
            ConsoleProperties p,
            DupguardProperties dupguard,
            ObjectProvider<DataSource> dataSources,
            ObjectProvider<RetryTaskHandler> handlers,
            ObjectProvider<RedisLockProvider> redisLocks,
            ObjectProvider<DupguardRedisConnection> redis,
            ListableBeanFactory beans,
            ResourceLoader resources) {
        if (!ClassUtils.isPresent(SECURITY, resources.getClassLoader())) {
            throw new InvalidDupguardPropertyException(
                    "dupguard.console.enabled",
                    true,
                    "the console requires Spring Security (add spring-boot-starter-security and give users the"
                            + " authority " + p.getViewerAuthority() + " or " + p.getOperatorAuthority()
                            + "; docs/console.md)");
        }
        String path = p.getPath();
        if (path == null || !path.startsWith("/") || path.equals("/") || path.endsWith("/")) {
            throw new InvalidDupguardPropertyException(
                    "dupguard.console.path",
                    path,
                    "a path such as /dupguard (starts with /, not / alone, no trailing /)");
        }
        DataSource ds = dataSources.getIfUnique();
        if (ds == null) {
            throw new InvalidDupguardPropertyException(
                    "dupguard.console.enabled",
                    true,
                    "the console reads the stores' tables and writes its audit on the application's single DataSource,"
                            + " and there is none (or several without a @Primary)");
        }
        Console.Builder b = Console.builder(ds)
                .tables(Map.of(
                        "retry", dupguard.getRetry().getTable(),
                        "idempotency", dupguard.getJdbc().getIdempotencyTable(),
                        "processed", dupguard.getJdbc().getProcessedTable(),
                        "locks", dupguard.getJdbc().getLockTable(),
                        "audit", p.getAuditTable()))
                .createAuditTable(dupguard.getJdbc().isCreateSchema())
                .maxAttempts(type -> handlers
                        .orderedStream()
                        .filter(h -> h.type().equals(type))
                        .mapToInt(h -> h.options().schedule().maxAttempts())
                        .findFirst()
                        .stream()
                        .mapToObj(OptionalInt::of)
                        .findFirst()
                        .orElse(OptionalInt.empty()));
        RedisLockProvider locks = redisLocks.getIfAvailable();
        DupguardRedisConnection connection = redis.getIfAvailable();
        if (locks != null && connection != null && !connection.isCluster()) {
            StatefulRedisConnection<String, String> c = ((RedisClient) connection.client()).connect(connection.uri());
            b.redisLocks(c, locks.keyPrefix()); // closed with the console
        }
        MeterReader.attach(b, beans);
        return b.build();
    }

    /**
     * The console's servlet at {@code dupguard.console.path}.
     *
     * @param console the console
     * @param p the console's properties
     * @return the registration
     */
    @Bean
    public ServletRegistrationBean<ConsoleServlet> dupguardConsoleServlet(Console console, ConsoleProperties p) {
        ServletRegistrationBean<ConsoleServlet> r =
                new ServletRegistrationBean<>(new ConsoleServlet(new ConsoleHandler(console), p), p.getPath() + "/*");
        r.setName("dupguardConsole");
        return r;
    }
}
