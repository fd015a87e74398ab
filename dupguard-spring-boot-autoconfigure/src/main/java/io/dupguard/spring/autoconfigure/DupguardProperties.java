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
    private final Retry retry = new Retry();

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

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public boolean isAutoStartup() {
            return autoStartup;
        }

        public void setAutoStartup(boolean autoStartup) {
            this.autoStartup = autoStartup;
        }

        public String getTable() {
            return table;
        }

        public void setTable(String table) {
            this.table = table;
        }

        public int getWorkers() {
            return workers;
        }

        public void setWorkers(int workers) {
            this.workers = workers;
        }

        public int getPollers() {
            return pollers;
        }

        public void setPollers(int pollers) {
            this.pollers = pollers;
        }

        public int getBatchSize() {
            return batchSize;
        }

        public void setBatchSize(int batchSize) {
            this.batchSize = batchSize;
        }

        public Duration getPollInterval() {
            return pollInterval;
        }

        public void setPollInterval(Duration pollInterval) {
            this.pollInterval = pollInterval;
        }

        public Duration getLease() {
            return lease;
        }

        public void setLease(Duration lease) {
            this.lease = lease;
        }

        public Duration getSucceededRetention() {
            return succeededRetention;
        }

        public void setSucceededRetention(Duration succeededRetention) {
            this.succeededRetention = succeededRetention;
        }

        public Duration getShutdownTimeout() {
            return shutdownTimeout;
        }

        public void setShutdownTimeout(Duration shutdownTimeout) {
            this.shutdownTimeout = shutdownTimeout;
        }

        public boolean isListenForNotifications() {
            return listenForNotifications;
        }

        public void setListenForNotifications(boolean listenForNotifications) {
            this.listenForNotifications = listenForNotifications;
        }
    }

    public Amqp getAmqp() {
        return amqp;
    }

    /** RabbitMQ consumer dedup (Spring AMQP). */
    public static class Amqp {
        /** Scope of the records the consumer dedup writes. */
        private String scope = "amqp";
        /** Header holding the key; empty: the AMQP message-id property. */
        private String keyHeader;
        /** How long a duplicate waits for the first delivery to finish before it is requeued. */
        private Duration inFlightWait = Duration.ofSeconds(5);
        /** Reject (no requeue) messages without a key instead of running the listener. */
        private boolean rejectWithoutKey = false;
        /** Add the dedup to Boot's default rabbitListenerContainerFactory (otherwise opt in per factory). */
        private boolean defaultFactory = false;

        public String getScope() {
            return scope;
        }

        public void setScope(String scope) {
            this.scope = scope;
        }

        public String getKeyHeader() {
            return keyHeader;
        }

        public void setKeyHeader(String keyHeader) {
            this.keyHeader = keyHeader;
        }

        public Duration getInFlightWait() {
            return inFlightWait;
        }

        public void setInFlightWait(Duration inFlightWait) {
            this.inFlightWait = inFlightWait;
        }

        public boolean isRejectWithoutKey() {
            return rejectWithoutKey;
        }

        public void setRejectWithoutKey(boolean rejectWithoutKey) {
            this.rejectWithoutKey = rejectWithoutKey;
        }

        public boolean isDefaultFactory() {
            return defaultFactory;
        }

        public void setDefaultFactory(boolean defaultFactory) {
            this.defaultFactory = defaultFactory;
        }
    }

    public StoreType getStore() {
        return store;
    }

    public void setStore(StoreType store) {
        this.store = store;
    }

    public Idempotency getIdempotency() {
        return idempotency;
    }

    public Jdbc getJdbc() {
        return jdbc;
    }

    public Redis getRedis() {
        return redis;
    }

    public Purge getPurge() {
        return purge;
    }

    public Http getHttp() {
        return http;
    }

    public Aop getAop() {
        return aop;
    }

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

        public Duration getInFlightLease() {
            return inFlightLease;
        }

        public void setInFlightLease(Duration inFlightLease) {
            this.inFlightLease = inFlightLease;
        }

        public Duration getRetention() {
            return retention;
        }

        public void setRetention(Duration retention) {
            this.retention = retention;
        }

        public boolean isRenewLease() {
            return renewLease;
        }

        public void setRenewLease(boolean renewLease) {
            this.renewLease = renewLease;
        }

        public InFlight getInFlight() {
            return inFlight;
        }

        public void setInFlight(InFlight inFlight) {
            this.inFlight = inFlight;
        }

        public Duration getMaxWait() {
            return maxWait;
        }

        public void setMaxWait(Duration maxWait) {
            this.maxWait = maxWait;
        }

        public int getLocalCacheSize() {
            return localCacheSize;
        }

        public void setLocalCacheSize(int localCacheSize) {
            this.localCacheSize = localCacheSize;
        }

        public boolean isJoinTransaction() {
            return joinTransaction;
        }

        public void setJoinTransaction(boolean joinTransaction) {
            this.joinTransaction = joinTransaction;
        }
    }

    /** Tables of the jdbc store (created when missing unless create-schema is false). */
    public static class Jdbc {
        /** Create the tables when missing. */
        private boolean createSchema = true;
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

        public boolean isCreateSchema() {
            return createSchema;
        }

        public void setCreateSchema(boolean createSchema) {
            this.createSchema = createSchema;
        }

        public String getIdempotencyTable() {
            return idempotencyTable;
        }

        public void setIdempotencyTable(String idempotencyTable) {
            this.idempotencyTable = idempotencyTable;
        }

        public String getLockTable() {
            return lockTable;
        }

        public void setLockTable(String lockTable) {
            this.lockTable = lockTable;
        }

        public String getTokensTable() {
            return tokensTable;
        }

        public void setTokensTable(String tokensTable) {
            this.tokensTable = tokensTable;
        }

        public String getThrottleTable() {
            return throttleTable;
        }

        public void setThrottleTable(String throttleTable) {
            this.throttleTable = throttleTable;
        }

        public String getPreparedTable() {
            return preparedTable;
        }

        public void setPreparedTable(String preparedTable) {
            this.preparedTable = preparedTable;
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

        public String getIdempotencyKeyPrefix() {
            return idempotencyKeyPrefix;
        }

        public void setIdempotencyKeyPrefix(String idempotencyKeyPrefix) {
            this.idempotencyKeyPrefix = idempotencyKeyPrefix;
        }

        public String getLockKeyPrefix() {
            return lockKeyPrefix;
        }

        public void setLockKeyPrefix(String lockKeyPrefix) {
            this.lockKeyPrefix = lockKeyPrefix;
        }

        public EvictionCheck getEvictionPolicyCheck() {
            return evictionPolicyCheck;
        }

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
        /** Most batches per table per run, so one run stays short. */
        private int maxBatchesPerRun = 20;
        /** How long an unbound prepared submission is kept. */
        private Duration preparedRetention = Duration.ofHours(12);

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public Duration getInterval() {
            return interval;
        }

        public void setInterval(Duration interval) {
            this.interval = interval;
        }

        public int getBatchSize() {
            return batchSize;
        }

        public void setBatchSize(int batchSize) {
            this.batchSize = batchSize;
        }

        public int getMaxBatchesPerRun() {
            return maxBatchesPerRun;
        }

        public void setMaxBatchesPerRun(int maxBatchesPerRun) {
            this.maxBatchesPerRun = maxBatchesPerRun;
        }

        public Duration getPreparedRetention() {
            return preparedRetention;
        }

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

        public int getLockOrder() {
            return lockOrder;
        }

        public void setLockOrder(int lockOrder) {
            this.lockOrder = lockOrder;
        }

        public int getIdempotentOrder() {
            return idempotentOrder;
        }

        public void setIdempotentOrder(int idempotentOrder) {
            this.idempotentOrder = idempotentOrder;
        }
    }

    /** Health indicators of the configured stores. */
    public static class Health {
        /** Longest a health round trip to a store may take before it reports DOWN. */
        private Duration timeout = Duration.ofSeconds(2);

        public Duration getTimeout() {
            return timeout;
        }

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

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public String getHeader() {
            return header;
        }

        public void setHeader(String header) {
            this.header = header;
        }

        public String getScope() {
            return scope;
        }

        public void setScope(String scope) {
            this.scope = scope;
        }

        public List<Endpoint> getEndpoints() {
            return endpoints;
        }

        public void setEndpoints(List<Endpoint> endpoints) {
            this.endpoints = endpoints;
        }

        public int getMaxKeyLength() {
            return maxKeyLength;
        }

        public void setMaxKeyLength(int maxKeyLength) {
            this.maxKeyLength = maxKeyLength;
        }

        public long getMaxRequestBodySize() {
            return maxRequestBodySize;
        }

        public void setMaxRequestBodySize(long maxRequestBodySize) {
            this.maxRequestBodySize = maxRequestBodySize;
        }

        public long getMaxStoredBodySize() {
            return maxStoredBodySize;
        }

        public void setMaxStoredBodySize(long maxStoredBodySize) {
            this.maxStoredBodySize = maxStoredBodySize;
        }

        public List<String> getReplayedHeaders() {
            return replayedHeaders;
        }

        public void setReplayedHeaders(List<String> replayedHeaders) {
            this.replayedHeaders = replayedHeaders;
        }

        public boolean isReplayClientErrors() {
            return replayClientErrors;
        }

        public void setReplayClientErrors(boolean replayClientErrors) {
            this.replayClientErrors = replayClientErrors;
        }

        public InFlight getInFlight() {
            return inFlight;
        }

        public void setInFlight(InFlight inFlight) {
            this.inFlight = inFlight;
        }

        public Duration getMaxWait() {
            return maxWait;
        }

        public void setMaxWait(Duration maxWait) {
            this.maxWait = maxWait;
        }

        public String getProblemTypeBase() {
            return problemTypeBase;
        }

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

        public List<String> getPaths() {
            return paths;
        }

        public void setPaths(List<String> paths) {
            this.paths = paths;
        }

        public List<String> getMethods() {
            return methods;
        }

        public void setMethods(List<String> methods) {
            this.methods = methods;
        }

        public boolean isRequired() {
            return required;
        }

        public void setRequired(boolean required) {
            this.required = required;
        }
    }
}
