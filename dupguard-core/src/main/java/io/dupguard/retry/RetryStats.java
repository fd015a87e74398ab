package io.dupguard.retry;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * Counts of tasks by type and state, and the oldest due time of pending work.
 *
 * @param rows one row per (type, state) present in the store, sorted by type then state
 */
public record RetryStats(List<Row> rows) {
    /**
     * @param rows one row per (type, state) present in the store, sorted by type then state; not
     *     null
     * @throws NullPointerException if {@code rows} is null or holds null
     */
    public RetryStats {
        rows = List.copyOf(rows);
    }

    /**
     * @param type the task type
     * @param state the state
     * @param count tasks of that type in that state
     * @param oldestDue for PENDING and RUNNING: the earliest due time (a RUNNING task's lease end);
     *     null otherwise
     */
    public record Row(String type, TaskState state, long count, Instant oldestDue) {
        /**
         * @param type the task type; not null
         * @param state the state; not null
         * @param count tasks of that type in that state
         * @param oldestDue for PENDING and RUNNING: the earliest due time (a RUNNING task's lease
         *     end); null otherwise
         * @throws NullPointerException if {@code type} or {@code state} is null
         */
        public Row {
            Objects.requireNonNull(type, "type");
            Objects.requireNonNull(state, "state");
        }
    }

    /**
     * Tasks in {@code state} across all types.
     *
     * @param state the state; not null
     * @return the number of tasks, 0 if none
     */
    public long count(TaskState state) {
        return rows.stream().filter(r -> r.state == state).mapToLong(Row::count).sum();
    }

    /**
     * Tasks of {@code type} in {@code state}.
     *
     * @param type the task type; not null
     * @param state the state; not null
     * @return the number of tasks, 0 if none
     */
    public long count(String type, TaskState state) {
        return rows.stream()
                .filter(r -> r.state == state && r.type.equals(type))
                .mapToLong(Row::count)
                .sum();
    }
}
