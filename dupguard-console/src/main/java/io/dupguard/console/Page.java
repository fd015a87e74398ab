package io.dupguard.console;

import java.util.List;

/**
 * One page of a list read by the database: {@code next} is the cursor of the following page, or
 * null at the end; {@code note} says how far a bounded scan got (searches), or is null.
 *
 * @param rows the rows of this page
 * @param next the cursor of the next page, or null if there is none
 * @param note what a bounded scan covered, or null
 * @param <T> the row type
 */
public record Page<T>(List<T> rows, String next, String note) {}
