package io.dupguard.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.Idempotency;
import io.dupguard.idempotency.IdempotencyConfig;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.IdempotencyStore;
import io.dupguard.idempotency.Outcome;
import io.dupguard.idempotency.ResultCodec;
import io.dupguard.jackson.JacksonResultCodec;
import io.dupguard.jdbc.JdbcIdempotencyStore;
import io.dupguard.jdbc.JdbcLockProvider;
import io.dupguard.jdbc.JdbcPreparedSubmissions;
import io.dupguard.jdbc.JdbcSubmissionTokens;
import io.dupguard.jdbc.JdbcSubmitThrottle;
import io.dupguard.lock.LockProvider;
import io.dupguard.memory.InMemoryIdempotencyStore;
import io.dupguard.memory.InMemoryLockProvider;
import io.dupguard.memory.InMemoryPreparedSubmissions;
import io.dupguard.memory.InMemorySubmissionTokens;
import io.dupguard.memory.InMemorySubmitThrottle;
import io.dupguard.spring.SpringTransactionalIdempotency;
import io.dupguard.spring.metrics.MeteredBean;
import io.dupguard.token.PreparedSubmissions;
import io.dupguard.token.SubmissionTokens;
import io.dupguard.token.SubmitThrottle;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.json.JsonMapper;

class DupguardAutoConfigurationTest {
    private final ApplicationContextRunner runner =
            new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DupguardAutoConfiguration.class));

    private static String h2() {
        return "spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
    }

    /** The store behind the starter's metering wrapper. */
    static Object unwrap(Object bean) {
        return MeteredBean.unwrap(bean, Object.class);
    }

    record Receipt(String id, java.math.BigDecimal amount) {}

    @Test
    void withoutADataSourceOrRedisEverythingIsInMemory() {
        runner.run(ctx -> {
            assertThat(ctx).hasNotFailed();
            assertThat(ctx.getBean(IdempotencyStore.class)).isInstanceOf(InMemoryIdempotencyStore.class);
            assertThat(ctx.getBean(LockProvider.class)).isInstanceOf(InMemoryLockProvider.class);
            assertThat(unwrap(ctx.getBean(SubmissionTokens.class))).isInstanceOf(InMemorySubmissionTokens.class);
            assertThat(unwrap(ctx.getBean(SubmitThrottle.class))).isInstanceOf(InMemorySubmitThrottle.class);
            assertThat(ctx.getBean(PreparedSubmissions.class)).isInstanceOf(InMemoryPreparedSubmissions.class);
            assertThat(ctx).doesNotHaveBean(DupguardPurger.class);
            assertThat(ctx.getBean(ResultCodec.class)).isInstanceOf(JacksonResultCodec.class);
        });
    }

    @Test
    void aDataSourceMakesJdbcTheDefaultStoreAndResultsOfAnyTypeReplay() {
        runner.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class))
                .withPropertyValues(h2())
                .run(ctx -> {
                    assertThat(ctx).hasNotFailed();
                    assertThat(ctx.getBean(IdempotencyStore.class)).isInstanceOf(JdbcIdempotencyStore.class);
                    assertThat(ctx.getBean(LockProvider.class)).isInstanceOf(JdbcLockProvider.class);
                    assertThat(unwrap(ctx.getBean(SubmissionTokens.class))).isInstanceOf(JdbcSubmissionTokens.class);
                    assertThat(unwrap(ctx.getBean(SubmitThrottle.class))).isInstanceOf(JdbcSubmitThrottle.class);
                    assertThat(ctx.getBean(PreparedSubmissions.class)).isInstanceOf(JdbcPreparedSubmissions.class);
                    assertThat(ctx).hasSingleBean(SpringTransactionalIdempotency.class);
                    assertThat(ctx).hasSingleBean(DupguardPurger.class);

                    Idempotency idempotency = ctx.getBean(Idempotency.class);
                    IdempotencyKey key = IdempotencyKey.of("orders", "r-1");
                    Receipt first = new Receipt("r-1", new java.math.BigDecimal("9.90"));
                    Outcome<Receipt> a =
                            idempotency.execute(key, Fingerprint.ofString("x"), Receipt.class, () -> first);
                    Outcome<Receipt> b = idempotency.execute(key, Fingerprint.ofString("x"), Receipt.class, () -> null);
                    assertThat(a.isReplay()).isFalse();
                    assertThat(b.isReplay()).isTrue();
                    assertThat(b.value()).isEqualTo(first);
                });
    }

    @Test
    void storeMemoryOverridesTheDataSourceDefault() {
        runner.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class))
                .withPropertyValues(h2(), "dupguard.store=memory")
                .run(ctx ->
                        assertThat(ctx.getBean(IdempotencyStore.class)).isInstanceOf(InMemoryIdempotencyStore.class));
    }

    @Test
    void usesTheApplicationsJsonMapper() {
        runner.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class))
                .run(ctx -> {
                    JsonMapper mapper = ctx.getBean(JsonMapper.class);
                    assertThat(((JacksonResultCodec) ctx.getBean(ResultCodec.class)).mapper())
                            .isSameAs(mapper);
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnBeans {
        static final IdempotencyStore STORE = new InMemoryIdempotencyStore();
        static final LockProvider LOCKS = new InMemoryLockProvider();
        static final SubmissionTokens TOKENS = new InMemorySubmissionTokens();
        static final SubmitThrottle THROTTLE = new InMemorySubmitThrottle();
        static final PreparedSubmissions PREPARED = new InMemoryPreparedSubmissions();
        static final ResultCodec CODEC = ResultCodec.basic();
        static final IdempotencyConfig CONFIG = IdempotencyConfig.ofDefaults();

        @Bean
        IdempotencyStore myStore() {
            return STORE;
        }

        @Bean
        LockProvider myLocks() {
            return LOCKS;
        }

        @Bean
        SubmissionTokens myTokens() {
            return TOKENS;
        }

        @Bean
        SubmitThrottle myThrottle() {
            return THROTTLE;
        }

        @Bean
        PreparedSubmissions myPrepared() {
            return PREPARED;
        }

        @Bean
        ResultCodec myCodec() {
            return CODEC;
        }

        @Bean
        IdempotencyConfig myConfig() {
            return CONFIG;
        }

        @Bean
        Idempotency myIdempotency() {
            return Idempotency.of(STORE, CONFIG);
        }
    }

    @Test
    void everyBeanBacksOffForTheApplicationsOwn() {
        for (String store : List.of("jdbc", "memory")) {
            runner.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class))
                    .withPropertyValues(h2(), "dupguard.store=" + store)
                    .withUserConfiguration(OwnBeans.class)
                    .run(ctx -> {
                        assertThat(ctx).hasNotFailed();
                        assertThat(ctx.getBean(IdempotencyStore.class)).isSameAs(OwnBeans.STORE);
                        assertThat(ctx.getBean(LockProvider.class)).isSameAs(OwnBeans.LOCKS);
                        assertThat(ctx.getBean(SubmissionTokens.class)).isSameAs(OwnBeans.TOKENS);
                        assertThat(ctx.getBean(SubmitThrottle.class)).isSameAs(OwnBeans.THROTTLE);
                        assertThat(ctx.getBean(PreparedSubmissions.class)).isSameAs(OwnBeans.PREPARED);
                        assertThat(ctx.getBean(ResultCodec.class)).isSameAs(OwnBeans.CODEC);
                        assertThat(ctx.getBean(IdempotencyConfig.class)).isSameAs(OwnBeans.CONFIG);
                        assertThat(ctx.getBean(Idempotency.class).store()).isSameAs(OwnBeans.STORE);
                    });
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnJdbcExtras {
        static final DupguardPurger PURGER = new DupguardPurger(null, null, null, new DupguardProperties.Purge());

        @Bean
        DupguardPurger myPurger() {
            return PURGER;
        }

        @Bean
        SpringTransactionalIdempotency myTx(javax.sql.DataSource ds) {
            return new SpringTransactionalIdempotency(
                    JdbcIdempotencyStore.builder(ds).tableName("mine").build(), ds, IdempotencyConfig.ofDefaults());
        }
    }

    @Test
    void purgerAndTransactionalIdempotencyBackOffToo() {
        runner.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class))
                .withPropertyValues(h2())
                .withUserConfiguration(OwnJdbcExtras.class)
                .run(ctx -> {
                    assertThat(ctx).hasNotFailed();
                    assertThat(ctx.getBean(DupguardPurger.class)).isSameAs(OwnJdbcExtras.PURGER);
                    assertThat(ctx).hasSingleBean(SpringTransactionalIdempotency.class);
                    assertThat(ctx.getBeanNamesForType(SpringTransactionalIdempotency.class))
                            .containsExactly("myTx");
                });
    }

    @Test
    void purgeOffSwitch() {
        runner.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class))
                .withPropertyValues(h2(), "dupguard.purge.enabled=false")
                .run(ctx -> assertThat(ctx).doesNotHaveBean(DupguardPurger.class));
    }

    private void failsNaming(String property, String... properties) {
        failsNaming(
                runner.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class)),
                property,
                properties);
    }

    private static void failsNaming(ApplicationContextRunner runner, String property, String... properties) {
        runner.withPropertyValues(properties).run(ctx -> {
            assertThat(ctx).hasFailed();
            Throwable t = ctx.getStartupFailure();
            while (t != null && !(t instanceof InvalidDupguardPropertyException)) {
                t = t.getCause();
            }
            assertThat(t)
                    .as("cause of %s", ctx.getStartupFailure())
                    .isInstanceOf(InvalidDupguardPropertyException.class);
            assertThat(t.getMessage()).contains(property);
            assertThat(((InvalidDupguardPropertyException) t).property()).isEqualTo(property);
        });
    }

    @Test
    void badValuesFailStartUpNamingTheProperty() {
        failsNaming("dupguard.idempotency.retention", "dupguard.idempotency.retention=0s");
        failsNaming("dupguard.idempotency.in-flight-lease", "dupguard.idempotency.in-flight-lease=50ms");
        failsNaming("dupguard.idempotency.local-cache-size", "dupguard.idempotency.local-cache-size=-1");
        failsNaming(
                "dupguard.idempotency.max-wait",
                "dupguard.idempotency.in-flight=wait",
                "dupguard.idempotency.max-wait=0s");
        failsNaming("dupguard.store", "dupguard.store=mongo");
        failsNaming(runner, "dupguard.store", "dupguard.store=jdbc"); // no DataSource bean
        failsNaming("dupguard.purge.batch-size", h2(), "dupguard.purge.batch-size=0");
        failsNaming("dupguard.purge.interval", h2(), "dupguard.purge.interval=0s");
        failsNaming("dupguard.purge.duty-cycle", h2(), "dupguard.purge.duty-cycle=0");
        failsNaming("dupguard.purge.duty-cycle", h2(), "dupguard.purge.duty-cycle=1.5");
        failsNaming("dupguard.purge.max-batches-per-run", h2(), "dupguard.purge.max-batches-per-run=-1");
        failsNaming("dupguard.jdbc.idempotency-table", h2(), "dupguard.jdbc.idempotency-table=bad name;");
    }

    @Test
    void configurationMetadataIsGeneratedWithDescriptions() throws Exception {
        try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertThat(in).isNotNull();
            String json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            assertThat(json).contains("\"dupguard.store\"", "\"dupguard.http.max-stored-body-size\"");
            assertThat(json).contains("Backend: jdbc, redis or memory");
        }
    }
}
