package io.dupguard.lab.workload.order;

/**
 * What the service tells the user.
 *
 * @param outcome paid, declined, or pending (the platform failed retryably; the retry job finishes
 *     the payment, and a later answer may complete this one)
 * @param chargeId the platform's charge id when paid, else 0
 */
record PayAnswer(Outcome outcome, long chargeId) {
    enum Outcome {
        PAID,
        DECLINED,
        PENDING
    }

    static PayAnswer paid(long chargeId) {
        return new PayAnswer(Outcome.PAID, chargeId);
    }

    static PayAnswer declined() {
        return new PayAnswer(Outcome.DECLINED, 0);
    }

    static PayAnswer pending() {
        return new PayAnswer(Outcome.PENDING, 0);
    }
}
