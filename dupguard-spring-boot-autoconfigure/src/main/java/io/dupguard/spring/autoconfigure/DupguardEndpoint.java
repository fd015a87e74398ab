package io.dupguard.spring.autoconfigure;

import io.dupguard.idempotency.IdempotencyConfig;
import io.dupguard.idempotency.IdempotencyStore;
import io.dupguard.lock.LockProvider;
import io.dupguard.spring.DupguardActivity;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * Actuator endpoint {@code dupguard}: the configuration in effect, the locks this instance holds
 * (name, fencing token, held since) and the idempotency keys it is processing.
 */
@Endpoint(id = "dupguard")
public class DupguardEndpoint {
    private final DupguardProperties properties;
    private final ObjectProvider<IdempotencyStore> store;
    private final ObjectProvider<LockProvider> locks;
    private final ObjectProvider<IdempotencyConfig> config;
    private final DupguardActivity activity;

    /**
     * An endpoint reporting the given beans, each looked up when the endpoint is read.
     *
     * @param properties the {@code dupguard.*} properties; not null
     * @param store the idempotency store, if there is one
     * @param locks the lock provider, if there is one
     * @param config the idempotency configuration, if there is one
     * @param activity this instance's held locks and keys in progress; not null
     */
    public DupguardEndpoint(
            DupguardProperties properties,
            ObjectProvider<IdempotencyStore> store,
            ObjectProvider<LockProvider> locks,
            ObjectProvider<IdempotencyConfig> config,
            DupguardActivity activity) {
        this.properties = properties;
        this.store = store;
        this.locks = locks;
        this.config = config;
        this.activity = activity;
    }

    /**
     * Reads the endpoint ({@code GET /actuator/dupguard}).
     *
     * @return the configuration in effect, the held locks and the keys in progress, ready for JSON;
     *     never null
     */
    @ReadOperation
    public Map<String, Object> dupguard() {
        Map<String, Object> out = new LinkedHashMap<>();
        Map<String, Object> configuration = new LinkedHashMap<>();
        configuration.put("idempotencyStore", name(store.getIfAvailable()));
        configuration.put("lockProvider", name(locks.getIfAvailable()));
        IdempotencyConfig c = config.getIfAvailable();
        if (c != null) {
            configuration.put("inFlightLease", c.inFlightLease().toString());
            configuration.put("retention", c.retention().toString());
            configuration.put("inFlightPolicy", c.inFlightPolicy().toString());
            configuration.put("renewLease", c.renewLease());
            configuration.put("codec", c.codec().toString());
        }
        configuration.put("joinTransaction", properties.getIdempotency().isJoinTransaction());
        configuration.put(
                "purge",
                properties.getPurge().isEnabled()
                        ? properties.getPurge().getInterval().toString()
                        : "off");
        configuration.put(
                "http", properties.getHttp().isEnabled() ? properties.getHttp().getHeader() : "off");
        out.put("configuration", configuration);
        out.put("heldLocks", activity.heldLocks());
        out.put("inFlightKeys", activity.inFlightKeys());
        return out;
    }

    private static String name(Object bean) {
        return bean == null ? null : bean.getClass().getSimpleName();
    }
}
