package io.dupguard.bench.consumer;

import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * One way of consuming: what a batch listener does with the records of one poll.
 *
 * @param name the row's name in the report
 * @param description what one poll costs this row, for the report's legend
 * @param dedups whether the row deduplicates (the ceiling does not: every copy writes its effect)
 * @param onPoll handles the records of one poll: every new message's effect row is written once
 * @param beforeRun empties the row's own tables (processed messages, claims) before a run
 */
record ConsumerRow(String name, String description, boolean dedups, Poll onPoll, Reset beforeRun) {
    /** Handles one poll. */
    @FunctionalInterface
    interface Poll {
        void consume(List<ConsumerRecord<String, String>> records) throws Exception;
    }

    /** Prepares a run. */
    @FunctionalInterface
    interface Reset {
        void reset() throws Exception;
    }

    void consume(List<ConsumerRecord<String, String>> records) throws Exception {
        onPoll.consume(records);
    }

    void reset() throws Exception {
        beforeRun.reset();
    }
}
