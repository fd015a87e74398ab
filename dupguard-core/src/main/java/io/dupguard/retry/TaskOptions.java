package io.dupguard.retry;

import java.util.Objects;

/**
 * Immutable settings of one task type: its schedule, classifier and whether it moves money. Start
 * from {@link #ofDefaults()} or {@link #custom()}.
 */
public final class TaskOptions {
    private static final TaskOptions DEFAULTS = custom().build();

    private final RetrySchedule schedule;
    private final RetryClassifier classifier;
    private final boolean moneyRelated;

    private TaskOptions(Builder b) {
        this.schedule = b.schedule;
        this.classifier = b.classifier;
        this.moneyRelated = b.moneyRelated;
    }

    /**
     * {@link RetrySchedule#DEFAULT}, {@link RetryClassifier#DEFAULT}, not money-related.
     *
     * @return the default options; immutable
     */
    public static TaskOptions ofDefaults() {
        return DEFAULTS;
    }

    /**
     * A builder starting from the defaults.
     *
     * @return a new builder, not thread-safe
     */
    public static Builder custom() {
        return new Builder();
    }

    /**
     * When failed runs are retried, and how many runs there are before the task is blocked.
     *
     * @return the schedule; never null
     */
    public RetrySchedule schedule() {
        return schedule;
    }

    /**
     * Which failures are retried and which block the task at once.
     *
     * @return the classifier; never null
     */
    public RetryClassifier classifier() {
        return classifier;
    }

    /**
     * Money-related types alert on their first failure as well as when blocked (guarantee R2).
     *
     * @return true if the type is money-related
     */
    public boolean moneyRelated() {
        return moneyRelated;
    }

    /** Builder; not thread-safe. */
    public static final class Builder {
        private RetrySchedule schedule = RetrySchedule.DEFAULT;
        private RetryClassifier classifier = RetryClassifier.DEFAULT;
        private boolean moneyRelated;

        private Builder() {}

        /**
         * When failed runs are retried; {@link RetrySchedule#DEFAULT} by default.
         *
         * @param schedule the schedule
         * @return this builder
         * @throws NullPointerException if {@code schedule} is null
         */
        public Builder schedule(RetrySchedule schedule) {
            this.schedule = Objects.requireNonNull(schedule, "schedule");
            return this;
        }

        /**
         * Which failures are retried; {@link RetryClassifier#DEFAULT} by default.
         *
         * @param classifier the classifier
         * @return this builder
         * @throws NullPointerException if {@code classifier} is null
         */
        public Builder classifier(RetryClassifier classifier) {
            this.classifier = Objects.requireNonNull(classifier, "classifier");
            return this;
        }

        /**
         * Alert on the first failure too, not only when blocked (guarantee R2); false by default.
         *
         * @param moneyRelated whether the type moves money
         * @return this builder
         */
        public Builder moneyRelated(boolean moneyRelated) {
            this.moneyRelated = moneyRelated;
            return this;
        }

        /**
         * Builds the options.
         *
         * @return immutable options
         */
        public TaskOptions build() {
            return new TaskOptions(this);
        }
    }
}
