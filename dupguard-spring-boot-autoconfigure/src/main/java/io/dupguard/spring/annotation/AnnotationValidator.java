package io.dupguard.spring.annotation;

import io.dupguard.idempotency.ResultCodec;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.springframework.beans.factory.BeanInitializationException;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Checks every bean class once, at start-up, for {@link Idempotent} and {@link DistributedLock}
 * methods the proxy cannot intercept (private, final, static) and for attributes that do not parse
 * (SpEL, scope, durations, result types the codec cannot replay). A problem fails start-up with a
 * {@link BeanInitializationException} naming the bean, the method and the attribute.
 */
public class AnnotationValidator implements BeanPostProcessor {
    private final Set<Class<?>> checked = ConcurrentHashMap.newKeySet();
    private final Supplier<ResultCodec> codec;
    private volatile boolean sawIdempotent;

    /** @param codec the configured codec, asked whether it can replay each return type */
    public AnnotationValidator(Supplier<ResultCodec> codec) {
        this.codec = codec;
    }

    @Override
    public Object postProcessBeforeInitialization(Object bean, String beanName) {
        Class<?> type = ClassUtils.getUserClass(bean);
        if (!checked.add(type) || type.getName().startsWith("org.springframework.")) {
            return bean;
        }
        List<String> problems = problems(type);
        if (!problems.isEmpty()) {
            checked.remove(type);
            throw new BeanInitializationException("bean '" + beanName
                    + "' has dupguard annotations that cannot work:\n  - " + String.join("\n  - ", problems));
        }
        return bean;
    }

    /**
     * Whether a bean checked so far has an {@link Idempotent} method.
     *
     * @return true once one was seen
     */
    public boolean sawIdempotent() {
        return sawIdempotent;
    }

    /** Every problem of the annotated methods of {@code type}, one line each. */
    List<String> problems(Class<?> type) {
        List<String> problems = new ArrayList<>();
        ReflectionUtils.doWithMethods(
                type,
                method -> check(method, problems),
                m -> !m.isBridge()
                        && !m.isSynthetic()
                        && (m.isAnnotationPresent(Idempotent.class) || m.isAnnotationPresent(DistributedLock.class)));
        return problems;
    }

    private void check(Method method, List<String> problems) {
        String where = MethodExpressions.describe(method);
        int mods = method.getModifiers();
        if (Modifier.isPrivate(mods)) {
            problems.add(where + " is private: a proxy cannot intercept it; make it public");
        }
        if (Modifier.isFinal(mods)) {
            problems.add(where + " is final: a class-based proxy cannot override it; remove final");
        }
        if (Modifier.isStatic(mods)) {
            problems.add(where + " is static: only bean methods called through the proxy can be intercepted");
        }
        Idempotent idempotent = AnnotatedElementUtils.findMergedAnnotation(method, Idempotent.class);
        if (idempotent != null) {
            sawIdempotent = true;
            try {
                IdempotentInterceptor.Plan plan = IdempotentInterceptor.plan(method, idempotent);
                if (plan.raw != void.class) {
                    codec.get().checkSupported(ClassUtils.resolvePrimitiveIfNecessary(plan.raw));
                }
            } catch (IllegalArgumentException e) {
                problems.add(e.getMessage().startsWith(where) ? e.getMessage() : where + ": " + e.getMessage());
            }
        }
        DistributedLock lock = AnnotatedElementUtils.findMergedAnnotation(method, DistributedLock.class);
        if (lock != null) {
            try {
                DistributedLockInterceptor.plan(method, lock);
            } catch (IllegalArgumentException e) {
                problems.add(e.getMessage());
            }
        }
    }
}
