package io.dupguard.lab.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.dupguard.lab.LabCli;
import org.junit.jupiter.api.Test;

/** {@code dupguard console}: a database it cannot reach is a clear message and exit status 2. */
class ConsoleCliTest {
    @Test
    void anUnreachableDatabaseIsAMessageNotAStackTrace() {
        LabCli.Result r = LabCli.run("console", "--jdbc-url", "jdbc:h2:tcp://127.0.0.1:1/nowhere", "--port", "0");
        assertThat(r.status()).isEqualTo(DupguardCli.USAGE);
        assertThat(r.err()).startsWith("dupguard: cannot").doesNotContain("\tat ");
    }

    @Test
    void theJdbcUrlIsRequired() {
        LabCli.Result r = LabCli.run("console");
        assertThat(r.status()).isEqualTo(DupguardCli.USAGE);
        assertThat(r.err()).contains("--jdbc-url");
    }
}
