package io.dupguard.spring.kafka;

import io.dupguard.spring.autoconfigure.DupguardAutoConfiguration;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.aopalliance.intercept.MethodInterceptor;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
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
    DupguardAutoConfiguration.class
})
@Import(KafkaCrashApp.Listeners.class)
public class KafkaCrashApp {
    /** The crash points, in the order {@link KafkaCrashIT} crashes them. */
    static final List<String> POINTS =
            List.of("record-before-commit", "record-after-commit", "batch-mid", "batch-after-commit");

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
            @Value("${crash.deliveries}") String deliveries,
            @Value("${crash.auto-startup:true}") boolean autoStartup) {
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
        // outermost first: the delivery log sees what the dedup then leaves out
        f.getContainerProperties().setAdviceChain(deliveryLog, dedup);
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

    /** One container per point: its topic and its consumer group are {@code <crash.prefix>.<point>}. */
    static class Listeners {
        private final JdbcTemplate jdbc;
        private final String insert;
        private final long pid = ProcessHandle.current().pid();

        Listeners(JdbcTemplate jdbc, @Value("${crash.effects}") String effects) {
            this.jdbc = jdbc;
            this.insert = "insert into " + effects + " (message_id, pid) values (?, ?)";
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
                jdbc.update(insert, id(r), pid);
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
}
