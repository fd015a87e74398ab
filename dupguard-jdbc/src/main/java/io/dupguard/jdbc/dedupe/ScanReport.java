package io.dupguard.jdbc.dedupe;

import java.time.Duration;
import java.util.List;

/**
 * What {@code scan} found. Read-only: producing it changes nothing.
 *
 * @param table the table
 * @param keyColumns the key columns
 * @param comparison how keys were compared, e.g. {@code ignore-case}
 * @param rowsScanned rows in the table
 * @param groups duplicate groups (keys held by more than one row)
 * @param rowsToDelete rows beyond the first of every group
 * @param largest the largest groups, largest first
 * @param sample a few groups with their rows in keep order (first kept)
 * @param memberColumns the columns of a sampled row's values, after its id
 * @param elapsed how long the scan took
 */
public record ScanReport(
        String table,
        List<String> keyColumns,
        String comparison,
        long rowsScanned,
        long groups,
        long rowsToDelete,
        List<DuplicateGroup> largest,
        List<DuplicateGroup> sample,
        List<String> memberColumns,
        Duration elapsed) {
    /**
     * @param table the table
     * @param keyColumns the key columns
     * @param comparison how keys were compared, e.g. {@code ignore-case}
     * @param rowsScanned rows in the table
     * @param groups duplicate groups (keys held by more than one row)
     * @param rowsToDelete rows beyond the first of every group
     * @param largest the largest groups, largest first
     * @param sample a few groups with their rows in keep order (first kept)
     * @param memberColumns the columns of a sampled row's values, after its id
     * @param elapsed how long the scan took
     * @throws NullPointerException if a list is null
     */
    public ScanReport {
        memberColumns = List.copyOf(memberColumns);
        keyColumns = List.copyOf(keyColumns);
        largest = List.copyOf(largest);
        sample = List.copyOf(sample);
    }

    /**
     * Rows scanned per second.
     *
     * @return the scan rate, rows per second
     */
    public double rowsPerSecond() {
        return rowsScanned / Math.max(1e-9, elapsed.toNanos() / 1e9);
    }
}
