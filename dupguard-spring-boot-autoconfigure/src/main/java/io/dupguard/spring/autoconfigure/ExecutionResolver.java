package io.dupguard.spring.autoconfigure;

import io.dupguard.idempotency.Idempotency;
import io.dupguard.spring.IdempotentExecution;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;

/**
 * Chooses where an integration's records commit ({@code dupguard.http.mode}, {@code
 * dupguard.amqp.mode}, {@code dupguard.idempotency.mode}). A bean of this type exists when the
 * transactional modes can run (spring-tx, dupguard-jdbc and a store on the application's DataSource,
 * or a backstop table there); free of transaction types itself, so the integrations load without
 * them.
 */
interface ExecutionResolver {
    Logger LOG = LoggerFactory.getLogger(ExecutionResolver.class);

    /**
     * The execution of one integration.
     *
     * @param property the mode's property, named in errors
     * @param mode the configured mode
     * @param front the executor on the configured store, with the integration's in-flight policy
     * @param basicCodec true when results are {@code byte[]} or {@code Void} (the basic codec), false
     *     for results of any type (the application's codec)
     * @param processedMessages true when {@code Void} calls are recorded in the processed-messages
     *     table (a listener dedup's processed layout), where there is one
     * @return the execution, or null when {@code mode} is AUTO and no transactional mode applies
     * @throws InvalidDupguardPropertyException a transactional mode was asked for and cannot run
     */
    IdempotentExecution resolve(
            String property,
            DupguardProperties.RecordMode mode,
            Idempotency front,
            boolean basicCodec,
            boolean processedMessages);

    /** Why the transactional modes cannot run here, for errors and the start-up warning. */
    String unavailableReason();

    /**
     * Resolves the mode of one integration and, if {@code log}, says it (once, at start-up).
     *
     * @param resolvers the resolver bean, if any
     * @param integration the integration's name for the log
     * @param property the mode's property
     * @param mode the configured mode
     * @param front the executor on the configured store
     * @param basicCodec see {@link #resolve}
     * @param processedMessages see {@link #resolve}
     * @param log whether to log the choice
     * @return the execution; never null
     */
    static IdempotentExecution choose(
            ObjectProvider<ExecutionResolver> resolvers,
            String integration,
            String property,
            DupguardProperties.RecordMode mode,
            Idempotency front,
            boolean basicCodec,
            boolean processedMessages,
            boolean log) {
        ExecutionResolver resolver = resolvers.getIfAvailable();
        IdempotentExecution chosen = null;
        if (mode != DupguardProperties.RecordMode.STORE) {
            if (resolver != null) {
                chosen = resolver.resolve(property, mode, front, basicCodec, processedMessages);
            } else if (mode != DupguardProperties.RecordMode.AUTO) {
                throw new InvalidDupguardPropertyException(
                        property,
                        mode.name().toLowerCase(Locale.ROOT),
                        "needs dupguard-jdbc, spring-jdbc and a single DataSource with its transaction manager"
                                + " (spring-boot-starter-jdbc), and dupguard.store jdbc or redis");
            }
        }
        if (!log) {
            return chosen != null ? chosen : IdempotentExecution.store(front);
        }
        if (chosen != null) {
            LOG.info("dupguard: {} runs in {} ({})", integration, chosen.describe(), property);
            return chosen;
        }
        chosen = IdempotentExecution.store(front);
        if (mode == DupguardProperties.RecordMode.STORE) {
            LOG.info("dupguard: {} runs in {} ({}=store)", integration, chosen.describe(), property);
        } else {
            LOG.warn(
                    "dupguard: {} runs in {}: a crash after the application's writes committed and before the"
                            + " record completed leaves the key in flight until dupguard.idempotency.in-flight-lease"
                            + " ends, and a retry then runs the operation again. The transactional modes close that"
                            + " window: {}",
                    integration,
                    chosen.describe(),
                    resolver == null
                            ? "they need dupguard-jdbc and the application's DataSource with its transaction"
                                    + " manager (dupguard.store=jdbc, or redis with the database as backstop)"
                            : resolver.unavailableReason());
        }
        return chosen;
    }

    /**
     * The execution of a message-listener dedup: its in-flight wait checked and applied, its mode
     * resolved and logged.
     *
     * @param resolvers the resolver bean, if any
     * @param integration the integration's name for the log
     * @param prefix the properties' prefix, e.g. {@code dupguard.amqp}
     * @param p the listener's properties
     * @param store the idempotency store
     * @param config the application's idempotency configuration
     * @return the execution; never null
     */
    static IdempotentExecution listener(
            ObjectProvider<ExecutionResolver> resolvers,
            String integration,
            String prefix,
            DupguardProperties.ListenerDedup p,
            io.dupguard.idempotency.IdempotencyStore store,
            io.dupguard.idempotency.IdempotencyConfig config) {
        io.dupguard.idempotency.IdempotencyConfig.Builder b = io.dupguard.idempotency.IdempotencyConfig.from(config);
        InvalidDupguardPropertyException.check(
                prefix + ".in-flight-wait",
                p.getInFlightWait(),
                () -> b.inFlightPolicy(io.dupguard.idempotency.InFlightPolicy.waitUpTo(p.getInFlightWait())));
        DupguardAutoConfiguration.scope(prefix + ".scope", p.getScope());
        b.awaitCompletion(p.isAwaitCompletion());
        return choose(
                resolvers,
                integration,
                prefix + ".mode",
                p.getMode(),
                Idempotency.of(store, b.build()),
                false,
                p.getLayout() != DupguardProperties.ListenerLayout.RECORDS,
                true);
    }
}
