package io.dupguard.token;

import io.dupguard.DupguardException;

/**
 * {@link SubmissionTokens#execute} refused a submit: its token is already spent, in use by a
 * concurrent submit (a double click), expired, unknown, issued to another subject or malformed.
 * The message does not say which, so it cannot be used to probe other users' tokens. The work did
 * not run.
 */
public class TokenRefusedException extends DupguardException {
    private static final long serialVersionUID = 1L;

    /** The message says the form was already submitted or is no longer valid. */
    public TokenRefusedException() {
        super("this form was already submitted or is no longer valid");
    }
}
