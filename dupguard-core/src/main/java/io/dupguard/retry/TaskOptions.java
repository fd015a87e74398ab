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

    /** {@link RetrySchedule#DEFAULT}, {@link RetryClassifier#DEFAULT}, not money-related. */
    public static TaskOptions ofDefaults() {
        return DEFAULTS;
    }

    public static Builder custom() {
        return new Builder();
    }

    public RetrySchedule schedule() {
        return schedule;
    }

    public RetryClassifier classifier() {
        return classifier;
    }

    /** Money-related types alert on their first failure as well as when blocked (SPEC R2). */
    public boolean moneyRelated() {
        return moneyRelated;
    }

    /** Builder; not thread-safe. */
    public static final class Builder {
        private RetrySchedule schedule = RetrySchedule.DEFAULT;
        private RetryClassifier classifier = RetryClassifier.DEFAULT;
        private boolean moneyRelated;

        private Builder() {}

        public Builder schedule(RetrySchedule schedule) {
            this.schedule = Objects.requireNonNull(schedule, "schedule");
            return this;
        }

        public Builder classifier(RetryClassifier classifier) {
            this.classifier = Objects.requireNonNull(classifier, "classifier");
            return this;
        }

        public Builder moneyRelated(boolean moneyRelated) {
            this.moneyRelated = moneyRelated;
            return this;
        }

        public TaskOptions build() {
            return new TaskOptions(this);
        }
    }
}
