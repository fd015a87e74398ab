package io.dupguard.console;

import io.dupguard.retry.TaskState;
import java.time.Instant;

/**
 * Which retry tasks to list. A state alone (optionally with a type and a time) is read through the
 * table's indexes, page by page; a task key, a dedup key without a type, or error text make it a
 * search, which scans the table newest first in bounded windows of ids.
 *
 * @param state the state; null means BLOCKED for a list and any state for a search
 * @param type the task type, or null for every type
 * @param taskKey the exact task key, or null
 * @param dedupKey the exact dedup key, or null
 * @param error text the last error contains, or null
 * @param since only tasks last changed at or after this time, or null
 * @param cursor where the page starts (from {@link Page#next()}), or null for the first page
 * @param limit the most rows, 1 to 500
 */
public record TaskFilter(
        TaskState state,
        String type,
        String taskKey,
        String dedupKey,
        String error,
        Instant since,
        String cursor,
        int limit) {
    /** Default rows per page. */
    public static final int DEFAULT_LIMIT = 50;

    static final int MAX_LIMIT = 500;

    /**
     * Checks and normalises: blank strings become null.
     *
     * @param state the state, or null
     * @param type the task type, or null
     * @param taskKey the exact task key, or null
     * @param dedupKey the exact dedup key, or null
     * @param error text the last error contains, or null
     * @param since only tasks last changed at or after this time, or null
     * @param cursor where the page starts, or null
     * @param limit the most rows, 1 to 500
     */
    public TaskFilter {
        type = blank(type);
        taskKey = blank(taskKey);
        dedupKey = blank(dedupKey);
        error = blank(error);
        cursor = blank(cursor);
        if (limit < 1 || limit > MAX_LIMIT) {
            throw new IllegalArgumentException("limit must be 1 to " + MAX_LIMIT + ", not " + limit);
        }
    }

    /**
     * The BLOCKED tasks of every type, first page.
     *
     * @return the default filter
     */
    public static TaskFilter blocked() {
        return new TaskFilter(TaskState.BLOCKED, null, null, null, null, null, null, DEFAULT_LIMIT);
    }

    /**
     * Whether this filter is a search (bounded scans) rather than an index range.
     *
     * @return true for a search by task key, dedup key without type, or error text
     */
    public boolean search() {
        return taskKey != null || error != null || (dedupKey != null && type == null);
    }

    /**
     * The state a list shows: the given one, or BLOCKED.
     *
     * @return the state; never null
     */
    public TaskState listState() {
        return state == null ? TaskState.BLOCKED : state;
    }

    /**
     * This filter at another page.
     *
     * @param next the cursor
     * @return a copy with {@code next} as its cursor
     */
    public TaskFilter at(String next) {
        return new TaskFilter(state, type, taskKey, dedupKey, error, since, next, limit);
    }

    /** The selection in words, e.g. {@code BLOCKED of type payment.charge with task key abc}. */
    String describe(TaskState shown) {
        return shown
                + (type != null ? " of type " + type : " of every type")
                + (taskKey != null ? " with task key " + taskKey : "")
                + (dedupKey != null ? " with dedup key " + dedupKey : "")
                + (error != null ? " whose last error contains '" + error + "'" : "")
                + (since != null ? " changed since " + since : "");
    }

    static String blank(String s) {
        return s == null || s.isBlank() ? null : s.strip();
    }
}
