package io.dupguard.retry;

import java.util.Objects;

/**
 * A task a worker claimed: RUNNING under {@code owner} with a lease. Every later write of the
 * worker is guarded by {@code state = RUNNING AND owner = ? AND runs = ?}, so a worker whose lease
 * was taken over cannot change the task. For backends and the engine; handlers see {@link
 * TaskContext}.
 *
 * @param id the task's id
 * @param type the task type
 * @param taskKey the key passed downstream
 * @param payload the handler's input (not copied; never modified)
 * @param runs the store's run counter after this claim: the guard, never reset
 * @param attempt the attempt this run is, counted since the task was recorded or last unblocked
 * @param owner the claiming worker's id
 */
public record ClaimedTask(long id, String type, String taskKey, byte[] payload, int runs, int attempt, String owner) {
    /**
     * @param id the task's id
     * @param type the task type; not null
     * @param taskKey the key passed downstream; not null
     * @param payload the handler's input (not copied; never modified); not null
     * @param runs the store's run counter after this claim: the guard, never reset
     * @param attempt the attempt this run is, counted since the task was recorded or last unblocked
     * @param owner the claiming worker's id; not null
     * @throws NullPointerException if {@code type}, {@code taskKey}, {@code payload} or {@code
     *     owner} is null
     */
    public ClaimedTask {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(taskKey, "taskKey");
        Objects.requireNonNull(payload, "payload");
        Objects.requireNonNull(owner, "owner");
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ClaimedTask t && id == t.id && runs == t.runs && owner.equals(t.owner);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(id) * 31 + runs;
    }

    @Override
    public String toString() {
        return "ClaimedTask[id=" + id + ", type=" + type + ", attempt=" + attempt + ", runs=" + runs + ", owner="
                + owner + "]";
    }
}
