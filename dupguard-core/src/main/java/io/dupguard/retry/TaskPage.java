package io.dupguard.retry;

import io.dupguard.internal.Checks;

/**
 * One page of a listing, by id: tasks with {@code id > afterId}, at most {@code limit} of them. The
 * next page starts after the last id returned, so paging stays cheap on a large table.
 *
 * @param afterId 0 for the first page
 * @param limit 1–{@value #MAX_LIMIT}
 */
public record TaskPage(long afterId, int limit) {
    /** Largest page. */
    public static final int MAX_LIMIT = 1000;

    /**
     * @param afterId 0 for the first page
     * @param limit 1–{@value #MAX_LIMIT}
     * @throws IllegalArgumentException if {@code afterId} is negative or {@code limit} is outside 1–{@value #MAX_LIMIT}
     */
    public TaskPage {
        if (afterId < 0) {
            throw new IllegalArgumentException("afterId must not be negative, was " + afterId);
        }
        Checks.atLeast(limit, 1, "limit");
        if (limit > MAX_LIMIT) {
            throw new IllegalArgumentException("limit must be at most " + MAX_LIMIT + ", was " + limit);
        }
    }

    /**
     * The first {@code limit} tasks.
     *
     * @param limit the most tasks to return, 1–{@value #MAX_LIMIT}
     * @return a page starting at the lowest id
     */
    public static TaskPage first(int limit) {
        return new TaskPage(0, limit);
    }
}
