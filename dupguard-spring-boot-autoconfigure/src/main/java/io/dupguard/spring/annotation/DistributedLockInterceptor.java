package io.dupguard.spring.annotation;

import io.dupguard.lock.Lease;
import io.dupguard.lock.LockOptions;
import io.dupguard.lock.LockProvider;
import io.dupguard.lock.LockUnavailableException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.Expression;

/** Runs {@link DistributedLock} methods holding their lock. Thread-safe. */
public class DistributedLockInterceptor implements MethodInterceptor {
    private final Supplier<LockProvider> locks;
    private final Supplier<LockObserver> observer;
    private final Map<Method, Plan> plans = new ConcurrentHashMap<>();

    /** Parsed once per method. */
    record Plan(Expression name, LockOptions options) {}

    /**
     * An interceptor taking locks from {@code locks}.
     *
     * @param locks supplies the lock provider, looked up on first use; not null
     * @param observer supplies the observer of acquisitions and releases (metrics, activity); not
     *     null
     */
    public DistributedLockInterceptor(Supplier<LockProvider> locks, Supplier<LockObserver> observer) {
        this.locks = locks;
        this.observer = observer;
    }

    /** Parses the annotation of {@code method}; what start-up validation runs. */
    static Plan plan(Method method, DistributedLock lock) {
        Expression name = MethodExpressions.parse(method, "@DistributedLock(name)", lock.name());
        LockOptions.Builder b = LockOptions.custom();
        String where = MethodExpressions.describe(method);
        if (!lock.waitTime().isBlank()) {
            Duration wait = Durations.parse(where, "@DistributedLock(waitTime)", lock.waitTime());
            Durations.check(where, "@DistributedLock(waitTime)", () -> b.waitTime(wait));
        }
        if (!lock.leaseTime().isBlank()) {
            Duration lease = Durations.parse(where, "@DistributedLock(leaseTime)", lock.leaseTime());
            Durations.check(where, "@DistributedLock(leaseTime)", () -> b.leaseTime(lease));
        }
        return new Plan(name, b.build());
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Method method = target == null
                ? invocation.getMethod()
                : AopUtils.getMostSpecificMethod(invocation.getMethod(), AopUtils.getTargetClass(target));
        Plan plan = plans.computeIfAbsent(method, m -> {
            DistributedLock ann = AnnotatedElementUtils.findMergedAnnotation(m, DistributedLock.class);
            return plan(m, ann);
        });
        Object value = MethodExpressions.evaluate(plan.name(), method, invocation.getArguments(), target);
        if (value == null) {
            throw new IllegalArgumentException(
                    MethodExpressions.describe(method) + ": @DistributedLock(name) evaluated to null");
        }
        String name = value.toString();
        LockObserver obs = observer.get();
        LockOptions options =
                LockOptions.from(plan.options()).onLeaseLost(obs::onLeaseLost).build();
        long waitStart = System.nanoTime();
        Lease lease;
        try {
            lease = locks.get().acquire(name, options);
        } catch (LockUnavailableException e) {
            obs.onUnavailable(name, System.nanoTime() - waitStart);
            throw e;
        }
        long acquired = System.nanoTime();
        obs.onAcquired(lease, acquired - waitStart);
        DistributedLocks.push(lease);
        try {
            return invocation.proceed();
        } finally {
            DistributedLocks.pop();
            obs.onReleased(lease, System.nanoTime() - acquired);
            lease.close();
        }
    }
}
