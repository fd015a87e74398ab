package io.dupguard.lab.storm;

/**
 * A strategy's own "no" to an attempt (say, a duplicate it discarded). The driver counts it as
 * refused, like dupguard's payload-mismatch and in-flight rejections, not as an error.
 */
public final class Refused extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public Refused(String message) {
        super(message, null, false, false);
    }
}
