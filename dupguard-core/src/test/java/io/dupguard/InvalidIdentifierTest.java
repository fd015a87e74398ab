package io.dupguard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.lock.LockOptions;
import io.dupguard.memory.InMemoryLockProvider;
import io.dupguard.retry.NewTask;
import io.dupguard.retry.RetryConfig;
import org.junit.jupiter.api.Test;

/** What a bad identifier throws is what the Javadoc promises: an {@link IllegalArgumentException}. */
class InvalidIdentifierTest {
    @Test
    void aBadIdentifierIsAnIllegalArgumentNotAStoreCondition() {
        assertThat(IllegalArgumentException.class).isAssignableFrom(InvalidIdentifierException.class);
        assertThat(DupguardException.class.isAssignableFrom(InvalidIdentifierException.class))
                .isFalse();
    }

    @Test
    void lockOptionsRejectABlankOrTooLongOwnerWithAnIllegalArgument() {
        assertThatThrownBy(() -> LockOptions.custom().owner(""))
                .isInstanceOf(IllegalArgumentException.class)
                .isInstanceOf(InvalidIdentifierException.class)
                .hasMessage("owner must not be blank");
        assertThatThrownBy(() -> LockOptions.custom().owner("o".repeat(129)))
                .isInstanceOf(InvalidIdentifierException.class)
                .hasMessage("owner must be at most 128 characters, was 129");
        assertThatThrownBy(() -> LockOptions.custom().owner(null)).isInstanceOf(InvalidIdentifierException.class);
        assertThat(LockOptions.custom().owner("o".repeat(128)).build()).isNotNull();
    }

    @Test
    void retryConfigRejectsABlankOrTooLongOwnerWithAnIllegalArgument() {
        assertThatThrownBy(() -> RetryConfig.custom().owner(""))
                .isInstanceOf(IllegalArgumentException.class)
                .isInstanceOf(InvalidIdentifierException.class)
                .hasMessage("owner must not be blank");
        assertThatThrownBy(() -> RetryConfig.custom().owner("o".repeat(65)))
                .isInstanceOf(InvalidIdentifierException.class)
                .hasMessage("owner must be at most 64 characters, was 65");
        assertThat(RetryConfig.custom().owner("o".repeat(64)).build().owner()).hasSize(64);
    }

    @Test
    void keysNamesAndTypesThrowTheSameIllegalArgument() {
        assertThatThrownBy(() -> IdempotencyKey.of("orders", " ")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> NewTask.of("", "x", null)).isInstanceOf(IllegalArgumentException.class);
        InMemoryLockProvider locks = new InMemoryLockProvider();
        assertThatThrownBy(() -> locks.tryAcquire("a\nb")).isInstanceOf(IllegalArgumentException.class);
    }
}
