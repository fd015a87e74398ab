package io.dupguard.lab.env;

/**
 * A server named on the command line cannot be used: unreachable, refusing, or not a supported
 * kind. The CLI prints the message as one line and exits with status 2.
 */
public final class UnreachableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public UnreachableException(String message, Throwable cause) {
        super(message.strip().replaceAll("\\s*\\R\\s*", " "), cause); // one line, whatever the driver said
    }

    /** The innermost message of a failure chain: usually the one that says what really went wrong. */
    static String rootMessage(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
        String top = t.getMessage();
        return top == null || top.equals(message) || root == t ? message : top + ": " + message;
    }
}
