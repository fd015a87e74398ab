package io.dupguard.spring.annotation;

import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.Idempotency;
import io.dupguard.idempotency.IdempotencyConfig;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.IdempotencyStore;
import io.dupguard.idempotency.IdempotentWork;
import io.dupguard.idempotency.InFlightPolicy;
import io.dupguard.idempotency.Outcome;
import io.dupguard.jackson.JacksonResultCodec;
import io.dupguard.spring.IdempotentExecution;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.lang.reflect.UndeclaredThrowableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.function.Function;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.Expression;
import tools.jackson.databind.ObjectWriter;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/** Runs {@link Idempotent} methods once per key. Thread-safe. */
public class IdempotentInterceptor implements MethodInterceptor {
    private final Supplier<IdempotencyStore> store;
    private final Supplier<IdempotencyConfig> config;
    private final Supplier<TransactionJoin> join;
    private final Duration defaultMaxWait;
    private final Function<Idempotency, IdempotentExecution> executions;
    private final Map<Method, Plan> plans = new ConcurrentHashMap<>();
    private volatile ObjectWriter fingerprintWriter;
    private volatile java.util.function.Supplier<io.dupguard.spring.DupguardActivity> activity = () -> null;

    /**
     * @param join the transaction join of the jdbc store, or a supplier of null when there is none
     *     or dupguard.idempotency.join-transaction is off
     * @param defaultMaxWait how long {@code inFlight = WAIT} waits when the annotation names no
     *     maxWait (dupguard.idempotency.max-wait)
     * @param store supplies the idempotency store, looked up on first use; not null
     * @param config supplies the configuration (lease, retention, codec); not null
     */
    public IdempotentInterceptor(
            Supplier<IdempotencyStore> store,
            Supplier<IdempotencyConfig> config,
            Supplier<TransactionJoin> join,
            Duration defaultMaxWait) {
        this(store, config, join, defaultMaxWait, null);
    }

    /**
     * An interceptor whose records commit as {@code executions} decides (the transactional modes:
     * the method runs in a database transaction with its key's row).
     *
     * @param store supplies the idempotency store, looked up on first use; not null
     * @param config supplies the configuration (lease, retention, codec); not null
     * @param join the transaction join used in store mode, or a supplier of null
     * @param defaultMaxWait how long {@code inFlight = WAIT} waits when the annotation names no
     *     maxWait
     * @param executions turns a method's executor on the store into its execution (called once per
     *     method), or null for store mode
     */
    public IdempotentInterceptor(
            Supplier<IdempotencyStore> store,
            Supplier<IdempotencyConfig> config,
            Supplier<TransactionJoin> join,
            Duration defaultMaxWait,
            Function<Idempotency, IdempotentExecution> executions) {
        this.store = store;
        this.config = config;
        this.join = join;
        this.defaultMaxWait = Objects.requireNonNull(defaultMaxWait, "defaultMaxWait");
        this.executions = executions == null ? IdempotentExecution::store : executions;
    }

    /**
     * Records the keys being processed for the actuator endpoint (optional).
     *
     * @param activity supplies the activity record, or null when there is none; not null itself
     */
    public void setActivity(java.util.function.Supplier<io.dupguard.spring.DupguardActivity> activity) {
        this.activity = Objects.requireNonNull(activity, "activity");
    }

    /** What the annotation of one method says, parsed once. */
    static final class Plan {
        final String scope;
        final Expression key;
        final List<Expression> fingerprint;
        final Type type;
        final Class<?> raw;
        final boolean ignoreCase;
        final InFlightPolicy inFlight;
        final Duration retention;
        final boolean waitFromConfig;
        volatile Idempotency executor;
        volatile IdempotentExecution execution;

        Plan(Method method, Idempotent ann) {
            String where = MethodExpressions.describe(method);
            try {
                this.scope = IdempotencyKey.of(ann.scope(), "x").scope();
            } catch (RuntimeException e) {
                throw new IllegalArgumentException(where + ": @Idempotent(scope) " + e.getMessage(), e);
            }
            this.key = MethodExpressions.parse(method, "@Idempotent(key)", ann.key());
            List<Expression> fp = new ArrayList<>();
            for (String text : ann.fingerprint()) {
                fp.add(MethodExpressions.parse(method, "@Idempotent(fingerprint)", text));
            }
            this.fingerprint = List.copyOf(fp);
            this.type = method.getGenericReturnType();
            Class<?> returns = method.getReturnType();
            if (CompletionStage.class.isAssignableFrom(returns)
                    || Future.class.isAssignableFrom(returns)
                    || returns.getName().startsWith("org.reactivestreams.")
                    || returns.getName().startsWith("reactor.core.publisher.")) {
                throw new IllegalArgumentException(where + ": @Idempotent cannot store a result that completes later ("
                        + returns.getName() + "); return the value itself");
            }
            this.raw = returns;
            this.ignoreCase = ann.ignoreCase();
            Idempotent.InFlightMode mode = ann.inFlight();
            if (mode == Idempotent.InFlightMode.WAIT) {
                Duration wait =
                        ann.maxWait().isBlank() ? null : Durations.parse(where, "@Idempotent(maxWait)", ann.maxWait());
                this.inFlight = wait == null ? null : policy(where, wait);
            } else if (mode == Idempotent.InFlightMode.REJECT) {
                this.inFlight = InFlightPolicy.reject();
            } else {
                this.inFlight = null;
            }
            this.waitFromConfig =
                    mode == Idempotent.InFlightMode.WAIT && ann.maxWait().isBlank();
            this.retention = ann.retention().isBlank()
                    ? null
                    : Durations.parse(where, "@Idempotent(retention)", ann.retention());
            if (retention != null) {
                Durations.check(where, "@Idempotent(retention)", () -> IdempotencyConfig.custom()
                        .retention(retention));
            }
        }

        private static InFlightPolicy policy(String where, Duration wait) {
            try {
                return InFlightPolicy.waitUpTo(wait);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(where + ": @Idempotent(maxWait): " + e.getMessage(), e);
            }
        }

        Idempotency executor(IdempotencyStore store, IdempotencyConfig base, Duration defaultMaxWait) {
            Idempotency e = executor;
            if (e == null) {
                IdempotencyConfig.Builder b = IdempotencyConfig.from(bound(base));
                if (inFlight != null) {
                    b.inFlightPolicy(inFlight);
                } else if (waitFromConfig) {
                    b.inFlightPolicy(InFlightPolicy.waitUpTo(defaultMaxWait));
                }
                if (retention != null) {
                    b.retention(retention);
                }
                e = Idempotency.of(store, b.build());
                executor = e;
            }
            return e;
        }

        private IdempotencyConfig bound(IdempotencyConfig base) {
            if (!(type instanceof Class<?>) && base.codec() instanceof JacksonResultCodec jackson) {
                return IdempotencyConfig.from(base).codec(jackson.forType(type)).build();
            }
            return base;
        }
    }

    /** Parses and checks the annotation of {@code method}; what start-up validation runs. */
    static Plan plan(Method method, Idempotent ann) {
        return new Plan(method, ann);
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Method method = target == null
                ? invocation.getMethod()
                : AopUtils.getMostSpecificMethod(invocation.getMethod(), AopUtils.getTargetClass(target));
        Plan plan = plans.computeIfAbsent(
                method, m -> new Plan(m, AnnotatedElementUtils.findMergedAnnotation(m, Idempotent.class)));
        Object[] args = invocation.getArguments();
        Object keyValue = MethodExpressions.evaluate(plan.key, method, args, target);
        if (keyValue == null) {
            throw new IllegalArgumentException(
                    MethodExpressions.describe(method) + ": @Idempotent(key) evaluated to null");
        }
        IdempotencyKey key = plan.ignoreCase
                ? IdempotencyKey.ofIgnoringCase(plan.scope, keyValue.toString())
                : IdempotencyKey.of(plan.scope, keyValue.toString());
        Fingerprint fingerprint = fingerprint(plan, method, args, target);
        IdempotentWork<Object, Exception> work = () -> proceed(invocation);
        TransactionJoin tx = join.get();
        io.dupguard.spring.DupguardActivity a = activity.get();
        long id = a == null ? 0 : a.begin(key, "@Idempotent " + method.getName());
        try {
            Outcome<Object> outcome;
            IdempotentExecution execution = plan.execution;
            if (execution == null) {
                execution = executions.apply(plan.executor(store.get(), config.get(), defaultMaxWait));
                plan.execution = execution;
            }
            if (execution.mode() != IdempotentExecution.Mode.STORE) {
                outcome = execution.execute(key, fingerprint, plan.type, work);
            } else if (tx != null && tx.active()) {
                outcome = tx.execute(key, fingerprint, plan.type, work);
            } else {
                @SuppressWarnings("unchecked")
                Class<Object> raw = (Class<Object>) boxed(plan.raw);
                outcome =
                        plan.executor(store.get(), config.get(), defaultMaxWait).execute(key, fingerprint, raw, work);
            }
            return outcome.value();
        } finally {
            if (a != null) {
                a.end(id);
            }
        }
    }

    private static Class<?> boxed(Class<?> raw) {
        return raw == void.class ? Void.class : org.springframework.util.ClassUtils.resolvePrimitiveIfNecessary(raw);
    }

    private static Object proceed(MethodInvocation invocation) throws Exception {
        try {
            return invocation.proceed();
        } catch (Exception | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new UndeclaredThrowableException(t);
        }
    }

    private Fingerprint fingerprint(Plan plan, Method method, Object[] args, Object target) {
        if (plan.fingerprint.isEmpty()) {
            return Fingerprint.none();
        }
        List<Object> values = new ArrayList<>(plan.fingerprint.size());
        for (Expression e : plan.fingerprint) {
            values.add(MethodExpressions.evaluate(e, method, args, target));
        }
        return Fingerprint.of(writer().writeValueAsBytes(values));
    }

    /** Canonical JSON: map entries sorted by key, with the application's mapper where there is one. */
    private ObjectWriter writer() {
        ObjectWriter w = fingerprintWriter;
        if (w == null) {
            IdempotencyConfig c = Objects.requireNonNull(config.get(), "config");
            JsonMapper mapper = c.codec() instanceof JacksonResultCodec j && j.mapper() instanceof JsonMapper m
                    ? m
                    : JsonMapper.builder().build();
            w = mapper.writer(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS);
            fingerprintWriter = w;
        }
        return w;
    }
}
