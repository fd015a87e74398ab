package io.dupguard.redis;

import io.dupguard.StoreUnavailableException;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Reads {@code maxmemory} and {@code maxmemory-policy} of every master and applies the check. */
final class EvictionPolicies {
    private static final Logger LOG = LoggerFactory.getLogger(EvictionPolicies.class);

    private EvictionPolicies() {}

    static void check(StatefulConnection<String, byte[]> connection, EvictionPolicyCheck check) {
        if (check == EvictionPolicyCheck.OFF) {
            return;
        }
        if (connection instanceof StatefulRedisConnection<String, byte[]> standalone) {
            checkNode("redis", standalone, check);
        } else if (connection instanceof StatefulRedisClusterConnection<String, byte[]> cluster) {
            for (RedisClusterNode node : cluster.getPartitions()) {
                if (node.is(RedisClusterNode.NodeFlag.UPSTREAM)) {
                    checkNode(node.getUri().toString(), cluster.getConnection(node.getNodeId()), check);
                }
            }
        }
    }

    private static void checkNode(String where, StatefulRedisConnection<String, byte[]> c, EvictionPolicyCheck check) {
        Map<String, String> config;
        try {
            config = c.sync().configGet("maxmemory", "maxmemory-policy");
        } catch (RedisCommandExecutionException forbidden) {
            // Managed services often rename or forbid CONFIG: nothing to check against.
            LOG.warn(
                    "cannot read the eviction policy of {} ({}); make sure maxmemory-policy is noeviction,"
                            + " or evicted keys will let duplicates and second lock holders in",
                    where,
                    forbidden.getMessage());
            return;
        } catch (RedisException e) {
            throw new StoreUnavailableException(
                    RedisConnector.STORE, "cannot read the eviction policy: " + e.getMessage(), e);
        }
        String policy = config.getOrDefault("maxmemory-policy", "noeviction");
        String maxmemory = config.getOrDefault("maxmemory", "0");
        if ("noeviction".equals(policy) || "0".equals(maxmemory)) {
            return;
        }
        String problem = "Redis at " + where + " may evict dupguard's keys (maxmemory=" + maxmemory
                + ", maxmemory-policy=" + policy + "): every key has a TTL, so even volatile-* policies evict"
                + " them, and an evicted claim or lock lets a duplicate or a second holder in."
                + " Set maxmemory-policy noeviction (or maxmemory 0), or build the store with"
                + " evictionPolicyCheck(WARN) to accept the risk";
        if (check == EvictionPolicyCheck.REFUSE) {
            throw new StoreUnavailableException(RedisConnector.STORE, problem, null);
        }
        LOG.warn(problem);
    }
}
