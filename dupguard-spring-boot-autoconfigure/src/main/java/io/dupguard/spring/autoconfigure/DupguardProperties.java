package io.dupguard.spring.autoconfigure;

import io.dupguard.idempotency.IdempotencyConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code dupguard.*} properties. Every value is checked when the beans that use it are built;
 * a bad value fails start-up with {@link InvalidDupguardPropertyException} naming the property.
 */
@ConfigurationProperties("dupguard")
public class DupguardProperties {
    /** Which backend stores idempotency records, locks, tokens and throttle windows. */
    public enum StoreType {
        /** The application's DataSource (PostgreSQL, MySQL/MariaDB, H2) through dupguard-jdbc. */
        JDBC,
        /** Redis (standalone, Sentinel or Cluster) from spring.data.redis.*, through dupguard-redis. */
        REDIS,
        /** This JVM only: for tests and single-instance tools. */
        MEMORY
    }

    /** What the redis store does with a server that may evict keys (see EvictionPolicyCheck). */
    public enum EvictionCheck {
        /** Every operation fails while the server may evict. */
        REFUSE,
        /** Log a warning once per connection. */
        WARN,
        /** Do not check. */
        OFF
    }

    /** Which table a listener dedup writes in the transactional and backstop modes. */
    public enum ListenerLayout {
        /**
         * The processed-messages table ({@code dupguard.jdbc.processed-table}): key, compact
         * fingerprint and expiry, one statement per message and per poll.
         */
        PROCESSED,
        /** The idempotency records table, with status, owner and result, as every other integration. */
        RECORDS
    }

    /**
     * Where an integration's idempotency record commits relative to the operation's effect (see
     * {@link io.dupguard.spring.IdempotentExecution}).
     */
    public enum RecordMode {
        /**
         * TRANSACTIONAL with dupguard.store=jdbc, BACKSTOP with redis, when the application's
         * DataSource has its transaction manager; otherwise STORE, with a start-up warning.
         */
        AUTO,
        /** The record is claimed and completed in the application's database transaction. */
        TRANSACTIONAL,
        /** The store (Redis) rejects and replays fast; a row in the application's transaction decides. */
        BACKSTOP,
        /** The store alone, completed after the work: a crash after the effect runs it again. */
        STORE
    }

    /** What a duplicate does while the first call with its key still runs. */
    public enum InFlight {
        /** Fail at once (HTTP 409, RequestInFlightException). */
        REJECT,
        /** Wait up to max-wait for the first call, then replay its result. */
        WAIT
    }

    /**
     * Backend: jdbc, redis or memory. Default: jdbc when the application has a DataSource and
     * dupguard-jdbc is on the classpath, otherwise redis when dupguard-redis and Spring Data Redis
     * are, otherwise memory.
     */
    private StoreType store;

    private final Idempotency idempotency = new Idempotency();
    private final Jdbc jdbc = new Jdbc();
    private final Redis redis = new Redis();
    private final Purge purge = new Purge();
    private final Http http = new Http();
    private final Aop aop = new Aop();
    private final Health health = new Health();
    private final Amqp amqp = new Amqp();
    private final Kafka kafka = new Kafka();
    private final Retry retry = new Retry();

    /**
     * Properties with their defaults; Spring Boot binds {@code dupguard.*} into them. Not
     * thread-safe while being bound.
     */
    public DupguardProperties() {}

    /**
     * The {@code dupguard.retry.*} properties.
     *
     * @return the group; never null, changed through its setters
     */
    public Retry getRetry() {
        return retry;
    }

    /**
     * The retry log (on the application's DataSource, or in memory with dupguard.store=memory),
     * created when the application defines RetryTaskHandler beans.
     */
    public static class Retry {
        /** Create the retry log and run its workers. */
        private boolean enabled = true;
        /** Start the workers with the application context. */
        private boolean autoStartup = true;
        /** Table of the tasks (a plain SQL identifier). */
        private String table = "dupguard_retry_tasks";
        /** Threads running handlers. */
        private int workers = io.dupguard.retry.RetryConfig.DEFAULT_WORKERS;
        /** Threads claiming due tasks. */
        private int pollers = io.dupguard.retry.RetryConfig.DEFAULT_POLLERS;
        /** Tasks claimed per statement. */
        private int batchSize = io.dupguard.retry.RetryConfig.DEFAULT_BATCH_SIZE;
        /** Pause between polls when no task is due (wake-ups and notifications start tasks sooner). */
        private Duration pollInterval = io.dupguard.retry.RetryConfig.DEFAULT_POLL_INTERVAL;
        /** Lease of a running task, renewed while its handler runs; a crashed worker's task runs again after it. */
        private Duration lease = io.dupguard.retry.RetryConfig.DEFAULT_LEASE;
        /** How long SUCCEEDED tasks are kept before the purge deletes them. */
        private Duration succeededRetention = io.dupguard.retry.RetryConfig.DEFAULT_SUCCEEDED_RETENTION;
        /** How long stopping waits for running handlers before interrupting them. */
        private Duration shutdownTimeout = io.dupguard.retry.RetryConfig.DEFAULT_SHUTDOWN_TIMEOUT;
        /** PostgreSQL: one pooled connection LISTENs, so enqueues by any process wake the workers. */
        private boolean listenForNotifications = true;

        /** The defaults of {@code dupguard.retry.*}. */
        public Retry() {}

        /**
         * Create the retry log and run its workers ({@code dupguard.retry.enabled}).
         *
         * @return true if on; default {@code true}
         */
        public boolean isEnabled() {
            return enabled;
        }

        /**
         * Sets {@code dupguard.retry.enabled}: create the retry log and run its workers.
         *
         * @param enabled the new value; checked when the beans that use it are built
         */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        /**
         * Start the workers with the application context ({@code dupguard.retry.auto-startup}).
         *
         * @return true if on; default {@code true}
         */
        public boolean isAutoStartup() {
            return autoStartup;
        }

        /**
         * Sets {@code dupguard.retry.auto-startup}: start the workers with the application context.
         *
         * @param autoStartup the new value; checked when the beans that use it are built
         */
        public void setAutoStartup(boolean autoStartup) {
            this.autoStartup = autoStartup;
        }

        /**
         * Table of the tasks (a plain SQL identifier) ({@code dupguard.retry.table}).
         *
         * @return the value; default {@code "dupguard_retry_tasks"}
         */
        public String getTable() {
            return table;
        }

        /**
         * Sets {@code dupguard.retry.table}: table of the tasks (a plain SQL identifier).
         *
         * @param table the new value; checked when the beans that use it are built
         */
        public void setTable(String table) {
            this.table = table;
        }

        /**
         * Threads running handlers ({@code dupguard.retry.workers}).
         *
         * @return the value; default {@link io.dupguard.retry.RetryConfig#DEFAULT_WORKERS}
         */
        public int getWorkers() {
            return workers;
        }

        /**
         * Sets {@code dupguard.retry.workers}: threads running handlers.
         *
         * @param workers the new value; checked when the beans that use it are built
         */
        public void setWorkers(int workers) {
            this.workers = workers;
        }

        /**
         * Threads claiming due tasks ({@code dupguard.retry.pollers}).
         *
         * @return the value; default {@link io.dupguard.retry.RetryConfig#DEFAULT_POLLERS}
         */
        public int getPollers() {
            return pollers;
        }

        /**
         * Sets {@code dupguard.retry.pollers}: threads claiming due tasks.
         *
         * @param pollers the new value; checked when the beans that use it are built
         */
        public void setPollers(int pollers) {
            this.pollers = pollers;
        }

        /**
         * Tasks claimed per statement ({@code dupguard.retry.batch-size}).
         *
         * @return the value; default {@link io.dupguard.retry.RetryConfig#DEFAULT_BATCH_SIZE}
         */
        public int getBatchSize() {
            return batchSize;
        }

        /**
         * Sets {@code dupguard.retry.batch-size}: tasks claimed per statement.
         *
         * @param batchSize the new value; checked when the beans that use it are built
         */
        public void setBatchSize(int batchSize) {
            this.batchSize = batchSize;
        }

        /**
         * Pause between polls when no task is due (wake-ups and notifications start tasks sooner)
         * ({@code dupguard.retry.poll-interval}).
         *
         * @return the value; default {@link io.dupguard.retry.RetryConfig#DEFAULT_POLL_INTERVAL}
         */
        public Duration getPollInterval() {
            return pollInterval;
        }

        /**
         * Sets {@code dupguard.retry.poll-interval}: pause between polls when no task is due
         * (wake-ups and notifications start tasks sooner).
         *
         * @param pollInterval the new value; checked when the beans that use it are built
         */
        public void setPollInterval(Duration pollInterval) {
            this.pollInterval = pollInterval;
        }

        /**
         * Lease of a running task, renewed while its handler runs; a crashed worker's task runs
         * again after it ({@code dupguard.retry.lease}).
         *
         * @return the value; default {@link io.dupguard.retry.RetryConfig#DEFAULT_LEASE}
         */
        public Duration getLease() {
            return lease;
        }

        /**
         * Sets {@code dupguard.retry.lease}: lease of a running task, renewed while its handler
         * runs; a crashed worker's task runs again after it.
         *
         * @param lease the new value; checked when the beans that use it are built
         */
        public void setLease(Duration lease) {
            this.lease = lease;
        }

        /**
         * How long SUCCEEDED tasks are kept before the purge deletes them ({@code
         * dupguard.retry.succeeded-retention}).
         *
         * @return the value; default {@link
         *     io.dupguard.retry.RetryConfig#DEFAULT_SUCCEEDED_RETENTION}
         */
        public Duration getSucceededRetention() {
            return succeededRetention;
        }

        /**
         * Sets {@code dupguard.retry.succeeded-retention}: how long SUCCEEDED tasks are kept before
         * the purge deletes them.
         *
         * @param succeededRetention the new value; checked when the beans that use it are built
         */
        public void setSucceededRetention(Duration succeededRetention) {
            this.succeededRetention = succeededRetention;
        }

        /**
         * How long stopping waits for running handlers before interrupting them ({@code
         * dupguard.retry.shutdown-timeout}).
         *
         * @return the value; default {@link io.dupguard.retry.RetryConfig#DEFAULT_SHUTDOWN_TIMEOUT}
         */
        public Duration getShutdownTimeout() {
            return shutdownTimeout;
        }

        /**
         * Sets {@code dupguard.retry.shutdown-timeout}: how long stopping waits for running
         * handlers before interrupting them.
         *
         * @param shutdownTimeout the new value; checked when the beans that use it are built
         */
        public void setShutdownTimeout(Duration shutdownTimeout) {
            this.shutdownTimeout = shutdownTimeout;
        }

        /**
         * PostgreSQL: one pooled connection LISTENs, so enqueues by any process wake the workers
         * ({@code dupguard.retry.listen-for-notifications}).
         *
         * @return true if on; default {@code true}
         */
        public boolean isListenForNotifications() {
            return listenForNotifications;
        }

        /**
         * Sets {@code dupguard.retry.listen-for-notifications}: postgreSQL: one pooled connection
         * LISTENs, so enqueues by any process wake the workers.
         *
         * @param listenForNotifications the new value; checked when the beans that use it are built
         */
        public void setListenForNotifications(boolean listenForNotifications) {
            this.listenForNotifications = listenForNotifications;
        }
    }

    /**
     * The {@code dupguard.kafka.*} properties.
     *
     * @return the group; never null, changed through its setters
     */
    public Kafka getKafka() {
        return kafka;
    }

    /** What identifies a Kafka record for the consumer dedup. */
    public enum KafkaKey {
        /** Topic, partition and offset: redeliveries of one record (not a producer's re-send). */
        OFFSET,
        /** A header the producer sets ({@code dupguard.kafka.key-header}): also a producer's re-sends. */
        HEADER,
        /** The record key, when it identifies the message. */
        RECORD_KEY
    }

    /** What the consumer dedups of message listeners (AMQP, Kafka) share. */
    public abstract static class ListenerDedup {
        /** Scope of the records the consumer dedup writes. */
        private String scope;
        /** Header holding the key. */
        private String keyHeader;
        /** How long a duplicate waits for the first delivery to finish before it is handed back to the broker. */
        private Duration inFlightWait = Duration.ofSeconds(5);
        /** Refuse deliveries without a key (never requeued in a loop) instead of running them undeduplicated. */
        private boolean rejectWithoutKey = true;
        /** Add the dedup to Boot's default listener container factory (otherwise opt in per factory). */
        private boolean defaultFactory = false;
        /**
         * Where the records commit: auto (with the listener's database writes when the store is jdbc,
         * or redis backed by the database), transactional, backstop or store.
         */
        private RecordMode mode = RecordMode.AUTO;
        /**
         * Which table the dedup writes in the transactional and backstop modes: processed (the
         * processed-messages table, one statement per message) or records (the idempotency table).
         */
        private ListenerLayout layout = ListenerLayout.PROCESSED;
        /**
         * Whether a delivery waits for its completion to be stored before the listener returns
         * (store mode). False: the completion travels ahead of the next delivery's claim on the
         * consumer's thread, one round trip for both on Redis.
         */
        private boolean awaitCompletion = true;

        /**
         * The shared defaults.
         *
         * @param scope the default scope
         * @param keyHeader the default key header, or null
         */
        protected ListenerDedup(String scope, String keyHeader) {
            this.scope = scope;
            this.keyHeader = keyHeader;
        }

        /**
         * Scope of the records the consumer dedup writes ({@code dupguard.amqp.scope}, {@code dupguard.kafka.scope}).
         *
         * @return the value; default {@code "amqp"} / {@code "kafka"}
         */
        public String getScope() {
            return scope;
        }

        /**
         * Sets {@code dupguard.amqp.scope} or {@code dupguard.kafka.scope}: scope of the records the consumer dedup writes.
         *
         * @param scope the new value; checked when the beans that use it are built
         */
        public void setScope(String scope) {
            this.scope = scope;
        }

        /**
         * Header holding the key ({@code dupguard.amqp.key-header}, {@code dupguard.kafka.key-header}).
         *
         * @return the value; default none (AMQP: the message-id property) / {@code "message-id"} (Kafka, with key=header)
         */
        public String getKeyHeader() {
            return keyHeader;
        }

        /**
         * Sets {@code dupguard.amqp.key-header} or {@code dupguard.kafka.key-header}: header holding the key.
         *
         * @param keyHeader the new value; checked when the beans that use it are built
         */
        public void setKeyHeader(String keyHeader) {
            this.keyHeader = keyHeader;
        }

        /**
         * How long a duplicate waits for the first delivery to finish before it is handed back to the broker ({@code dupguard.amqp.in-flight-wait}, {@code dupguard.kafka.in-flight-wait}).
         *
         * @return the value; default 5 s
         */
        public Duration getInFlightWait() {
            return inFlightWait;
        }

        /**
         * Sets {@code dupguard.amqp.in-flight-wait} or {@code dupguard.kafka.in-flight-wait}: how long a duplicate waits for the first delivery to finish before it is handed back to the broker.
         *
         * @param inFlightWait the new value; checked when the beans that use it are built
         */
        public void setInFlightWait(Duration inFlightWait) {
            this.inFlightWait = inFlightWait;
        }

        /**
         * Refuse deliveries without a key instead of running them undeduplicated ({@code dupguard.amqp.reject-without-key}, {@code dupguard.kafka.reject-without-key}).
         *
         * @return the value; default {@code true}
         */
        public boolean isRejectWithoutKey() {
            return rejectWithoutKey;
        }

        /**
         * Sets {@code dupguard.amqp.reject-without-key} or {@code dupguard.kafka.reject-without-key}: refuse deliveries without a key instead of running them undeduplicated.
         *
         * @param rejectWithoutKey the new value; checked when the beans that use it are built
         */
        public void setRejectWithoutKey(boolean rejectWithoutKey) {
            this.rejectWithoutKey = rejectWithoutKey;
        }

        /**
         * Add the dedup to Boot's default listener container factory ({@code dupguard.amqp.default-factory}, {@code dupguard.kafka.default-factory}).
         *
         * @return the value; default {@code false}
         */
        public boolean isDefaultFactory() {
            return defaultFactory;
        }

        /**
         * Sets {@code dupguard.amqp.default-factory} or {@code dupguard.kafka.default-factory}: add the dedup to Boot's default listener container factory.
         *
         * @param defaultFactory the new value; checked when the beans that use it are built
         */
        public void setDefaultFactory(boolean defaultFactory) {
            this.defaultFactory = defaultFactory;
        }

        /**
         * {@code dupguard.amqp.await-completion} or {@code dupguard.kafka.await-completion}: whether a
         * delivery waits for its completion to be stored before the listener returns.
         *
         * @return the value; default {@code true}
         */
        public boolean isAwaitCompletion() {
            return awaitCompletion;
        }

        /**
         * Sets {@code dupguard.amqp.await-completion} or {@code dupguard.kafka.await-completion}. False
         * sends a delivery's completion without waiting; the next delivery on the consumer's thread
         * takes its answer before its handler runs ({@code IdempotencyConfig.Builder.awaitCompletion}).
         *
         * @param awaitCompletion the new value
         */
        public void setAwaitCompletion(boolean awaitCompletion) {
            this.awaitCompletion = awaitCompletion;
        }

        /**
         * Where the records of the listener dedup commit ({@code dupguard.amqp.mode}, {@code dupguard.kafka.mode}).
         *
         * @return the value; default {@link RecordMode#AUTO}
         */
        public RecordMode getMode() {
            return mode;
        }

        /**
         * Sets {@code dupguard.amqp.mode} or {@code dupguard.kafka.mode}: where the records of the listener dedup commit.
         *
         * @param mode the new value; checked when the beans that use it are built
         */
        public void setMode(RecordMode mode) {
            this.mode = mode;
        }

        /**
         * Which table the listener dedup writes in the transactional and backstop modes ({@code
         * dupguard.amqp.layout}, {@code dupguard.kafka.layout}); the store mode always writes the
         * store's records.
         *
         * @return the value; default {@link ListenerLayout#PROCESSED}
         */
        public ListenerLayout getLayout() {
            return layout;
        }

        /**
         * Sets {@code dupguard.amqp.layout} or {@code dupguard.kafka.layout}: which table the listener
         * dedup writes in the transactional and backstop modes.
         *
         * @param layout the new value; checked when the beans that use it are built
         */
        public void setLayout(ListenerLayout layout) {
            this.layout = layout;
        }
    }

    /** RabbitMQ consumer dedup (Spring AMQP); the key is the message-id property unless key-header names a header. */
    public static class Amqp extends ListenerDedup {
        /** The defaults of {@code dupguard.amqp.*}. */
        public Amqp() {
            super("amqp", null);
        }
    }

    /** Kafka consumer dedup (Spring Kafka). */
    public static class Kafka extends ListenerDedup {
        /** What identifies a record: offset (topic-partition-offset), header or record-key. */
        private KafkaKey key = KafkaKey.OFFSET;

        /** The defaults of {@code dupguard.kafka.*}. */
        public Kafka() {
            super("kafka", "message-id");
        }

        /**
         * What identifies a record ({@code dupguard.kafka.key}).
         *
         * @return the value; default {@link KafkaKey#OFFSET}
         */
        public KafkaKey getKey() {
            return key;
        }

        /**
         * Sets {@code dupguard.kafka.key}: what identifies a record.
         *
         * @param key the new value; checked when the beans that use it are built
         */
        public void setKey(KafkaKey key) {
            this.key = key;
        }
    }

    /**
     * The {@code dupguard.amqp.*} properties.
     *
     * @return the group; never null, changed through its setters
     */
    public Amqp getAmqp() {
        return amqp;
    }

    /**
     * The backend ({@code dupguard.store}): jdbc, redis or memory.
     *
     * @return the configured backend, or null when not set (the starter then picks one as {@code
     *     dupguard.store} describes)
     */
    public StoreType getStore() {
        return store;
    }

    /**
     * Sets {@code dupguard.store}, the backend.
     *
     * @param store the backend, or null to let the starter pick one
     */
    public void setStore(StoreType store) {
        this.store = store;
    }

    /**
     * The {@code dupguard.idempotency.*} properties.
     *
     * @return the group; never null, changed through its setters
     */
    public Idempotency getIdempotency() {
        return idempotency;
    }

    /**
     * The {@code dupguard.jdbc.*} properties.
     *
     * @return the group; never null, changed through its setters
     */
    public Jdbc getJdbc() {
        return jdbc;
    }

    /**
     * The {@code dupguard.redis.*} properties.
     *
     * @return the group; never null, changed through its setters
     */
    public Redis getRedis() {
        return redis;
    }

    /**
     * The {@code dupguard.purge.*} properties.
     *
     * @return the group; never null, changed through its setters
     */
    public Purge getPurge() {
        return purge;
    }

    /**
     * The {@code dupguard.http.*} properties.
     *
     * @return the group; never null, changed through its setters
     */
    public Http getHttp() {
        return http;
    }

    /**
     * The {@code dupguard.aop.*} properties.
     *
     * @return the group; never null, changed through its setters
     */
    public Aop getAop() {
        return aop;
    }

    /**
     * The {@code dupguard.health.*} properties.
     *
     * @return the group; never null, changed through its setters
     */
    public Health getHealth() {
        return health;
    }

    /** Settings of every idempotent call (@Idempotent, the HTTP filter, the Idempotency bean). */
    public static class Idempotency {
        /** How long a claim stays in progress without renewal before another caller may take it over. */
        private Duration inFlightLease = IdempotencyConfig.DEFAULT_IN_FLIGHT_LEASE;
        /** How long a finished result is kept for replay. */
        private Duration retention = IdempotencyConfig.DEFAULT_RETENTION;
        /** Renew the in-flight lease while the work runs. */
        private boolean renewLease = true;
        /** What a duplicate does while the first call runs. */
        private InFlight inFlight = InFlight.REJECT;
        /** With in-flight=wait: how long a duplicate waits for the first call. */
        private Duration maxWait = Duration.ofSeconds(10);
        /** Completed results kept in local memory so replays skip the store (0 = off). */
        private int localCacheSize = 0;
        /**
         * With the jdbc store: when a Spring transaction is active on the application's DataSource,
         * claim and complete inside it, so a rollback also rolls back the claim.
         */
        private boolean joinTransaction = true;
        /**
         * Where the records of {@code @Idempotent} commit: auto (in a transaction with the method's
         * database writes when the store is jdbc, or redis backed by the database), transactional,
         * backstop or store.
         */
        private RecordMode mode = RecordMode.AUTO;
        /**
         * Which table a {@code void} {@code @Idempotent} method writes in the transactional and
         * backstop modes: records (the idempotency table) or processed (the processed-messages table).
         */
        private ListenerLayout voidLayout = ListenerLayout.RECORDS;

        /** The defaults of {@code dupguard.idempotency.*}. */
        public Idempotency() {}

        /**
         * Where the records of @Idempotent commit ({@code dupguard.idempotency.mode}).
         *
         * @return the value; default {@link RecordMode#AUTO}
         */
        public RecordMode getMode() {
            return mode;
        }

        /**
         * Sets {@code dupguard.idempotency.mode}: where the records of @Idempotent commit.
         *
         * @param mode the new value; checked when the beans that use it are built
         */
        public void setMode(RecordMode mode) {
            this.mode = mode;
        }

        /**
         * Which table a {@code void} {@code @Idempotent} method writes in the transactional and
         * backstop modes ({@code dupguard.idempotency.void-layout}): records, or processed (one row
         * of key, fingerprint and expiry; no in-flight state for callers outside the transaction).
         *
         * @return the value; default {@link ListenerLayout#RECORDS}
         */
        public ListenerLayout getVoidLayout() {
            return voidLayout;
        }

        /**
         * Sets {@code dupguard.idempotency.void-layout}: which table a {@code void} {@code @Idempotent}
         * method writes in the transactional and backstop modes.
         *
         * @param voidLayout the new value
         */
        public void setVoidLayout(ListenerLayout voidLayout) {
            this.voidLayout = voidLayout;
        }

        /**
         * How long a claim stays in progress without renewal before another caller may take it over
         * ({@code dupguard.idempotency.in-flight-lease}).
         *
         * @return the value; default {@link IdempotencyConfig#DEFAULT_IN_FLIGHT_LEASE}
         */
        public Duration getInFlightLease() {
            return inFlightLease;
        }

        /**
         * Sets {@code dupguard.idempotency.in-flight-lease}: how long a claim stays in progress
         * without renewal before another caller may take it over.
         *
         * @param inFlightLease the new value; checked when the beans that use it are built
         */
        public void setInFlightLease(Duration inFlightLease) {
            this.inFlightLease = inFlightLease;
        }

        /**
         * How long a finished result is kept for replay ({@code dupguard.idempotency.retention}).
         *
         * @return the value; default {@link IdempotencyConfig#DEFAULT_RETENTION}
         */
        public Duration getRetention() {
            return retention;
        }

        /**
         * Sets {@code dupguard.idempotency.retention}: how long a finished result is kept for
         * replay.
         *
         * @param retention the new value; checked when the beans that use it are built
         */
        public void setRetention(Duration retention) {
            this.retention = retention;
        }

        /**
         * Renew the in-flight lease while the work runs ({@code dupguard.idempotency.renew-lease}).
         *
         * @return true if on; default {@code true}
         */
        public boolean isRenewLease() {
            return renewLease;
        }

        /**
         * Sets {@code dupguard.idempotency.renew-lease}: renew the in-flight lease while the work
         * runs.
         *
         * @param renewLease the new value; checked when the beans that use it are built
         */
        public void setRenewLease(boolean renewLease) {
            this.renewLease = renewLease;
        }

        /**
         * What a duplicate does while the first call runs ({@code dupguard.idempotency.in-flight}).
         *
         * @return the value; default {@link InFlight#REJECT}
         */
        public InFlight getInFlight() {
            return inFlight;
        }

        /**
         * Sets {@code dupguard.idempotency.in-flight}: what a duplicate does while the first call
         * runs.
         *
         * @param inFlight the new value; checked when the beans that use it are built
         */
        public void setInFlight(InFlight inFlight) {
            this.inFlight = inFlight;
        }

        /**
         * With in-flight=wait: how long a duplicate waits for the first call ({@code
         * dupguard.idempotency.max-wait}).
         *
         * @return the value; default 10 s
         */
        public Duration getMaxWait() {
            return maxWait;
        }

        /**
         * Sets {@code dupguard.idempotency.max-wait}: with in-flight=wait: how long a duplicate
         * waits for the first call.
         *
         * @param maxWait the new value; checked when the beans that use it are built
         */
        public void setMaxWait(Duration maxWait) {
            this.maxWait = maxWait;
        }

        /**
         * Completed results kept in local memory so replays skip the store (0 = off) ({@code
         * dupguard.idempotency.local-cache-size}).
         *
         * @return the value; default {@code 0}
         */
        public int getLocalCacheSize() {
            return localCacheSize;
        }

        /**
         * Sets {@code dupguard.idempotency.local-cache-size}: completed results kept in local
         * memory so replays skip the store (0 = off).
         *
         * @param localCacheSize the new value; checked when the beans that use it are built
         */
        public void setLocalCacheSize(int localCacheSize) {
            this.localCacheSize = localCacheSize;
        }

        /**
         * With the jdbc store: when a Spring transaction is active on the application's DataSource,
         * claim and complete inside it, so a rollback also rolls back the claim. / ({@code
         * dupguard.idempotency.join-transaction}).
         *
         * @return true if on; default {@code true}
         */
        public boolean isJoinTransaction() {
            return joinTransaction;
        }

        /**
         * Sets {@code dupguard.idempotency.join-transaction}: with the jdbc store: when a Spring
         * transaction is active on the application's DataSource, claim and complete inside it, so a
         * rollback also rolls back the claim. /
         *
         * @param joinTransaction the new value; checked when the beans that use it are built
         */
        public void setJoinTransaction(boolean joinTransaction) {
            this.joinTransaction = joinTransaction;
        }
    }

    /** Tables of the jdbc store (created when missing unless create-schema is false). */
    public static class Jdbc {
        /** Create the tables when missing. */
        private boolean createSchema = true;
        /**
         * Name of the DataSource bean the stores use (the primary, with read/write routing that sends
         * read-only transactions to a replica); empty: the application's single DataSource.
         */
        private String dataSource;
        /** Table of idempotency records. */
        private String idempotencyTable = "dupguard_idempotency";
        /** Table of locks and their fencing counters. */
        private String lockTable = "dupguard_locks";
        /** Table of submission tokens. */
        private String tokensTable = "dupguard_tokens";
        /** Table of throttle windows. */
        private String throttleTable = "dupguard_throttle";
        /** Table of prepared submissions. */
        private String preparedTable = "dupguard_prepared";
        /** Table of processed messages (the listener dedups' processed layout). */
        private String processedTable = "dupguard_processed";
        /** Keep the first 8 bytes of each message's fingerprint in the processed-messages table. */
        private boolean processedFingerprints = true;

        /** The defaults of {@code dupguard.jdbc.*}. */
        public Jdbc() {}

        /**
         * Name of the DataSource bean the stores use ({@code dupguard.jdbc.data-source}).
         *
         * @return the bean name, or null for the application's single DataSource (the default)
         */
        public String getDataSource() {
            return dataSource;
        }

        /**
         * Sets {@code dupguard.jdbc.data-source}: name of the DataSource bean the stores use.
         *
         * @param dataSource the bean name; checked when the beans that use it are built
         */
        public void setDataSource(String dataSource) {
            this.dataSource = dataSource;
        }

        /**
         * Create the tables when missing ({@code dupguard.jdbc.create-schema}).
         *
         * @return true if on; default {@code true}
         */
        public boolean isCreateSchema() {
            return createSchema;
        }

        /**
         * Sets {@code dupguard.jdbc.create-schema}: create the tables when missing.
         *
         * @param createSchema the new value; checked when the beans that use it are built
         */
        public void setCreateSchema(boolean createSchema) {
            this.createSchema = createSchema;
        }

        /**
         * Table of idempotency records ({@code dupguard.jdbc.idempotency-table}).
         *
         * @return the value; default {@code "dupguard_idempotency"}
         */
        public String getIdempotencyTable() {
            return idempotencyTable;
        }

        /**
         * Sets {@code dupguard.jdbc.idempotency-table}: table of idempotency records.
         *
         * @param idempotencyTable the new value; checked when the beans that use it are built
         */
        public void setIdempotencyTable(String idempotencyTable) {
            this.idempotencyTable = idempotencyTable;
        }

        /**
         * Table of locks and their fencing counters ({@code dupguard.jdbc.lock-table}).
         *
         * @return the value; default {@code "dupguard_locks"}
         */
        public String getLockTable() {
            return lockTable;
        }

        /**
         * Sets {@code dupguard.jdbc.lock-table}: table of locks and their fencing counters.
         *
         * @param lockTable the new value; checked when the beans that use it are built
         */
        public void setLockTable(String lockTable) {
            this.lockTable = lockTable;
        }

        /**
         * Table of submission tokens ({@code dupguard.jdbc.tokens-table}).
         *
         * @return the value; default {@code "dupguard_tokens"}
         */
        public String getTokensTable() {
            return tokensTable;
        }

        /**
         * Sets {@code dupguard.jdbc.tokens-table}: table of submission tokens.
         *
         * @param tokensTable the new value; checked when the beans that use it are built
         */
        public void setTokensTable(String tokensTable) {
            this.tokensTable = tokensTable;
        }

        /**
         * Table of throttle windows ({@code dupguard.jdbc.throttle-table}).
         *
         * @return the value; default {@code "dupguard_throttle"}
         */
        public String getThrottleTable() {
            return throttleTable;
        }

        /**
         * Sets {@code dupguard.jdbc.throttle-table}: table of throttle windows.
         *
         * @param throttleTable the new value; checked when the beans that use it are built
         */
        public void setThrottleTable(String throttleTable) {
            this.throttleTable = throttleTable;
        }

        /**
         * Table of prepared submissions ({@code dupguard.jdbc.prepared-table}).
         *
         * @return the value; default {@code "dupguard_prepared"}
         */
        public String getPreparedTable() {
            return preparedTable;
        }

        /**
         * Sets {@code dupguard.jdbc.prepared-table}: table of prepared submissions.
         *
         * @param preparedTable the new value; checked when the beans that use it are built
         */
        public void setPreparedTable(String preparedTable) {
            this.preparedTable = preparedTable;
        }

        /**
         * Table of processed messages, the listener dedups' processed layout ({@code
         * dupguard.jdbc.processed-table}).
         *
         * @return the value; default {@code "dupguard_processed"}
         */
        public String getProcessedTable() {
            return processedTable;
        }

        /**
         * Sets {@code dupguard.jdbc.processed-table}: table of processed messages.
         *
         * @param processedTable the new value; checked when the beans that use it are built
         */
        public void setProcessedTable(String processedTable) {
            this.processedTable = processedTable;
        }

        /**
         * Keep the first 8 bytes of each message's fingerprint in the processed-messages table, so a
         * key reused with another body is refused ({@code dupguard.jdbc.processed-fingerprints}).
         * Without them such a message is skipped as a duplicate.
         *
         * @return the value; default {@code true}
         */
        public boolean isProcessedFingerprints() {
            return processedFingerprints;
        }

        /**
         * Sets {@code dupguard.jdbc.processed-fingerprints}: keep fingerprints in the processed-messages table.
         *
         * @param processedFingerprints the new value
         */
        public void setProcessedFingerprints(boolean processedFingerprints) {
            this.processedFingerprints = processedFingerprints;
        }
    }

    /** The redis store; the connection itself comes from spring.data.redis.*. */
    public static class Redis {
        /** Key prefix of idempotency records. */
        private String idempotencyKeyPrefix = "dupguard:idem:";
        /** Key prefix of locks. */
        private String lockKeyPrefix = "dupguard:lock:";
        /**
         * What to do with a server that may evict keys (maxmemory-policy other than noeviction):
         * refuse, warn or off.
         */
        private EvictionCheck evictionPolicyCheck = EvictionCheck.REFUSE;
        /**
         * Replicas that must acknowledge each claim, lock, token and throttle write (Redis WAIT)
         * before it counts; 0: off.
         */
        private int replicaAcks = 0;
        /** With replica-acks: how long a write waits for the acknowledgements. */
        private Duration replicaAcksTimeout = Duration.ofSeconds(1);

        /** The defaults of {@code dupguard.redis.*}. */
        public Redis() {}

        /**
         * Replicas that must acknowledge each write before it counts ({@code dupguard.redis.replica-acks}).
         *
         * @return the value; default 0 (off)
         */
        public int getReplicaAcks() {
            return replicaAcks;
        }

        /**
         * Sets {@code dupguard.redis.replica-acks}: replicas that must acknowledge each write before it
         * counts; 0: off.
         *
         * @param replicaAcks the new value; checked when the beans that use it are built
         */
        public void setReplicaAcks(int replicaAcks) {
            this.replicaAcks = replicaAcks;
        }

        /**
         * How long a write waits for the replicas' acknowledgements ({@code
         * dupguard.redis.replica-acks-timeout}).
         *
         * @return the value; default 1 s
         */
        public Duration getReplicaAcksTimeout() {
            return replicaAcksTimeout;
        }

        /**
         * Sets {@code dupguard.redis.replica-acks-timeout}: how long a write waits for the replicas'
         * acknowledgements.
         *
         * @param replicaAcksTimeout the new value; checked when the beans that use it are built
         */
        public void setReplicaAcksTimeout(Duration replicaAcksTimeout) {
            this.replicaAcksTimeout = replicaAcksTimeout;
        }

        /**
         * Key prefix of idempotency records ({@code dupguard.redis.idempotency-key-prefix}).
         *
         * @return the value; default {@code "dupguard:idem:"}
         */
        public String getIdempotencyKeyPrefix() {
            return idempotencyKeyPrefix;
        }

        /**
         * Sets {@code dupguard.redis.idempotency-key-prefix}: key prefix of idempotency records.
         *
         * @param idempotencyKeyPrefix the new value; checked when the beans that use it are built
         */
        public void setIdempotencyKeyPrefix(String idempotencyKeyPrefix) {
            this.idempotencyKeyPrefix = idempotencyKeyPrefix;
        }

        /**
         * Key prefix of locks ({@code dupguard.redis.lock-key-prefix}).
         *
         * @return the value; default {@code "dupguard:lock:"}
         */
        public String getLockKeyPrefix() {
            return lockKeyPrefix;
        }

        /**
         * Sets {@code dupguard.redis.lock-key-prefix}: key prefix of locks.
         *
         * @param lockKeyPrefix the new value; checked when the beans that use it are built
         */
        public void setLockKeyPrefix(String lockKeyPrefix) {
            this.lockKeyPrefix = lockKeyPrefix;
        }

        /**
         * What to do with a server that may evict keys (maxmemory-policy other than noeviction):
         * refuse, warn or off. / ({@code dupguard.redis.eviction-policy-check}).
         *
         * @return the value; default {@link EvictionCheck#REFUSE}
         */
        public EvictionCheck getEvictionPolicyCheck() {
            return evictionPolicyCheck;
        }

        /**
         * Sets {@code dupguard.redis.eviction-policy-check}: what to do with a server that may
         * evict keys (maxmemory-policy other than noeviction): refuse, warn or off. /
         *
         * @param evictionPolicyCheck the new value; checked when the beans that use it are built
         */
        public void setEvictionPolicyCheck(EvictionCheck evictionPolicyCheck) {
            this.evictionPolicyCheck = evictionPolicyCheck;
        }
    }

    /** Scheduled purge of expired rows of the jdbc store (Redis expires keys by itself). */
    public static class Purge {
        /** Run the purge. */
        private boolean enabled = true;
        /** Pause between purge runs. */
        private Duration interval = Duration.ofMinutes(5);
        /** Rows deleted per statement. */
        private int batchSize = 500;
        /** Most batches per table per run; 0 for no cap (the duty cycle paces the run instead). */
        private int maxBatchesPerRun = 0;
        /** Share of the time a run spends deleting; it pauses between batches for the rest. */
        private double dutyCycle = 0.1;
        /** How long an unbound prepared submission is kept. */
        private Duration preparedRetention = Duration.ofHours(12);

        /** The defaults of {@code dupguard.purge.*}. */
        public Purge() {}

        /**
         * Run the purge ({@code dupguard.purge.enabled}).
         *
         * @return true if on; default {@code true}
         */
        public boolean isEnabled() {
            return enabled;
        }

        /**
         * Sets {@code dupguard.purge.enabled}: run the purge.
         *
         * @param enabled the new value; checked when the beans that use it are built
         */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        /**
         * Pause between purge runs ({@code dupguard.purge.interval}).
         *
         * @return the value; default 5 min
         */
        public Duration getInterval() {
            return interval;
        }

        /**
         * Sets {@code dupguard.purge.interval}: pause between purge runs.
         *
         * @param interval the new value; checked when the beans that use it are built
         */
        public void setInterval(Duration interval) {
            this.interval = interval;
        }

        /**
         * Rows deleted per statement ({@code dupguard.purge.batch-size}).
         *
         * @return the value; default {@code 500}
         */
        public int getBatchSize() {
            return batchSize;
        }

        /**
         * Sets {@code dupguard.purge.batch-size}: rows deleted per statement.
         *
         * @param batchSize the new value; checked when the beans that use it are built
         */
        public void setBatchSize(int batchSize) {
            this.batchSize = batchSize;
        }

        /**
         * Most batches per table per run ({@code dupguard.purge.max-batches-per-run}); 0 for no cap,
         * the duty cycle pacing the run instead.
         *
         * @return the value; default {@code 0}
         */
        public int getMaxBatchesPerRun() {
            return maxBatchesPerRun;
        }

        /**
         * Sets {@code dupguard.purge.max-batches-per-run}: most batches per table per run, 0 for no
         * cap.
         *
         * @param maxBatchesPerRun the new value; checked when the beans that use it are built
         */
        public void setMaxBatchesPerRun(int maxBatchesPerRun) {
            this.maxBatchesPerRun = maxBatchesPerRun;
        }

        /**
         * Share of the time a purge run spends deleting ({@code dupguard.purge.duty-cycle}): after a
         * batch that took {@code t} it pauses {@code t × (1 − d) / d}, so a busy database gets a
         * longer rest.
         *
         * @return more than 0, at most 1; default {@code 0.1}
         */
        public double getDutyCycle() {
            return dutyCycle;
        }

        /**
         * Sets {@code dupguard.purge.duty-cycle}: share of the time a purge run spends deleting.
         *
         * @param dutyCycle the new value; checked when the beans that use it are built
         */
        public void setDutyCycle(double dutyCycle) {
            this.dutyCycle = dutyCycle;
        }

        /**
         * How long an unbound prepared submission is kept ({@code
         * dupguard.purge.prepared-retention}).
         *
         * @return the value; default 12 h
         */
        public Duration getPreparedRetention() {
            return preparedRetention;
        }

        /**
         * Sets {@code dupguard.purge.prepared-retention}: how long an unbound prepared submission
         * is kept.
         *
         * @param preparedRetention the new value; checked when the beans that use it are built
         */
        public void setPreparedRetention(Duration preparedRetention) {
            this.preparedRetention = preparedRetention;
        }
    }

    /** Order of the @Idempotent and @DistributedLock advice. */
    public static class Aop {
        /**
         * Order of the @DistributedLock advice; below the transaction advice's (lowest precedence),
         * so the lock is taken before a transaction of the same method begins and released after it
         * ends.
         */
        private int lockOrder = Integer.MAX_VALUE - 200;
        /**
         * Order of the @Idempotent advice; below the transaction advice's, so a record completes
         * after the method's own transaction committed. A transaction begun by a caller is joined.
         */
        private int idempotentOrder = Integer.MAX_VALUE - 100;

        /** The defaults of {@code dupguard.aop.*}. */
        public Aop() {}

        /**
         * Order of the @DistributedLock advice; below the transaction advice's (lowest precedence),
         * so the lock is taken before a transaction of the same method begins and released after it
         * ends. / ({@code dupguard.aop.lock-order}).
         *
         * @return the value; default {@code Integer.MAX_VALUE - 200}
         */
        public int getLockOrder() {
            return lockOrder;
        }

        /**
         * Sets {@code dupguard.aop.lock-order}: order of the @DistributedLock advice; below the
         * transaction advice's (lowest precedence), so the lock is taken before a transaction of
         * the same method begins and released after it ends. /
         *
         * @param lockOrder the new value; checked when the beans that use it are built
         */
        public void setLockOrder(int lockOrder) {
            this.lockOrder = lockOrder;
        }

        /**
         * Order of the @Idempotent advice; below the transaction advice's, so a record completes
         * after the method's own transaction committed. A transaction begun by a caller is joined.
         * / ({@code dupguard.aop.idempotent-order}).
         *
         * @return the value; default {@code Integer.MAX_VALUE - 100}
         */
        public int getIdempotentOrder() {
            return idempotentOrder;
        }

        /**
         * Sets {@code dupguard.aop.idempotent-order}: order of the @Idempotent advice; below the
         * transaction advice's, so a record completes after the method's own transaction committed.
         * A transaction begun by a caller is joined. /
         *
         * @param idempotentOrder the new value; checked when the beans that use it are built
         */
        public void setIdempotentOrder(int idempotentOrder) {
            this.idempotentOrder = idempotentOrder;
        }
    }

    /** Health indicators of the configured stores. */
    public static class Health {
        /** Longest a health round trip to a store may take before it reports DOWN. */
        private Duration timeout = Duration.ofSeconds(2);

        /** The defaults of {@code dupguard.health.*}. */
        public Health() {}

        /**
         * Longest a health round trip to a store may take before it reports DOWN ({@code
         * dupguard.health.timeout}).
         *
         * @return the value; default 2 s
         */
        public Duration getTimeout() {
            return timeout;
        }

        /**
         * Sets {@code dupguard.health.timeout}: longest a health round trip to a store may take
         * before it reports DOWN.
         *
         * @param timeout the new value; checked when the beans that use it are built
         */
        public void setTimeout(Duration timeout) {
            this.timeout = timeout;
        }
    }

    /** The HTTP Idempotency-Key filter (Spring MVC). */
    public static class Http {
        /** Install the filter. */
        private boolean enabled = true;
        /** Name of the request header carrying the key. */
        private String header = "Idempotency-Key";
        /** Scope of the records the filter writes; keys are further scoped by principal. */
        private String scope = "http";
        /**
         * Endpoints the filter covers; the first match wins. Default: POST and PATCH on every path,
         * key optional.
         */
        private List<Endpoint> endpoints = new ArrayList<>(List.of(new Endpoint()));
        /** Longest key accepted, in characters (at most 222). */
        private int maxKeyLength = 128;
        /** Largest request body read for the fingerprint; a larger request is refused with 413. */
        private long maxRequestBodySize = 1024 * 1024;
        /**
         * Largest response body stored for replay. A larger response is sent once; its key then
         * answers 409 (response-not-replayable), never a truncated replay.
         */
        private long maxStoredBodySize = 256 * 1024;
        /** Response headers stored and replayed besides Content-Type. */
        private List<String> replayedHeaders = new ArrayList<>(List.of("Location", "Content-Language", "ETag"));
        /**
         * Store and replay 4xx responses (true, as the draft suggests: the request was processed).
         * false releases the key after a 4xx so the client may retry.
         */
        private boolean replayClientErrors = true;
        /** What a request does while the first request with its key still runs. */
        private InFlight inFlight = InFlight.REJECT;
        /** With in-flight=wait: how long a duplicate request waits. */
        private Duration maxWait = Duration.ofSeconds(10);
        /** Base URI of the problem types (type = base + name, e.g. .../key-missing). */
        private String problemTypeBase = "https://dupguard.io/problems/";
        /**
         * Statuses that mean the request did not execute (unreadable or invalid body, unsupported media
         * type, refused): the response is sent but not stored and the key is released, so the corrected
         * retry runs.
         */
        private List<Integer> releaseStatuses =
                new ArrayList<>(List.of(400, 401, 403, 405, 406, 408, 411, 413, 414, 415, 422, 428, 429, 431));
        /**
         * Where the records commit: auto (with the request's database writes when the store is jdbc,
         * or redis backed by the database), transactional, backstop or store.
         */
        private RecordMode mode = RecordMode.AUTO;

        /** The defaults of {@code dupguard.http.*}. */
        public Http() {}

        /**
         * Where the records of the Idempotency-Key filter commit ({@code dupguard.http.mode}).
         *
         * @return the value; default {@link RecordMode#AUTO}
         */
        public RecordMode getMode() {
            return mode;
        }

        /**
         * Sets {@code dupguard.http.mode}: where the records of the Idempotency-Key filter commit.
         *
         * @param mode the new value; checked when the beans that use it are built
         */
        public void setMode(RecordMode mode) {
            this.mode = mode;
        }

        /**
         * Statuses that mean the request did not execute ({@code dupguard.http.release-statuses}):
         * sent, not stored, the key released.
         *
         * @return the value; default 400, 401, 403, 405, 406, 408, 411, 413, 414, 415, 422, 428,
         *     429, 431
         */
        public List<Integer> getReleaseStatuses() {
            return releaseStatuses;
        }

        /**
         * Sets {@code dupguard.http.release-statuses}: statuses that mean the request did not execute.
         *
         * @param releaseStatuses the new value; checked when the beans that use it are built
         */
        public void setReleaseStatuses(List<Integer> releaseStatuses) {
            this.releaseStatuses = releaseStatuses;
        }

        /**
         * Install the filter ({@code dupguard.http.enabled}).
         *
         * @return true if on; default {@code true}
         */
        public boolean isEnabled() {
            return enabled;
        }

        /**
         * Sets {@code dupguard.http.enabled}: install the filter.
         *
         * @param enabled the new value; checked when the beans that use it are built
         */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        /**
         * Name of the request header carrying the key ({@code dupguard.http.header}).
         *
         * @return the value; default {@code "Idempotency-Key"}
         */
        public String getHeader() {
            return header;
        }

        /**
         * Sets {@code dupguard.http.header}: name of the request header carrying the key.
         *
         * @param header the new value; checked when the beans that use it are built
         */
        public void setHeader(String header) {
            this.header = header;
        }

        /**
         * Scope of the records the filter writes; keys are further scoped by principal ({@code
         * dupguard.http.scope}).
         *
         * @return the value; default {@code "http"}
         */
        public String getScope() {
            return scope;
        }

        /**
         * Sets {@code dupguard.http.scope}: scope of the records the filter writes; keys are
         * further scoped by principal.
         *
         * @param scope the new value; checked when the beans that use it are built
         */
        public void setScope(String scope) {
            this.scope = scope;
        }

        /**
         * Endpoints the filter covers; the first match wins. Default: POST and PATCH on every path,
         * key optional. / ({@code dupguard.http.endpoints}).
         *
         * @return the value, a mutable list that binding fills; default one endpoint with the
         *     defaults of {@link Endpoint}
         */
        public List<Endpoint> getEndpoints() {
            return endpoints;
        }

        /**
         * Sets {@code dupguard.http.endpoints}: endpoints the filter covers; the first match wins.
         * Default: POST and PATCH on every path, key optional. /
         *
         * @param endpoints the new value; checked when the beans that use it are built
         */
        public void setEndpoints(List<Endpoint> endpoints) {
            this.endpoints = endpoints;
        }

        /**
         * Longest key accepted, in characters (at most 222) ({@code dupguard.http.max-key-length}).
         *
         * @return the value; default {@code 128}
         */
        public int getMaxKeyLength() {
            return maxKeyLength;
        }

        /**
         * Sets {@code dupguard.http.max-key-length}: longest key accepted, in characters (at most
         * 222).
         *
         * @param maxKeyLength the new value; checked when the beans that use it are built
         */
        public void setMaxKeyLength(int maxKeyLength) {
            this.maxKeyLength = maxKeyLength;
        }

        /**
         * Largest request body read for the fingerprint; a larger request is refused with 413
         * ({@code dupguard.http.max-request-body-size}).
         *
         * @return the value; default 1 MiB
         */
        public long getMaxRequestBodySize() {
            return maxRequestBodySize;
        }

        /**
         * Sets {@code dupguard.http.max-request-body-size}: largest request body read for the
         * fingerprint; a larger request is refused with 413.
         *
         * @param maxRequestBodySize the new value; checked when the beans that use it are built
         */
        public void setMaxRequestBodySize(long maxRequestBodySize) {
            this.maxRequestBodySize = maxRequestBodySize;
        }

        /**
         * Largest response body stored for replay. A larger response is sent once; its key then
         * answers 409 (response-not-replayable), never a truncated replay. / ({@code
         * dupguard.http.max-stored-body-size}).
         *
         * @return the value; default 256 KiB
         */
        public long getMaxStoredBodySize() {
            return maxStoredBodySize;
        }

        /**
         * Sets {@code dupguard.http.max-stored-body-size}: largest response body stored for replay.
         * A larger response is sent once; its key then answers 409 (response-not-replayable), never
         * a truncated replay. /
         *
         * @param maxStoredBodySize the new value; checked when the beans that use it are built
         */
        public void setMaxStoredBodySize(long maxStoredBodySize) {
            this.maxStoredBodySize = maxStoredBodySize;
        }

        /**
         * Response headers stored and replayed besides Content-Type ({@code
         * dupguard.http.replayed-headers}).
         *
         * @return the value, a mutable list that binding fills; default {@code [Location,
         *     Content-Language, ETag]}
         */
        public List<String> getReplayedHeaders() {
            return replayedHeaders;
        }

        /**
         * Sets {@code dupguard.http.replayed-headers}: response headers stored and replayed besides
         * Content-Type.
         *
         * @param replayedHeaders the new value; checked when the beans that use it are built
         */
        public void setReplayedHeaders(List<String> replayedHeaders) {
            this.replayedHeaders = replayedHeaders;
        }

        /**
         * Store and replay 4xx responses (true, as the draft suggests: the request was processed).
         * false releases the key after a 4xx so the client may retry. / ({@code
         * dupguard.http.replay-client-errors}).
         *
         * @return true if on; default {@code true}
         */
        public boolean isReplayClientErrors() {
            return replayClientErrors;
        }

        /**
         * Sets {@code dupguard.http.replay-client-errors}: store and replay 4xx responses (true, as
         * the draft suggests: the request was processed). false releases the key after a 4xx so the
         * client may retry. /
         *
         * @param replayClientErrors the new value; checked when the beans that use it are built
         */
        public void setReplayClientErrors(boolean replayClientErrors) {
            this.replayClientErrors = replayClientErrors;
        }

        /**
         * What a request does while the first request with its key still runs ({@code
         * dupguard.http.in-flight}).
         *
         * @return the value; default {@link InFlight#REJECT}
         */
        public InFlight getInFlight() {
            return inFlight;
        }

        /**
         * Sets {@code dupguard.http.in-flight}: what a request does while the first request with
         * its key still runs.
         *
         * @param inFlight the new value; checked when the beans that use it are built
         */
        public void setInFlight(InFlight inFlight) {
            this.inFlight = inFlight;
        }

        /**
         * With in-flight=wait: how long a duplicate request waits ({@code dupguard.http.max-wait}).
         *
         * @return the value; default 10 s
         */
        public Duration getMaxWait() {
            return maxWait;
        }

        /**
         * Sets {@code dupguard.http.max-wait}: with in-flight=wait: how long a duplicate request
         * waits.
         *
         * @param maxWait the new value; checked when the beans that use it are built
         */
        public void setMaxWait(Duration maxWait) {
            this.maxWait = maxWait;
        }

        /**
         * Base URI of the problem types (type = base + name, e.g. .../key-missing) ({@code
         * dupguard.http.problem-type-base}).
         *
         * @return the value; default {@code "https://dupguard.io/problems/"}
         */
        public String getProblemTypeBase() {
            return problemTypeBase;
        }

        /**
         * Sets {@code dupguard.http.problem-type-base}: base URI of the problem types (type = base
         * + name, e.g. .../key-missing).
         *
         * @param problemTypeBase the new value; checked when the beans that use it are built
         */
        public void setProblemTypeBase(String problemTypeBase) {
            this.problemTypeBase = problemTypeBase;
        }
    }

    /** One set of endpoints of the HTTP filter. */
    public static class Endpoint {
        /** Path patterns (Spring's PathPattern syntax), e.g. /payments/**. */
        private List<String> paths = new ArrayList<>(List.of("/**"));
        /** HTTP methods covered. */
        private List<String> methods = new ArrayList<>(List.of("POST", "PATCH"));
        /** Whether a request without the header is refused with 400 (otherwise it passes through). */
        private boolean required = false;

        /** The defaults of {@code dupguard.http.endpoints[n].*}. */
        public Endpoint() {}

        /**
         * Path patterns (Spring's PathPattern syntax), e.g. /payments/** ({@code
         * dupguard.http.endpoints[n].paths}).
         *
         * @return the value, a mutable list that binding fills; default {@code [/**]}
         */
        public List<String> getPaths() {
            return paths;
        }

        /**
         * Sets {@code dupguard.http.endpoints[n].paths}: path patterns (Spring's PathPattern
         * syntax), e.g. /payments/**.
         *
         * @param paths the new value; checked when the beans that use it are built
         */
        public void setPaths(List<String> paths) {
            this.paths = paths;
        }

        /**
         * HTTP methods covered ({@code dupguard.http.endpoints[n].methods}).
         *
         * @return the value, a mutable list that binding fills; default {@code [POST, PATCH]}
         */
        public List<String> getMethods() {
            return methods;
        }

        /**
         * Sets {@code dupguard.http.endpoints[n].methods}: hTTP methods covered.
         *
         * @param methods the new value; checked when the beans that use it are built
         */
        public void setMethods(List<String> methods) {
            this.methods = methods;
        }

        /**
         * Whether a request without the header is refused with 400 (otherwise it passes through)
         * ({@code dupguard.http.endpoints[n].required}).
         *
         * @return true if on; default {@code false}
         */
        public boolean isRequired() {
            return required;
        }

        /**
         * Sets {@code dupguard.http.endpoints[n].required}: whether a request without the header is
         * refused with 400 (otherwise it passes through).
         *
         * @param required the new value; checked when the beans that use it are built
         */
        public void setRequired(boolean required) {
            this.required = required;
        }
    }
}
