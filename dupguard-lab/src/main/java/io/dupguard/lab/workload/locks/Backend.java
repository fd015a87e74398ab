package io.dupguard.lab.workload.locks;

import io.dupguard.lab.env.LabEnvironment;
import io.dupguard.lab.storm.Need;
import io.dupguard.lab.workload.LabIdempotency;
import io.dupguard.lock.LockProvider;
import io.dupguard.memory.InMemoryLockProvider;
import java.util.Locale;
import java.util.Optional;

/** The lock backends compared (guarantee L7), each with the server it needs beyond the database. */
enum Backend {
    MEMORY("InMemoryLockProvider (one JVM)", null),
    JDBC("JdbcLockProvider, a lock row per name in the lab's database", null),
    REDIS("RedisLockProvider, SET NX PX + fence counter in one script", Need.REDIS),
    REDLOCK("RedlockProvider, majority of independent Redis servers", Need.REDLOCK),
    ZOOKEEPER("ZooKeeperLockProvider, ephemeral sequential nodes, czxid fence", Need.ZOOKEEPER);

    final String description;
    final Need need;

    Backend(String description, Need need) {
        this.description = description;
        this.need = need;
    }

    /** {@code jdbc}, as strategy names start. */
    String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    Optional<Need> need() {
        return Optional.ofNullable(need);
    }

    /** A fresh provider for one trial; {@code tablePrefix} names its lock table where it has one. */
    LockProvider open(LabEnvironment env, String tablePrefix) throws Exception {
        return switch (this) {
            case MEMORY -> new InMemoryLockProvider();
            case JDBC -> env.newLockProvider(tablePrefix + "locks");
            case REDIS ->
                env.redis()
                        .orElseThrow(() -> missing(Need.REDIS))
                        .newLockProvider(LabIdempotency.redisPrefix(env, LockBackendsWorkload.NAME));
            case REDLOCK ->
                env.redlock()
                        .orElseThrow(() -> missing(Need.REDLOCK))
                        .newLockProvider(LabIdempotency.redisPrefix(env, LockBackendsWorkload.NAME));
            case ZOOKEEPER ->
                env.zookeeper()
                        .orElseThrow(() -> missing(Need.ZOOKEEPER))
                        .newLockProvider("/dupguard/lab/" + env.runId() + "/" + env.nextTrial());
        };
    }

    private IllegalStateException missing(Need n) {
        return new IllegalStateException(id() + " needs " + n.option());
    }
}
