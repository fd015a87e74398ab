package io.dupguard.spring.kafka;

import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.IdempotencyStore;
import io.dupguard.idempotency.RecordStatus;
import io.dupguard.spring.autoconfigure.DupguardAutoConfiguration;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.aopalliance.intercept.MethodInterceptor;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.awaitility.Awaitility;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.kafka.autoconfigure.ConcurrentKafkaListenerContainerFactoryConfigurer;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.core.ConsumerFactory;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.backoff.FixedBackOff;

/**
 * The consumer of {@link KafkaCrashIT}, run in a child JVM: the starter's {@link
 * IdempotentKafkaInterceptor} (key: the {@code message-id} header, transactional mode on the jdbc
 * store) in front of two record listeners and two batch listeners, one topic and one consumer group
 * each ({@code <crash.prefix>.<point>}). Each listener run writes one effect row per record
 * ({@code message_id, pid}) in the dedup's transaction; every delivery that reaches the container's
 * advice chain is written before the dedup, autocommitted, to a deliveries table, so duplicates the
 * dedup leaves out are counted too.
 *
 * <p>The crash switch: {@code -Dcrash.point=<point>,<point>... -Dcrash.after=N} halts the JVM ({@code
 * Runtime.halt(137)}: no shutdown hook, no clean close of the consumer or the pool) once the listener
 * of every armed point has reached it; a listener at its point waits there for the others:
 *
 * <ul>
 *   <li>{@code record-before-commit}: in the record listener at its N-th record, after its write,
 *       before the dedup's transaction commits;
 *   <li>{@code record-after-commit}: once the transaction of the N-th record has committed, before
 *       the container commits its offset;
 *   <li>{@code batch-mid}: in the batch listener, after the write of the batch's records up to the
 *       N-th of the run, before the batch's transaction commits;
 *   <li>{@code batch-after-commit}: once the transaction of the batch holding the N-th record has
 *       committed, before the container commits the batch's offsets.
 * </ul>
 *
 * <p>Why the after-commit points lie between the database commit and the offset commit: the advice
 * chain (delivery log, then the dedup) wraps the listener proxy the container calls ({@code
 * ContainerProperties.adviseListenerIfNeeded}); the dedup's {@code execute} commits the claim and the
 * effect in one transaction and runs its {@code afterCommit} synchronizations on the listener
 * thread before it returns. Only after {@code onMessage} returns does {@code
 * KafkaMessageListenerContainer.ListenerConsumer} ack the record ({@code invokeOnMessage → ackCurrent},
 * batch: {@code invokeBatchOnMessage → ackBatch}) and, with the default {@code AckMode.BATCH}, commit
 * the offsets of the poll once all its records are through ({@code processCommits → commitIfNecessary}).
 * An {@code afterCommit} halt therefore leaves the effect committed and its offset not.
 *
 * <p>{@code --crash.mode=redis-store} (for {@link KafkaRedisCrashIT}) runs {@link
 * RedisStoreListeners} instead, in store mode on the Redis store with {@code
 * dupguard.kafka.await-completion=false}; their points ({@link #REDIS_STORE_POINTS}) are described
 * there. An advice between the delivery log and the dedup halts once the dedup's call has returned
 * ({@link CrashSwitch#onReturn}).
 */
@Configuration(proxyBeanMethods = false)
// only what the consumer needs: a child starts seconds sooner than with every auto-configuration
@ImportAutoConfiguration({
    PropertyPlaceholderAutoConfiguration.class,
    DataSourceAutoConfiguration.class,
    DataSourceTransactionManagerAutoConfiguration.class,
    JdbcTemplateAutoConfiguration.class,
    TransactionAutoConfiguration.class,
    KafkaAutoConfiguration.class,
    DataRedisAutoConfiguration.class,
    DupguardAutoConfiguration.class
})
@Import({KafkaCrashApp.Listeners.class, KafkaCrashApp.RedisStoreListeners.class})
public class KafkaCrashApp {
    /** The crash points, in the order {@link KafkaCrashIT} crashes them. */
    static final List<String> POINTS =
            List.of("record-before-commit", "record-after-commit", "batch-mid", "batch-after-commit");
    /** The crash points of {@code --crash.mode=redis-store}, in the order {@link KafkaRedisCrashIT} crashes them. */
    static final List<String> REDIS_STORE_POINTS =
            List.of("record-before-complete", "record-sent", "record-answer-taken");

    static final String HEADER = KafkaItBroker.MESSAGE_ID;
    static final int HALT_STATUS = 137;

    /**
     * Runs the consumer. With {@code -Dcrash.await-go=true} (and {@code --crash.auto-startup=false})
     * the listener containers start once a line arrives on standard input: a child started ahead
     * consumes only after its predecessor died.
     */
    public static void main(String[] args) throws IOException {
        ConfigurableApplicationContext context = SpringApplication.run(KafkaCrashApp.class, args);
        if (Boolean.getBoolean("crash.await-go")) {
            if (new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine() == null) {
                Runtime.getRuntime().halt(1); // the test JVM is gone
            }
            context.getBean(KafkaListenerEndpointRegistry.class)
                    .getListenerContainers()
                    .forEach(MessageListenerContainer::start);
        }
    }

    static String id(ConsumerRecord<?, ?> r) {
        return KafkaItBroker.messageId(r);
    }

    @Bean
    DefaultErrorHandler errorHandler() {
        return new DefaultErrorHandler(new FixedBackOff(100, 100));
    }

    @Bean
    ConcurrentKafkaListenerContainerFactory<Object, Object> kafkaListenerContainerFactory(
            ConcurrentKafkaListenerContainerFactoryConfigurer configurer,
            ConsumerFactory<Object, Object> consumers,
            IdempotentKafkaInterceptor dedup,
            DataSource dataSource,
            ObjectProvider<IdempotencyStore> store,
            @Value("${crash.deliveries}") String deliveries,
            @Value("${crash.auto-startup:true}") boolean autoStartup,
            @Value("${dupguard.kafka.scope:kafka}") String scope) {
        ConcurrentKafkaListenerContainerFactory<Object, Object> f = new ConcurrentKafkaListenerContainerFactory<>();
        configurer.configure(f, consumers);
        f.setAutoStartup(autoStartup);
        JdbcTemplate autocommit = new JdbcTemplate(dataSource);
        String insert = "insert into " + deliveries + " (message_id, pid, topic, part, off) values (?, ?, ?, ?, ?)";
        long pid = ProcessHandle.current().pid();
        MethodInterceptor deliveryLog = invocation -> {
            Object[] args = invocation.getArguments();
            if (invocation.getMethod().getName().equals("onMessage") && args.length > 0) {
                List<?> records = args[0] instanceof List<?> l ? l : List.of(args[0]);
                autocommit.batchUpdate(
                        insert,
                        records.stream()
                                .filter(o -> o instanceof ConsumerRecord<?, ?>)
                                .map(o -> (ConsumerRecord<?, ?>) o)
                                .map(r -> new Object[] {id(r), pid, r.topic(), r.partition(), r.offset()})
                                .toList());
            }
            return invocation.proceed();
        };
        // outermost first: the delivery log sees what the dedup then leaves out; the return switch sees
        // the dedup's call return
        f.getContainerProperties().setAdviceChain(deliveryLog, CrashSwitch.onReturn(store, scope), dedup);
        return f;
    }

    /**
     * The crash switch of this JVM: {@code crash.point} (points, comma-separated) and {@code
     * crash.after}. A listener thread that reaches its armed point parks there until every armed point
     * is reached, then the JVM halts: one halt leaves each listener at its own point.
     */
    static final class CrashSwitch {
        private static final Set<String> ARMED =
                Set.of(System.getProperty("crash.point", "").split(","));
        private static final int AFTER = Integer.getInteger("crash.after", 1);
        private static final Map<String, AtomicInteger> RECORDS = new ConcurrentHashMap<>();
        private static final CountDownLatch REACHED = new CountDownLatch(ARMED.size());
        private static final ThreadLocal<String> ON_RETURN = new ThreadLocal<>();

        private CrashSwitch() {}

        /**
         * Counts {@code records} records run by the listener of {@code point}.
         *
         * @return whether this JVM is armed at {@code point} and these records reach its N-th
         */
        static boolean reached(String point, int records) {
            if (!ARMED.contains(point)) {
                return false;
            }
            int before =
                    RECORDS.computeIfAbsent(point, p -> new AtomicInteger()).getAndAdd(records);
            return before < AFTER && before + records >= AFTER;
        }

        /** Parks the calling thread at {@code point} until every armed point is reached; then halts. */
        static void reach(String point) {
            System.err.println("crash switch: " + point + " reached (pid "
                    + ProcessHandle.current().pid() + ")");
            REACHED.countDown();
            try {
                REACHED.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            System.err.println("crash switch: halting");
            System.err.flush();
            Runtime.getRuntime().halt(HALT_STATUS);
        }

        /**
         * Reaches {@code point} once the dedup's call on this thread has returned: the advice {@link
         * #onReturn} between the delivery log and the dedup halts there.
         */
        static void reachOnReturn(String point) {
            ON_RETURN.set(point);
        }

        /**
         * The advice around the dedup that reaches the point {@link #reachOnReturn} set once the dedup's
         * call returns — in store mode with {@code await-completion=false} its completion sent and its
         * answer not taken — after the store has run that completion: a read of the record, sent behind
         * the completion on the store's one connection, finds it completed. Without that wait the halt
         * could come before Lettuce's event loop thread has written the completion to the socket
         * ({@code Channel.writeAndFlush} from another thread queues the write as a task of the
         * channel's event loop), and the completion would be lost with the JVM.
         */
        static MethodInterceptor onReturn(ObjectProvider<IdempotencyStore> store, String scope) {
            return invocation -> {
                Object out = invocation.proceed();
                String point = ON_RETURN.get();
                if (point != null && invocation.getArguments()[0] instanceof ConsumerRecord<?, ?> r) {
                    ON_RETURN.remove();
                    IdempotencyKey key = IdempotencyKey.of(scope, id(r));
                    Awaitility.await("the store ran the completion of " + key)
                            .atMost(Duration.ofSeconds(30))
                            .pollInterval(Duration.ofMillis(5))
                            .until(() -> store.getObject()
                                    .find(key)
                                    .map(rec -> rec.status() == RecordStatus.COMPLETED)
                                    .orElse(false));
                    reach(point);
                }
                return out;
            };
        }

        /** Reaches {@code point} once the current transaction has committed. */
        static void reachAfterCommit(String point) {
            if (!TransactionSynchronizationManager.isSynchronizationActive()) {
                throw new IllegalStateException("no transaction around the listener: the dedup is not transactional");
            }
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCommit() {
                    reach(point);
                }
            });
        }
    }

    /** The listeners' effect: one row per record ({@code message_id, pid}) in the effects table. */
    abstract static class Effects {
        final JdbcTemplate jdbc;
        final String insert;
        final long pid = ProcessHandle.current().pid();

        Effects(JdbcTemplate jdbc, String effects) {
            this.jdbc = jdbc;
            this.insert = "insert into " + effects + " (message_id, pid) values (?, ?)";
        }

        void write(ConsumerRecord<String, String> r) {
            jdbc.update(insert, id(r), pid);
        }
    }

    /**
     * The transactional mode's listeners (the default {@code crash.mode}); one container per point: its
     * topic and its consumer group are {@code <crash.prefix>.<point>}.
     */
    @ConditionalOnProperty(name = "crash.mode", havingValue = "transactional", matchIfMissing = true)
    static class Listeners extends Effects {
        Listeners(JdbcTemplate jdbc, @Value("${crash.effects}") String effects) {
            super(jdbc, effects);
        }

        @KafkaListener(id = "${crash.prefix}.record-before-commit", topics = "${crash.prefix}.record-before-commit")
        public void recordBeforeCommit(ConsumerRecord<String, String> record) {
            writeEach("record-before-commit", List.of(record));
        }

        @KafkaListener(id = "${crash.prefix}.record-after-commit", topics = "${crash.prefix}.record-after-commit")
        public void recordAfterCommit(ConsumerRecord<String, String> record) {
            writeAll("record-after-commit", List.of(record));
        }

        @KafkaListener(id = "${crash.prefix}.batch-mid", topics = "${crash.prefix}.batch-mid", batch = "true")
        public void batchMid(List<ConsumerRecord<String, String>> records) {
            writeEach("batch-mid", records);
        }

        @KafkaListener(
                id = "${crash.prefix}.batch-after-commit",
                topics = "${crash.prefix}.batch-after-commit",
                batch = "true")
        public void batchAfterCommit(List<ConsumerRecord<String, String>> records) {
            writeAll("batch-after-commit", records);
        }

        /** One effect row per record, one statement each; an armed point halts after the write of its N-th. */
        private void writeEach(String point, List<ConsumerRecord<String, String>> records) {
            System.err.println(point + ": " + records.size() + " record(s)");
            for (ConsumerRecord<String, String> r : records) {
                write(r);
                if (CrashSwitch.reached(point, 1)) {
                    CrashSwitch.reach(point);
                }
            }
        }

        /** One effect row per record in one batch; an armed point halts once they have committed. */
        private void writeAll(String point, List<ConsumerRecord<String, String>> records) {
            System.err.println(point + ": " + records.size() + " record(s)");
            jdbc.batchUpdate(
                    insert, records.stream().map(r -> new Object[] {id(r), pid}).toList());
            if (CrashSwitch.reached(point, records.size())) {
                CrashSwitch.reachAfterCommit(point);
            }
        }
    }

    /**
     * {@code --crash.mode=redis-store}: record listeners deduplicated in store mode, on the Redis store
     * with {@code dupguard.kafka.await-completion=false}; one container per point, as {@link
     * Listeners}. Each run writes its effect row, autocommitted (store mode has no transaction).
     */
    @ConditionalOnProperty(name = "crash.mode", havingValue = "redis-store")
    static class RedisStoreListeners extends Effects {
        RedisStoreListeners(JdbcTemplate jdbc, @Value("${crash.effects}") String effects) {
            super(jdbc, effects);
        }

        /** Halts in the N-th run, after its effect: the dedup's completion is not sent. */
        @KafkaListener(id = "${crash.prefix}.record-before-complete", topics = "${crash.prefix}.record-before-complete")
        public void recordBeforeComplete(ConsumerRecord<String, String> record) {
            write(record);
            if (CrashSwitch.reached("record-before-complete", 1)) {
                CrashSwitch.reach("record-before-complete");
            }
        }

        /** Halts once the N-th run's call has returned, its completion sent and its answer not taken. */
        @KafkaListener(id = "${crash.prefix}.record-sent", topics = "${crash.prefix}.record-sent")
        public void recordSent(ConsumerRecord<String, String> record) {
            write(record);
            if (CrashSwitch.reached("record-sent", 1)) {
                CrashSwitch.reachOnReturn("record-sent");
            }
        }

        /**
         * Halts in the N-th run before its effect: the answer to the completion before it has been
         * taken (by this run's claim, or by the claim of a duplicate in between), and this run's claim
         * holds its key in progress.
         */
        @KafkaListener(id = "${crash.prefix}.record-answer-taken", topics = "${crash.prefix}.record-answer-taken")
        public void recordAnswerTaken(ConsumerRecord<String, String> record) {
            if (CrashSwitch.reached("record-answer-taken", 1)) {
                CrashSwitch.reach("record-answer-taken");
            }
            write(record);
        }
    }
}
