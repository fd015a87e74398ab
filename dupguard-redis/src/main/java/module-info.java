/**
 * dupguard on Redis through Lettuce: idempotency store, lock provider, Redlock, submission tokens and
 * submit throttle, on standalone, Sentinel and Cluster.
 */
module io.dupguard.redis {
    requires transitive io.dupguard.core;
    requires transitive lettuce.core;
    requires org.slf4j;

    exports io.dupguard.redis;
}
