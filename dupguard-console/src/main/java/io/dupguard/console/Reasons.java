package io.dupguard.console;

/** The checks every action makes before it touches a store: the operator role and a reason. */
final class Reasons {
    private Reasons() {}

    static String check(Actor actor, String reason) {
        if (!actor.operator()) {
            throw new ForbiddenException(actor.name() + " has the viewer role only; actions need the operator role");
        }
        String r = reason == null ? "" : reason.strip();
        if (r.isEmpty()) {
            throw new BadRequestException("every action needs a reason");
        }
        if (r.length() > AuditLog.MAX_REASON) {
            throw new BadRequestException("the reason is longer than " + AuditLog.MAX_REASON + " characters");
        }
        return r;
    }
}
