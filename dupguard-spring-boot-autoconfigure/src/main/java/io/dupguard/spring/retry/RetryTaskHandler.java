package io.dupguard.spring.retry;

import io.dupguard.retry.TaskHandler;
import io.dupguard.retry.TaskOptions;

/**
 * A {@link TaskHandler} bean with its task type: the starter registers every bean of this type with
 * the auto-configured {@link io.dupguard.retry.RetryLog} (one handler per type, guarantee R4). The retry
 * log is created only when at least one such bean exists, because workers without a handler for a
 * type would block that type's tasks.
 *
 * <pre>{@code
 * @Bean
 * RetryTaskHandler notifyOrder(Notifier notifier) {
 *     return RetryTaskHandler.of("order.notify", task -> notifier.send(task.payloadText(), task.taskKey()));
 * }
 * }</pre>
 */
public interface RetryTaskHandler extends TaskHandler {
    /**
     * The task type this handler performs; two beans with one type fail start-up.
     *
     * @return the task type; a valid identifier, never null
     */
    String type();

    /**
     * Schedule, classifier and alerting of the type; defaults to {@link TaskOptions#ofDefaults()}.
     *
     * @return the options; never null
     */
    default TaskOptions options() {
        return TaskOptions.ofDefaults();
    }

    /**
     * A handler of {@code type} with the default options.
     *
     * @param type the task type; a valid identifier, not null
     * @param handler the handler; not null, thread-safe
     * @return the bean to register
     */
    static RetryTaskHandler of(String type, TaskHandler handler) {
        return of(type, handler, TaskOptions.ofDefaults());
    }

    /**
     * A handler of {@code type} with {@code options}.
     *
     * @param type the task type; a valid identifier, not null
     * @param handler the handler; not null, thread-safe
     * @param options the schedule, classifier and alerting; not null
     * @return the bean to register
     */
    static RetryTaskHandler of(String type, TaskHandler handler, TaskOptions options) {
        java.util.Objects.requireNonNull(type, "type");
        java.util.Objects.requireNonNull(handler, "handler");
        java.util.Objects.requireNonNull(options, "options");
        return new RetryTaskHandler() {
            @Override
            public String type() {
                return type;
            }

            @Override
            public TaskOptions options() {
                return options;
            }

            @Override
            public void handle(io.dupguard.retry.TaskContext task) throws Exception {
                handler.handle(task);
            }

            @Override
            public String toString() {
                return "RetryTaskHandler[" + type + "]";
            }
        };
    }
}
