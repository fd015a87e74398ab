package io.dupguard.spring.autoconfigure;

import io.dupguard.idempotency.IdempotencyStore;
import io.dupguard.lock.LockProvider;
import io.dupguard.memory.InMemoryIdempotencyStore;
import io.dupguard.memory.InMemoryLockProvider;
import io.dupguard.memory.InMemoryPreparedSubmissions;
import io.dupguard.memory.InMemorySubmissionTokens;
import io.dupguard.memory.InMemorySubmitThrottle;
import io.dupguard.token.PreparedSubmissions;
import io.dupguard.token.SubmissionTokens;
import io.dupguard.token.SubmitThrottle;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** dupguard.store=memory: everything in this JVM (tests, single-instance tools). */
@Configuration(proxyBeanMethods = false)
@ConditionalOnDupguardStore(DupguardProperties.StoreType.MEMORY)
class MemoryStoreConfiguration {
    @Bean
    @ConditionalOnMissingBean(IdempotencyStore.class)
    InMemoryIdempotencyStore dupguardIdempotencyStore() {
        return new InMemoryIdempotencyStore();
    }

    @Bean
    @ConditionalOnMissingBean(LockProvider.class)
    InMemoryLockProvider dupguardLockProvider() {
        return new InMemoryLockProvider();
    }

    @Bean
    @ConditionalOnMissingBean(SubmissionTokens.class)
    InMemorySubmissionTokens dupguardSubmissionTokens() {
        return new InMemorySubmissionTokens();
    }

    @Bean
    @ConditionalOnMissingBean(SubmitThrottle.class)
    InMemorySubmitThrottle dupguardSubmitThrottle() {
        return new InMemorySubmitThrottle();
    }

    @Bean
    @ConditionalOnMissingBean(PreparedSubmissions.class)
    InMemoryPreparedSubmissions dupguardPreparedSubmissions() {
        return new InMemoryPreparedSubmissions();
    }
}
