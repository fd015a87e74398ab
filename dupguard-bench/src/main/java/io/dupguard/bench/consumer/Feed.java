package io.dupguard.bench.consumer;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.SplittableRandom;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;

/**
 * The records a consumer thread polls: one partition of a topic whose producer re-sends, built once
 * before any timing. A share of the records ({@code dupRate}) repeats the message id and value of a
 * record sent a little earlier on the same partition (one of its last {@value #RECENT} new ids), so
 * a batch meets copies within itself and of earlier batches. The id travels in the {@code
 * message-id} header, as the starter's {@code dupguard.kafka.key=header} reads it.
 */
final class Feed {
    static final String TOPIC = "credits";
    static final String KEY_HEADER = "message-id";
    /** How far back a re-sent record reaches: ids among the partition's last new ones. */
    static final int RECENT = 1000;

    final int partition;
    final List<ConsumerRecord<String, String>> records;
    /** {@code distinct[n]}: how many different ids the first {@code n} records hold. */
    private final int[] distinct;

    private Feed(int partition, List<ConsumerRecord<String, String>> records, int[] distinct) {
        this.partition = partition;
        this.records = records;
        this.distinct = distinct;
    }

    /** The partition's records; {@code seed} makes the same feed every time. */
    static Feed build(int partition, int size, double dupRate, long seed) {
        SplittableRandom random = new SplittableRandom(seed * 31 + partition);
        List<ConsumerRecord<String, String>> records = new ArrayList<>(size);
        int[] distinct = new int[size + 1];
        int[] recent = new int[RECENT];
        int fresh = 0;
        for (int offset = 0; offset < size; offset++) {
            int n;
            if (fresh > 0 && random.nextDouble() < dupRate) {
                n = recent[random.nextInt(Math.min(fresh, RECENT))];
                distinct[offset + 1] = distinct[offset];
            } else {
                n = fresh;
                recent[fresh % RECENT] = n;
                fresh++;
                distinct[offset + 1] = distinct[offset] + 1;
            }
            String id = id(partition, n);
            RecordHeaders headers = new RecordHeaders();
            headers.add(KEY_HEADER, id.getBytes(StandardCharsets.UTF_8));
            records.add(new ConsumerRecord<>(
                    TOPIC,
                    partition,
                    offset,
                    0L,
                    TimestampType.CREATE_TIME,
                    -1,
                    -1,
                    "account-" + (n % 997),
                    value(n),
                    headers,
                    java.util.Optional.empty()));
        }
        return new Feed(partition, List.copyOf(records), distinct);
    }

    /** The ids of the first {@code consumed} records that differ from each other. */
    int distinctIds(int consumed) {
        return distinct[consumed];
    }

    /** The message id of a record, from its header. */
    static String id(ConsumerRecord<String, String> record) {
        return new String(record.headers().lastHeader(KEY_HEADER).value(), StandardCharsets.UTF_8);
    }

    /** The effect row's primary key: unique per record, copies included. */
    static long seq(ConsumerRecord<String, String> record) {
        return record.partition() * 1_000_000_000L + record.offset();
    }

    private static String id(int partition, int n) {
        return "m-" + partition + "-" + n;
    }

    private static String value(int n) {
        return String.format(
                Locale.ROOT,
                "{\"type\":\"credit\",\"account\":\"account-%d\",\"amount\":%d.%02d,\"currency\":\"EUR\",\"ref\":\"%08x\"}",
                n % 997,
                n % 10_000,
                n % 100,
                n * 2_654_435_761L & 0xffffffffL);
    }

    /** The distinct ids of {@code records}, for checks. */
    static Set<String> ids(List<ConsumerRecord<String, String>> records) {
        Set<String> ids = new HashSet<>();
        for (ConsumerRecord<String, String> r : records) {
            ids.add(id(r));
        }
        return ids;
    }
}
