package io.dupguard.idempotency;

import java.util.concurrent.CompletableFuture;

/**
 * The answer of {@link IdempotencyStore#completeAsync}'s default, which completes synchronously: it
 * tells {@link Idempotency} that the store does not pipeline, so the call takes the answer at once
 * (as with completions awaited) instead of leaving it to the thread's next call. A store's own
 * future that happens to be done already is still left to the next call, so where a failure
 * surfaces does not depend on how fast the store answered.
 */
final class AnsweredCompletion extends CompletableFuture<Void> {
    private AnsweredCompletion() {}

    static AnsweredCompletion of(RuntimeException failure) {
        AnsweredCompletion answer = new AnsweredCompletion();
        if (failure == null) {
            answer.complete(null);
        } else {
            answer.completeExceptionally(failure);
        }
        return answer;
    }
}
