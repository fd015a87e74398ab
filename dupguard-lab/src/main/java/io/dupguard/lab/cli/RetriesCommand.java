package io.dupguard.lab.cli;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.StoreUnavailableException;
import io.dupguard.jdbc.JdbcRetryStore;
import io.dupguard.lab.env.UnreachableException;
import io.dupguard.retry.RetryStats;
import io.dupguard.retry.RetryTask;
import io.dupguard.retry.TaskPage;
import io.dupguard.retry.TaskState;
import io.dupguard.retry.UnknownTaskException;
import java.io.PrintWriter;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code dupguard retries list|unblock|cancel|stats --jdbc-url …}: the operator's view of a retry
 * log table (docs/retries.md). Exit status 0 when done, 1 when the task was not in a state the
 * operation applies to, 2 for bad options, an unknown task or a database that cannot be used.
 */
@Command(
        name = "retries",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = "Operate a retry log table: list blocked tasks, unblock, cancel, count.",
        subcommands = {
            RetriesCommand.ListTasks.class,
            RetriesCommand.Unblock.class,
            RetriesCommand.Cancel.class,
            RetriesCommand.Stats.class
        })
final class RetriesCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return DupguardCli.USAGE;
    }

    /** The options every subcommand takes, and the store they open. */
    abstract static class Base implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = "--jdbc-url", required = true, description = "JDBC URL of the database holding the table.")
        String jdbcUrl;

        @Option(
                names = "--table",
                defaultValue = JdbcRetryStore.DEFAULT_TABLE,
                description = "Retry task table (default: ${DEFAULT-VALUE}).")
        String table;

        @Override
        public Integer call() {
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl(jdbcUrl);
            config.setMaximumPoolSize(2);
            config.setInitializationFailTimeout(-1);
            config.setConnectionTimeout(5_000);
            try (HikariDataSource ds = new HikariDataSource(config)) {
                return run(
                        JdbcRetryStore.builder(ds).tableName(table).build(),
                        spec.commandLine().getOut());
            } catch (StoreUnavailableException | IllegalArgumentException e) {
                throw new UnreachableException("cannot use the retry table '" + table + "': " + e.getMessage(), e);
            } catch (UnknownTaskException e) {
                throw new UnreachableException(e.getMessage(), e);
            } catch (RuntimeException e) {
                if (e.getCause() instanceof java.sql.SQLException) {
                    throw new UnreachableException("cannot connect to --jdbc-url: " + e.getMessage(), e);
                }
                throw e;
            }
        }

        abstract int run(JdbcRetryStore store, PrintWriter out);

        int each(List<Long> ids, Function<Long, Boolean> op, String done, String refused, PrintWriter out) {
            if (ids.isEmpty()) {
                spec.commandLine().getErr().println("dupguard retries: give task ids (or --all-of-type)");
                return DupguardCli.USAGE;
            }
            int status = DupguardCli.OK;
            for (long id : ids) {
                if (op.apply(id)) {
                    out.println(done + " task " + id);
                } else {
                    out.println("task " + id + " is " + refused + "; nothing changed");
                    status = DupguardCli.INVARIANT_BROKEN;
                }
            }
            return status;
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "List tasks in a state (default BLOCKED).")
    static final class ListTasks extends Base {
        @Option(names = "--type", description = "Only this task type.")
        String type;

        @Option(
                names = "--state",
                defaultValue = "BLOCKED",
                description = "PENDING, RUNNING, SUCCEEDED, BLOCKED or CANCELLED (default: ${DEFAULT-VALUE}).")
        TaskState state;

        @Option(names = "--after", defaultValue = "0", description = "Start after this task id (paging).")
        long after;

        @Option(
                names = "--limit",
                defaultValue = "50",
                description = "At most this many, 1-1000 (default: ${DEFAULT-VALUE}).")
        int limit;

        @Override
        int run(JdbcRetryStore store, PrintWriter out) {
            List<RetryTask> tasks = store.list(state, type, new TaskPage(after, limit));
            Table.print(
                    out,
                    tasks,
                    List.of("id", "type", "state", "attempts", "due", "updated", "last error"),
                    List.<Function<RetryTask, String>>of(
                            t -> Long.toString(t.id()),
                            RetryTask::type,
                            t -> t.state().name(),
                            t -> Integer.toString(t.attempts()),
                            t -> time(t.dueAt()),
                            t -> time(t.updatedAt()),
                            t -> t.lastError() == null ? "" : clip(t.lastError(), 60)));
            out.println(tasks.size() + " task(s)"
                    + (tasks.size() == limit
                            ? "; next page: --after "
                                    + tasks.get(tasks.size() - 1).id()
                            : ""));
            return DupguardCli.OK;
        }
    }

    @Command(name = "unblock", mixinStandardHelpOptions = true, description = "Make BLOCKED tasks due again.")
    static final class Unblock extends Base {
        @Parameters(arity = "0..*", description = "Task ids.")
        List<Long> ids = List.of();

        @Option(names = "--all-of-type", description = "Unblock every BLOCKED task of this type.")
        String type;

        @Override
        int run(JdbcRetryStore store, PrintWriter out) {
            if (type != null) {
                out.println("unblocked " + store.unblockAll(type) + " task(s) of type " + type);
                return DupguardCli.OK;
            }
            return each(ids, store::unblock, "unblocked", "not BLOCKED", out);
        }
    }

    @Command(name = "cancel", mixinStandardHelpOptions = true, description = "Cancel PENDING or BLOCKED tasks.")
    static final class Cancel extends Base {
        @Parameters(arity = "1..*", description = "Task ids.")
        List<Long> ids;

        @Override
        int run(JdbcRetryStore store, PrintWriter out) {
            return each(ids, store::cancel, "cancelled", "RUNNING or already finished", out);
        }
    }

    @Command(name = "stats", mixinStandardHelpOptions = true, description = "Count tasks by type and state.")
    static final class Stats extends Base {
        @Override
        int run(JdbcRetryStore store, PrintWriter out) {
            RetryStats stats = store.stats();
            Table.print(
                    out,
                    stats.rows(),
                    List.of("type", "state", "tasks", "oldest due"),
                    List.<Function<RetryStats.Row, String>>of(
                            RetryStats.Row::type,
                            r -> r.state().name(),
                            r -> Long.toString(r.count()),
                            r -> time(r.oldestDue())));
            return DupguardCli.OK;
        }
    }

    static String time(Instant t) {
        return t == null ? "" : t.truncatedTo(ChronoUnit.SECONDS).toString();
    }

    static String clip(String s, int max) {
        String one = s.replaceAll("\\s+", " ");
        return one.length() <= max ? one : one.substring(0, max - 1) + "…";
    }

    /** A plain text table with columns padded to their widest cell. */
    static final class Table {
        private Table() {}

        static <T> void print(PrintWriter out, List<T> rows, List<String> head, List<Function<T, String>> cells) {
            int[] width = new int[head.size()];
            List<String[]> lines = new ArrayList<>();
            lines.add(head.toArray(String[]::new));
            for (T row : rows) {
                String[] line = new String[cells.size()];
                for (int i = 0; i < line.length; i++) {
                    line[i] = cells.get(i).apply(row);
                }
                lines.add(line);
            }
            for (String[] line : lines) {
                for (int i = 0; i < line.length; i++) {
                    width[i] = Math.max(width[i], line[i].length());
                }
            }
            for (String[] line : lines) {
                StringBuilder sb = new StringBuilder();
                for (int i = 0; i < line.length; i++) {
                    sb.append(i == 0 ? "" : "  ").append(String.format("%-" + width[i] + "s", line[i]));
                }
                out.println(sb.toString().stripTrailing());
            }
        }
    }
}
