package io.dupguard.lab.workload.credit;

import io.dupguard.lab.storm.Request;

/**
 * "Credit this account": a deposit identified by its credit id; client retries repeat it.
 *
 * @param creditId the key, unique per logical credit
 * @param account the account credited
 * @param amountCents what is added
 * @param fault what the simulated infrastructure does to this credit's attempts
 */
record Credit(String creditId, String account, long amountCents, Fault fault) implements Request {
    @Override
    public String key() {
        return creditId;
    }

    /** The simulation's script for a credit, not something the service can see. */
    enum Fault {
        /** Every attempt works. */
        NONE,
        /** The first attempt commits, then its answer is lost (a timeout after the write). */
        LOST_AFTER_WRITE,
        /** The first attempt fails before writing. */
        FAILS_BEFORE_WRITE,
        /** Every attempt fails before writing: only a person can fix it. */
        ALWAYS_FAILS;

        /** 92 % fine, 4 % lost answers, 3.5 % one failure, 0.5 % permanent failures. */
        static Fault draw(double u) {
            if (u < 0.04) {
                return LOST_AFTER_WRITE;
            } else if (u < 0.075) {
                return FAILS_BEFORE_WRITE;
            } else if (u < 0.08) {
                return ALWAYS_FAILS;
            }
            return NONE;
        }
    }
}
