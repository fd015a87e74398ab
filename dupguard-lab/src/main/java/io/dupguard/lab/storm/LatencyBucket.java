package io.dupguard.lab.storm;

/**
 * One bar of a latency distribution.
 *
 * @param upToMicros upper edge (inclusive) of the bucket; the lower edge is the previous bucket's
 * @param count acknowledged requests in it
 */
public record LatencyBucket(long upToMicros, long count) {}
