package io.dupguard.spring.autoconfigure;

import io.dupguard.idempotency.IdempotencyConfig;
import io.dupguard.idempotency.IdempotencyStore;
import io.dupguard.idempotency.ResultCodec;
import io.dupguard.lock.LockProvider;
import io.dupguard.spring.DupguardActivity;
import io.dupguard.spring.annotation.AnnotationValidator;
import io.dupguard.spring.annotation.DistributedLock;
import io.dupguard.spring.annotation.DistributedLockInterceptor;
import io.dupguard.spring.annotation.Idempotent;
import io.dupguard.spring.annotation.IdempotentInterceptor;
import io.dupguard.spring.annotation.LockObserver;
import io.dupguard.spring.annotation.TransactionJoin;
import org.springframework.aop.Advisor;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;

/**
 * The advice of {@link Idempotent} and {@link DistributedLock}, applied by Spring's auto-proxy
 * creator (registered by Boot's AOP auto-configuration). Dependencies are looked up on first use,
 * so the advisors do not pull the stores into existence while the proxy creator starts.
 */
@Configuration(proxyBeanMethods = false)
@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
class DupguardAnnotationsConfiguration {

    /** The properties, bound here because advisors are created before property binding runs. */
    static DupguardProperties bind(Environment environment) {
        return Binder.get(environment)
                .bind("dupguard", DupguardProperties.class)
                .orElseGet(DupguardProperties::new);
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean(name = "dupguardIdempotentAdvisor")
    static Advisor dupguardIdempotentAdvisor(
            ObjectProvider<IdempotencyStore> store,
            ObjectProvider<IdempotencyConfig> config,
            ObjectProvider<TransactionJoin> join,
            ObjectProvider<DupguardActivity> activity,
            ObjectProvider<ExecutionResolver> resolvers,
            Environment environment) {
        DupguardProperties p = bind(environment);
        IdempotentInterceptor interceptor = new IdempotentInterceptor(
                store::getObject,
                config::getObject,
                joinOf(p, join),
                p.getIdempotency().getMaxWait(),
                front -> ExecutionResolver.choose(
                        resolvers,
                        "@Idempotent",
                        "dupguard.idempotency.mode",
                        idempotentMode(p),
                        front,
                        false,
                        voidsProcessed(p),
                        false));
        interceptor.setActivity(activity::getIfAvailable);
        DefaultPointcutAdvisor advisor =
                new DefaultPointcutAdvisor(new AnnotationMatchingPointcut(null, Idempotent.class, true), interceptor);
        advisor.setOrder(p.getAop().getIdempotentOrder());
        return advisor;
    }

    /** dupguard.idempotency.void-layout=processed. */
    private static boolean voidsProcessed(DupguardProperties p) {
        return p.getIdempotency().getVoidLayout() == DupguardProperties.ListenerLayout.PROCESSED;
    }

    /**
     * The transaction join of {@code @Idempotent} calls inside the caller's transaction: none with
     * join-transaction=false; its {@code void} calls on the processed-messages table with
     * void-layout=processed (built once).
     */
    private static java.util.function.Supplier<TransactionJoin> joinOf(
            DupguardProperties p, ObjectProvider<TransactionJoin> join) {
        if (!p.getIdempotency().isJoinTransaction()) {
            return () -> null;
        }
        if (!voidsProcessed(p)) {
            return join::getIfAvailable;
        }
        java.util.concurrent.atomic.AtomicReference<TransactionJoin> processed =
                new java.util.concurrent.atomic.AtomicReference<>();
        return () -> {
            TransactionJoin j = processed.get();
            if (j == null) {
                j = join.getIfAvailable();
                if (j instanceof io.dupguard.spring.SpringTransactionalIdempotency rows
                        && rows.hasProcessedMessages()) {
                    j = rows.withProcessedMessages();
                }
                if (j != null) {
                    processed.compareAndSet(null, j);
                }
            }
            return j;
        };
    }

    /** dupguard.idempotency.mode; join-transaction=false keeps {@code @Idempotent} out of the application's transactions. */
    static DupguardProperties.RecordMode idempotentMode(DupguardProperties p) {
        return p.getIdempotency().isJoinTransaction()
                        || p.getIdempotency().getMode() != DupguardProperties.RecordMode.AUTO
                ? p.getIdempotency().getMode()
                : DupguardProperties.RecordMode.STORE;
    }

    /** Says at start-up, once, where the records of {@code @Idempotent} commit, if the application has such methods. */
    @Bean
    static SmartInitializingSingleton dupguardIdempotentModeReport(
            ObjectProvider<AnnotationValidator> validator,
            ObjectProvider<IdempotencyStore> store,
            ObjectProvider<IdempotencyConfig> config,
            ObjectProvider<ExecutionResolver> resolvers,
            Environment environment) {
        return () -> {
            AnnotationValidator v = validator.getIfAvailable();
            if (v != null && v.sawIdempotent()) {
                DupguardProperties p = bind(environment);
                ExecutionResolver.choose(
                        resolvers,
                        "@Idempotent",
                        "dupguard.idempotency.mode",
                        idempotentMode(p),
                        io.dupguard.idempotency.Idempotency.of(store.getObject(), config.getObject()),
                        false,
                        voidsProcessed(p),
                        true);
            }
        };
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean(name = "dupguardLockAdvisor")
    static Advisor dupguardLockAdvisor(
            ObjectProvider<LockProvider> locks, ObjectProvider<LockObserver> observers, Environment environment) {
        DupguardProperties p = bind(environment);
        DistributedLockInterceptor interceptor =
                new DistributedLockInterceptor(locks::getObject, new CompositeLockObserver(observers));
        DefaultPointcutAdvisor advisor = new DefaultPointcutAdvisor(
                new AnnotationMatchingPointcut(null, DistributedLock.class, true), interceptor);
        advisor.setOrder(p.getAop().getLockOrder());
        return advisor;
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean
    static AnnotationValidator dupguardAnnotationValidator(ObjectProvider<ResultCodec> codec) {
        return new AnnotationValidator(() -> codec.getIfAvailable(ResultCodec::basic));
    }
}
