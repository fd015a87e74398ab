package io.dupguard.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.SlotHash;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The lock key layout: one hash tag per lock, one-to-one from names; no server needed. */
class LockKeysTest {
    private final LockKeys keys = new LockKeys("dupguard:lock:");

    @Test
    void everyKeyOfALockCarriesTheNameAsHashTag() {
        assertThat(keys.lock("order:7")).isEqualTo("dupguard:lock:{order:7}");
        assertThat(keys.fence("order:7")).isEqualTo("dupguard:lock:{order:7}:fence");
        assertThat(keys.waiters("order:7")).isEqualTo("dupguard:lock:{order:7}:waiters");
        assertThat(keys.channel("order:7")).isEqualTo("dupguard:lock:{order:7}:released");
        assertThat(SlotHash.getSlot(keys.lock("order:7"))).isEqualTo(SlotHash.getSlot("order:7"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"}", "}x", "}}", "\\", "\\}x", "{", "a{b}c", "a}", "{}", "x"})
    void allKeysOfANameShareOneSlotWhateverBracesItHas(String name) {
        int slot = SlotHash.getSlot(keys.lock(name));
        assertThat(SlotHash.getSlot(keys.fence(name))).isEqualTo(slot);
        assertThat(SlotHash.getSlot(keys.waiters(name))).isEqualTo(slot);
    }

    @Test
    void namesThatStartWithABraceOrTheEscapeAreEscapedOneToOne() {
        assertThat(keys.lock("}x")).isEqualTo("dupguard:lock:{\\}x}");
        assertThat(keys.lock("\\}x")).isEqualTo("dupguard:lock:{\\\\}x}");
        List<String> names = List.of("}x", "\\}x", "\\\\}x", "x", "\\x", "\\\\x", "}", "\\}", "a}:fence", "a");
        Set<String> all = new HashSet<>();
        for (String n : names) {
            assertThat(all.add(keys.lock(n))).as(n).isTrue();
            assertThat(all.add(keys.fence(n))).as(n).isTrue();
            assertThat(all.add(keys.waiters(n))).as(n).isTrue();
        }
    }

    @Test
    void theProviderRejectsPrefixesThatWouldBreakTheHashTag() {
        RedisClient client = RedisClient.create(RedisURI.create(RedisFixtures.DEAD_URL));
        try {
            assertThatThrownBy(() -> RedisLockProvider.builder(client).keyPrefix("locks{x}:"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("keyPrefix");
            try (RedisLockProvider locks =
                    RedisLockProvider.builder(client).keyPrefix("app:locks:").build()) {
                assertThat(locks.keyPrefix()).isEqualTo("app:locks:");
                assertThat(locks.lockKey("a")).isEqualTo("app:locks:{a}");
            }
        } finally {
            client.shutdown();
        }
    }
}
