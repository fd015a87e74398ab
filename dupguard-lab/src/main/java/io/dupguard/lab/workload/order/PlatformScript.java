package io.dupguard.lab.workload.order;

/**
 * What the simulated payment platform does with an order's first charge call. Every failure but a
 * decline is transient: later calls for the order succeed. A decline is final.
 */
enum PlatformScript {
    /** Charges and answers. */
    OK,
    /** Charges, then the answer is lost: the caller sees a timeout although the money moved. */
    TIMEOUT_AFTER_CHARGE,
    /** Times out before charging. */
    TIMEOUT_BEFORE_CHARGE,
    /** Answers "busy, try again" without charging. */
    BUSY,
    /** Declines (say, the card), on every call; nothing is charged. */
    DECLINED;

    /** 90 % fine, 3 % lost answers, 2 % timeouts, 3 % busy, 2 % declined. */
    static PlatformScript draw(double u) {
        if (u < 0.03) {
            return TIMEOUT_AFTER_CHARGE;
        } else if (u < 0.05) {
            return TIMEOUT_BEFORE_CHARGE;
        } else if (u < 0.08) {
            return BUSY;
        } else if (u < 0.10) {
            return DECLINED;
        }
        return OK;
    }
}
