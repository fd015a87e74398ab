package io.dupguard.lab.workload.form;

import io.dupguard.lab.env.LabEnvironment;
import io.dupguard.lab.storm.Service;

/** One way to keep a submitted form from creating two posts; the form-submit workload runs each. */
interface FormStrategy extends AutoCloseable {

    /** What every strategy is built from. */
    record Context(LabEnvironment env, PostTable posts, String tablePrefix) {}

    /** What the server puts into the form when it renders it for {@code user}: a token, a pre-id or null. */
    default String render(String user) {
        return null;
    }

    /**
     * Handles one submit and returns the post id; throw {@link io.dupguard.lab.storm.Refused} to
     * tell the user no.
     *
     * @param service call {@link Service#pause()} where the real handler is slow
     */
    String submit(FormSubmit s, Service service) throws Exception;

    /** Lets go of what the strategy opened for its trial (a Redis connection). */
    @Override
    default void close() {}
}
