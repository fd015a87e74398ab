package io.dupguard.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The argument parser and the number formatting of the report; no database is touched. */
class BenchOptionsTest {

    @Test
    void defaults() {
        BenchOptions o = BenchOptions.parse();
        assertThat(o.threads()).isEqualTo(16);
        assertThat(o.rounds()).isEqualTo(4);
        assertThat(o.targets()).containsExactly(BenchOptions.Target.values());
        assertThat(o.out()).isEqualTo(Path.of("docs/benchmarks.md"));
        assertThat(o.pgUrl()).isEqualTo("jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
        assertThat(o.mariadbUrl()).isEqualTo("jdbc:mariadb://127.0.0.1:3306/test?user=root&useServerPrepStmts=true");
        assertThat(o.redisUrl()).isEqualTo("redis://127.0.0.1:6379");
        assertThat(o.help()).isFalse();
    }

    @Test
    void parsesBothForms() {
        BenchOptions o = BenchOptions.parse(
                "--threads", "4", "--warmup=500ms", "--duration", "2", "--targets", "redis,pg,memory", "--out", "-");
        assertThat(o.threads()).isEqualTo(4);
        assertThat(o.warmup()).isEqualTo(Duration.ofMillis(500));
        assertThat(o.duration()).isEqualTo(Duration.ofSeconds(2));
        // canonical order whatever the order given
        assertThat(o.targets())
                .containsExactly(BenchOptions.Target.MEMORY, BenchOptions.Target.POSTGRESQL, BenchOptions.Target.REDIS);
        assertThat(o.out()).isNull();
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
        assertThat(BenchOptions.duration("d", "1m", false)).isEqualTo(Duration.ofMinutes(1));
        assertThat(BenchOptions.duration("d", "1.5s", false)).isEqualTo(Duration.ofMillis(1500));
        assertThat(BenchOptions.duration("d", "0", true)).isZero();
        assertThatThrownBy(() -> BenchOptions.duration("duration", "0", false))
                .hasMessageContaining("--duration must be positive");
        assertThatThrownBy(() -> BenchOptions.duration("warmup", "soon", true))
                .hasMessageContaining("--warmup needs a duration");
    }

    @Test
    void badOptionsSayWhatIsWrong() {
        assertThatThrownBy(() -> BenchOptions.parse("--threds", "4"))
                .hasMessage("unknown option --threds (see --help)");
        assertThatThrownBy(() -> BenchOptions.parse("--threads")).hasMessage("--threads needs a value");
        assertThatThrownBy(() -> BenchOptions.parse("--threads", "x")).hasMessageContaining("whole number");
        assertThatThrownBy(() -> BenchOptions.parse("--threads", "0")).hasMessageContaining("at least 1");
        assertThatThrownBy(() -> BenchOptions.parse("--targets", "oracle")).hasMessageContaining("unknown target");
        assertThatThrownBy(() -> BenchOptions.parse("threads")).hasMessageContaining("unexpected argument");
        assertThatThrownBy(() -> BenchOptions.parse("--help=yes")).hasMessageContaining("takes no value");
    }

    @Test
    void formatting() {
        assertThat(Report.formatOps(1_234_567.4)).isEqualTo("1,234,567");
        assertThat(Report.formatMicros(0.44)).isEqualTo("0.4");
        assertThat(Report.formatMicros(1234.6)).isEqualTo("1,235");
        assertThat(Report.formatMicros(Double.NaN)).isEqualTo("–");
        assertThat(Report.formatRatio(0.8549)).isEqualTo("0.85×");
        assertThat(Report.formatPercent(0.496)).isEqualTo("50 %");
        assertThat(Audit.format(2, "statement")).isEqualTo("2 statements");
        assertThat(Audit.format(1, "commit")).isEqualTo("1 commit");
        assertThat(Audit.format(1.005, "checkout")).isEqualTo("1.01 checkouts");
        assertThat(Report.cell("a|b\nc")).isEqualTo("a\\|b c");
    }

    @Test
    void keepsHandWrittenNotes() {
        String old = "# old\n" + Report.NOTES_MARKER + "\nmy analysis\n";
        assertThat(Report.withKeptNotes("# new\n", old))
                .isEqualTo("# new\n\n" + Report.NOTES_MARKER + "\nmy analysis\n");
        assertThat(Report.withKeptNotes("# new\n", "# old\n")).isEqualTo("# new\n");
        assertThat(Report.withKeptNotes("# new\n", null)).isEqualTo("# new\n");
    }

    @Test
    void commandIsQuotedForTheShell() {
        assertThat(IdempotencyBench.command(new String[] {"--targets", "pg", "--pg-url", "jdbc:x?a=1&b=2"}))
                .isEqualTo("scripts/bench --targets pg --pg-url 'jdbc:x?a=1&b=2'");
    }
}
