package io.dupguard.lab.workload.form;

import io.dupguard.lab.storm.Request;

/**
 * One press of "submit" on a form the user filled in: a distinct logical submit, repeated only by
 * double clicks and browser retries.
 *
 * @param submitId the logical submit, for the checker only — the service never sees it as a key
 * @param user who submits
 * @param content what was typed, different for every submit
 * @param formToken what the server put in the form when rendering it: a one-time token, a pre-id,
 *     or null
 */
record FormSubmit(String submitId, String user, String content, String formToken) implements Request {
    @Override
    public String key() {
        return submitId;
    }
}
