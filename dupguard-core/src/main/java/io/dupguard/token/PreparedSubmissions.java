package io.dupguard.token;

import io.dupguard.idempotency.IdempotentWork;
import io.dupguard.idempotency.Outcome;

/**
 * Pre-generated submission ids (guarantee T2): opening the form
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

    /**
     * Records a new pre-id for {@code subject} and returns it (URL-safe, unguessable).
     *
     * @param subject who the pre-id is for (a user or tenant id); a valid identifier, not null
     * @return the new pre-id, URL-safe; never null
     * @throws io.dupguard.InvalidIdentifierException for a bad subject
     */
    String prepare(String subject);

    /**
     * Binds the business id returned by {@code work} to {@code preId}, once: the first commit runs
     * {@code work} ({@link Outcome.Kind#FIRST}); later and concurrent commits return the id already
     * bound ({@link Outcome.Kind#REPLAYED}) without running it.
     *
     * @param <E> the checked exception {@code work} may throw
     * @param subject the subject the pre-id was prepared for; not null
     * @param preId the pre-id returned by {@link #prepare}; not null
     * @param work produces the business id, run at most once per pre-id; not null
     * @return the bound business id, and whether this call bound it ({@code FIRST}) or found it
     *     bound ({@code REPLAYED})
     * @throws UnknownSubmissionException if the pre-id does not exist, was purged, or belongs to
     *     another subject
     * @throws E what {@code work} threw (then nothing is bound and a later commit may run it again)
     * @throws io.dupguard.InvalidIdentifierException for a bad subject
     */
    <E extends Exception> Outcome<String> commit(String subject, String preId, IdempotentWork<String, E> work) throws E;
}
