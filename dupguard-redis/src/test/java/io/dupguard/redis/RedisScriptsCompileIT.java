package io.dupguard.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every Lua script of the idempotency store and the lock provider compiles on a real Redis, and the
 * SHA-1 computed here is the server's: a script that does not compile would otherwise show only as
 * a store failure at its first use (a completion retried while its lease holds).
 */
class RedisScriptsCompileIT {
    @Test
    void everyScriptLoadsUnderTheDigestComputedHere() throws Exception {
        List<RedisScript> scripts = new ArrayList<>();
        for (Class<?> holder : List.of(IdempotencyScripts.class, LockScripts.class)) {
            for (Field f : holder.getDeclaredFields()) {
                if (Modifier.isStatic(f.getModifiers()) && f.getType() == RedisScript.class) {
                    f.setAccessible(true);
                    scripts.add((RedisScript) f.get(null));
                }
            }
        }
        assertThat(scripts).hasSizeGreaterThanOrEqualTo(11);

        RedisClient client = RedisFixtures.standaloneClient();
        try (StatefulRedisConnection<String, String> c = client.connect()) {
            for (RedisScript s : scripts) {
                assertThat(c.sync().scriptLoad(s.source())).as(s.name()).isEqualTo(s.sha1());
            }
        } finally {
            client.shutdown();
        }
    }
}
