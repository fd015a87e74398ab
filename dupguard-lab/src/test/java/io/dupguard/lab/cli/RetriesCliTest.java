package io.dupguard.lab.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.jdbc.JdbcRetryStore;
import io.dupguard.lab.LabCli;
import io.dupguard.retry.NewTask;
import io.dupguard.retry.TaskState;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code dupguard retries} against a retry table in an embedded H2 database shared with the test. */
class RetriesCliTest {
    private final String url = "jdbc:h2:mem:retries-cli-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
    private HikariDataSource ds;
    private JdbcRetryStore store;
    private long blocked1;
    private long blocked2;
    private long pending;

    @BeforeEach
    void createTasks() {
        ds = new HikariDataSource();
        ds.setJdbcUrl(url);
        store = JdbcRetryStore.builder(ds).createSchemaIfMissing(true).build();
        blocked1 = store.recordFailure(NewTask.of("payment.charge", "order-1", null), null, "card rejected")
                .id();
        blocked2 = store.recordFailure(NewTask.of("payment.charge", "order-2", null), null, "account closed")
                .id();
        pending = store.recordFailure(NewTask.of("mail", "welcome", null), Duration.ofHours(1), "smtp timeout")
                .id();
    }

    @AfterEach
    void closePool() {
        ds.close();
    }

    @Test
    void listShowsBlockedTasksAsATable() {
        LabCli.Result r = LabCli.run("retries", "list", "--jdbc-url", url);
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out())
                .contains("id", "type", "state", "attempts", "last error")
                .contains("payment.charge", "BLOCKED", "card rejected", "account closed")
                .doesNotContain("smtp timeout")
                .contains("2 task(s)");
        LabCli.Result page = LabCli.run("retries", "list", "--jdbc-url", url, "--limit", "1");
        assertThat(page.out()).contains("next page: --after " + blocked1);
    }

    @Test
    void unblockAndCancelChangeOnlyWhatTheyMay() {
        LabCli.Result unblock = LabCli.run("retries", "unblock", "--jdbc-url", url, Long.toString(blocked1));
        assertThat(unblock.status()).as(unblock.err()).isZero();
        assertThat(unblock.out()).contains("unblocked task " + blocked1);
        assertThat(store.find(blocked1).orElseThrow().state()).isEqualTo(TaskState.PENDING);

        LabCli.Result again = LabCli.run("retries", "unblock", "--jdbc-url", url, Long.toString(blocked1));
        assertThat(again.status()).isEqualTo(DupguardCli.INVARIANT_BROKEN);
        assertThat(again.out()).contains("is not BLOCKED; nothing changed");

        LabCli.Result cancel = LabCli.run("retries", "cancel", "--jdbc-url", url, Long.toString(pending));
        assertThat(cancel.status()).isZero();
        assertThat(store.find(pending).orElseThrow().state()).isEqualTo(TaskState.CANCELLED);

        LabCli.Result all = LabCli.run("retries", "unblock", "--jdbc-url", url, "--all-of-type", "payment.charge");
        assertThat(all.out()).contains("unblocked 1 task(s) of type payment.charge");
        assertThat(store.find(blocked2).orElseThrow().state()).isEqualTo(TaskState.PENDING);
    }

    @Test
    void statsCountsByTypeAndState() {
        LabCli.Result r = LabCli.run("retries", "stats", "--jdbc-url", url);
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out())
                .contains("type", "state", "tasks", "oldest due")
                .containsPattern("payment\\.charge\\s+BLOCKED\\s+2");
        assertThat(r.out()).containsPattern("mail\\s+PENDING\\s+1");
    }

    @Test
    void anUnknownTaskOrAnUnusableDatabaseEndsWithStatusTwoAndOneLine() {
        LabCli.Result unknown = LabCli.run("retries", "cancel", "--jdbc-url", url, "999999");
        assertThat(unknown.status()).isEqualTo(DupguardCli.USAGE);
        assertThat(unknown.err()).contains("no retry task with id 999999");

        LabCli.Result noTable = LabCli.run("retries", "stats", "--jdbc-url", url, "--table", "nothing_here");
        assertThat(noTable.status()).isEqualTo(DupguardCli.USAGE);
        assertThat(noTable.err()).contains("cannot use the retry table 'nothing_here'");

        LabCli.Result badTable = LabCli.run("retries", "stats", "--jdbc-url", url, "--table", "x;y");
        assertThat(badTable.status()).isEqualTo(DupguardCli.USAGE);
        assertThat(badTable.err()).contains("tableName must be a plain SQL identifier");

        LabCli.Result noIds = LabCli.run("retries", "cancel", "--jdbc-url", url);
        assertThat(noIds.status()).isEqualTo(DupguardCli.USAGE);
    }
}
