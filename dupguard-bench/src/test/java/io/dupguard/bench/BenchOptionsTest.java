package io.dupguard.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dupguard.bench.harness.Markdown;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.ParameterException;

/** The idempotency bench's command line and its report's formatting; no database is touched. */
class BenchOptionsTest {

    @Test
    void defaults() {
        BenchOptions o = BenchOptions.parse();
        assertThat(o.threads()).isEqualTo(16);
        assertThat(o.rounds()).isEqualTo(4);
        assertThat(o.prewarm()).isEqualTo(Duration.ofSeconds(3));
        assertThat(o.warmup()).isEqualTo(Duration.ofSeconds(1));
        assertThat(o.duration()).isEqualTo(Duration.ofSeconds(3));
        assertThat(o.poolSize()).isEqualTo(20);
        assertThat(o.targets()).containsExactly(BenchOptions.Target.values());
        assertThat(o.out()).isEqualTo(Path.of("docs/benchmarks-idempotency.md"));
        assertThat(o.pgUrl()).isEqualTo("jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
        assertThat(o.mariadbUrl()).isEqualTo("jdbc:mariadb://127.0.0.1:3306/test?user=root&useServerPrepStmts=true");
        assertThat(o.redisUrl()).isEqualTo("redis://127.0.0.1:6379");
        assertThat(o.h2Url()).isEqualTo("jdbc:h2:mem:dupguard-bench;DB_CLOSE_DELAY=-1");
        assertThat(o.camelOnMariadb()).isTrue();
        assertThat(o.diagnostics()).isFalse();
    }

    @Test
    void parsesBothForms() {
        BenchOptions o = BenchOptions.parse(
                "--threads",
                "4",
                "--warmup=500ms",
                "--duration",
                "2",
                "--targets",
                "redis,pg,memory",
                "--out",
                "-",
                "--camel-mariadb",
                "false",
                "--diagnostics");
        assertThat(o.threads()).isEqualTo(4);
        assertThat(o.warmup()).isEqualTo(Duration.ofMillis(500));
        assertThat(o.duration()).isEqualTo(Duration.ofSeconds(2));
        // canonical order whatever the order given
        assertThat(o.targets())
                .containsExactly(BenchOptions.Target.MEMORY, BenchOptions.Target.POSTGRESQL, BenchOptions.Target.REDIS);
        assertThat(o.out()).isNull();
        assertThat(o.camelOnMariadb()).isFalse();
        assertThat(o.diagnostics()).isTrue();
    }

    @Test
    void rowFilter() {
        BenchOptions all = BenchOptions.parse();
        assertThat(all.runs("anything")).isTrue();
        BenchOptions some = BenchOptions.parse("--rows", "Camel, dupguard transactional");
        assertThat(some.runs("Camel JdbcMessageIdRepository")).isTrue();
        assertThat(some.runs("dupguard transactional")).isTrue();
        assertThat(some.runs("dupguard")).isFalse();
        assertThat(some.runs("hand-written")).isFalse();
    }

    @Test
    void durations() {
        assertThat(BenchOptions.parse("--duration", "1m").duration()).isEqualTo(Duration.ofMinutes(1));
        assertThat(BenchOptions.parse("--duration", "1.5s").duration()).isEqualTo(Duration.ofMillis(1500));
        assertThat(BenchOptions.parse("--duration", "PT2S").duration()).isEqualTo(Duration.ofSeconds(2));
        assertThat(BenchOptions.parse("--prewarm", "0").prewarm()).isZero();
        assertThatThrownBy(() -> BenchOptions.parse("--duration", "0"))
                .isInstanceOf(ParameterException.class)
                .hasMessageContaining("--duration")
                .hasMessageContaining("not a positive duration");
        assertThatThrownBy(() -> BenchOptions.parse("--warmup", "soon"))
                .hasMessageContaining("--warmup")
                .hasMessageContaining("500ms");
    }

    @Test
    void badOptionsSayWhatIsWrong() {
        assertThatThrownBy(() -> BenchOptions.parse("--threds", "4")).hasMessageContaining("--threds");
        assertThatThrownBy(() -> BenchOptions.parse("--threads")).hasMessageContaining("--threads");
        assertThatThrownBy(() -> BenchOptions.parse("--threads", "x"))
                .hasMessageContaining("--threads")
                .hasMessageContaining("whole number");
        assertThatThrownBy(() -> BenchOptions.parse("--threads", "0"))
                .hasMessageContaining("--threads")
                .hasMessageContaining("at least 1");
        assertThatThrownBy(() -> BenchOptions.parse("--targets", "oracle"))
                .hasMessageContaining("--targets")
                .hasMessageContaining("unknown target 'oracle'");
        assertThatThrownBy(() -> BenchOptions.parse("threads")).hasMessageContaining("threads");
        assertThatThrownBy(() -> BenchOptions.parse("--pg-url", " ")).hasMessageContaining("must not be empty");
    }

    @Test
    void formatting() {
        assertThat(Markdown.ops(1_234_567.4)).isEqualTo("1,234,567");
        assertThat(Markdown.micros(0.44)).isEqualTo("0.4");
        assertThat(Markdown.micros(12.34)).isEqualTo("12.3");
        assertThat(Markdown.micros(1234.6)).isEqualTo("1,235");
        assertThat(Markdown.micros(Double.NaN)).isEqualTo("—");
        assertThat(Markdown.ratio(0.8549)).isEqualTo("0.85×");
        assertThat(Markdown.percent(0.496)).isEqualTo("50 %");
        assertThat(Audit.format(2, "statement")).isEqualTo("2 statements");
        assertThat(Audit.format(1, "commit")).isEqualTo("1 commit");
        assertThat(Audit.format(1.005, "checkout")).isEqualTo("1.01 checkouts");
        assertThat(Markdown.cell("a|b\nc")).isEqualTo("a\\|b c");
        assertThat(new Markdown.Table("lr", "a", "b").row("x", 1).toString())
                .isEqualTo("| a | b |\n|---|---:|\n| x | 1 |\n");
    }

    @Test
    void keepsHandWrittenNotes() {
        String marker = Report.NOTES_MARKER;
        String old = "# old\n" + marker + "\nmy analysis\n";
        assertThat(Markdown.withKeptNotes("# new\n", old, marker)).isEqualTo("# new\n\n" + marker + "\nmy analysis\n");
        // a report that ends with the marker itself gets the old notes in its place
        assertThat(Markdown.withKeptNotes("# new\n" + marker + "\n", old, marker))
                .isEqualTo("# new\n\n" + marker + "\nmy analysis\n");
        assertThat(Markdown.withKeptNotes("# new\n", "# old\n", marker)).isEqualTo("# new\n");
        assertThat(Markdown.withKeptNotes("# new\n", null, marker)).isEqualTo("# new\n");
    }

    @Test
    void commandIsQuotedForTheShell() {
        assertThat(IdempotencyBench.command(new String[] {"--targets", "pg", "--pg-url", "jdbc:x?a=1&b=2"}))
                .isEqualTo("scripts/bench --targets pg --pg-url 'jdbc:x?a=1&b=2'");
    }
}
