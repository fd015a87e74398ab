package io.dupguard.token;

import io.dupguard.idempotency.IdempotentWork;
import io.dupguard.idempotency.Outcome;

/**
 * Pre-generated submission ids (SPEC T2, seed 000's "blog double-save" fix): opening the form
 * records {@code (subject, preId)}; saving binds exactly one business id to the pre-id. A second
 * save of the same form — double click, retry after a timeout — gets the id bound by the first
 * instead of creating a second business row.
 *
 * <pre>{@code
 * String preId = prepared.prepare(userId);                       // render the editor with it
 * Outcome<String> post = prepared.commit(userId, preId, () -> blog.insert(draft));
 * post.value();      // the one post id, for the first save and every repeat
 * }</pre>
 *
 * <p>Unbound pre-ids older than a retention (default 12 h) are purged. Thread-safe.
 */
public interface PreparedSubmissions {

    /** Records a new pre-id for {@code subject} and returns it (URL-safe, unguessable). */
    String prepare(String subject);

    /**
     * Binds the business id returned by {@code work} to {@code preId}, once: the first commit runs
     * {@code work} ({@link Outcome.Kind#FIRST}); later and concurrent commits return the id already
     * bound ({@link Outcome.Kind#REPLAYED}) without running it.
     *
     * @throws UnknownSubmissionException if the pre-id does not exist, was purged, or belongs to
     *     another subject
     */
    <E extends Exception> Outcome<String> commit(String subject, String preId, IdempotentWork<String, E> work) throws E;
}
