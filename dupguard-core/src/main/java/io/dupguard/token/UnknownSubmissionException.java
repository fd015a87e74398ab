package io.dupguard.token;

import io.dupguard.DupguardException;

/**
 * A commit named a pre-id that does not exist, was purged, or was prepared for another subject. The
 * message does not say which, so it cannot be used to probe other users' pre-ids.
 */
public class UnknownSubmissionException extends DupguardException {
    private static final long serialVersionUID = 1L;

    /** The message asks the user to open the form again; it does not say why the id is unknown. */
    public UnknownSubmissionException() {
        super("unknown or expired submission id; open the form again");
    }
}
