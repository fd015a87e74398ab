package io.dupguard.examples.bench;

import io.lettuce.core.RedisClient;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * Registers one of the hand-written ceiling filters where dupguard's would sit (after Spring
 * Security), in an app started with {@code dupguard.http.enabled=false}. Each design has its own
 * table, so no ceiling shares an index with dupguard's rows or with another ceiling.
 */
final class CeilingConfig {
    /** The table of {@link Transactional}. */
    static final String TRANSACTIONAL_TABLE = "bench_ceiling_transactional";
    /** The table of {@link Backstop}. */
    static final String BACKSTOP_TABLE = "bench_ceiling_backstop";

    private CeilingConfig() {}

    private static FilterRegistrationBean<HandWrittenIdempotencyFilter> register(HandWrittenIdempotencyFilter f) {
        FilterRegistrationBean<HandWrittenIdempotencyFilter> r = new FilterRegistrationBean<>(f);
        r.setOrder(0);
        return r;
    }

    @Configuration(proxyBeanMethods = false)
    static class RedisConnection {
        @Bean(destroyMethod = "shutdown")
        RedisClient ceilingRedis() {
            return RedisClient.create("redis://127.0.0.1:6379");
        }
    }

    /** Redis alone: the ceiling of dupguard's store mode on Redis. */
    @Configuration(proxyBeanMethods = false)
    @Import(RedisConnection.class)
    static class Redis {
        @Bean
        FilterRegistrationBean<HandWrittenIdempotencyFilter> ceilingFilter(RedisClient ceilingRedis) {
            return register(HandWrittenIdempotencyFilter.redis(new RedisFront(ceilingRedis)));
        }
    }

    /** The key's row in the request's transaction: the ceiling of dupguard's transactional mode. */
    @Configuration(proxyBeanMethods = false)
    static class Transactional {
        @Bean
        FilterRegistrationBean<HandWrittenIdempotencyFilter> ceilingFilter(
                JdbcTemplate jdbc, PlatformTransactionManager transactions) {
            return register(
                    HandWrittenIdempotencyFilter.transactional(new KeyRows(jdbc, TRANSACTIONAL_TABLE), transactions));
        }
    }

    /** Redis in front of the transactional row: the ceiling of dupguard's backstop mode. */
    @Configuration(proxyBeanMethods = false)
    @Import(RedisConnection.class)
    static class Backstop {
        @Bean
        FilterRegistrationBean<HandWrittenIdempotencyFilter> ceilingFilter(
                RedisClient ceilingRedis, JdbcTemplate jdbc, PlatformTransactionManager transactions) {
            return register(HandWrittenIdempotencyFilter.backstop(
                    new RedisFront(ceilingRedis), new KeyRows(jdbc, BACKSTOP_TABLE), transactions));
        }
    }
}
