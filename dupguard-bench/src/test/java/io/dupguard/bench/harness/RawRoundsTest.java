package io.dupguard.bench.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The raw file of a page: where it lies, how the page links it, one quoted CSV line per round. */
class RawRoundsTest {

    @Test
    void theRawFileLiesInRawBesideThePage() {
        Path page = Path.of("docs/benchmarks-locks.md");
        assertThat(RawRounds.beside(page))
                .isEqualTo(Path.of("docs/raw/benchmarks-locks.csv").toAbsolutePath());
        assertThat(RawRounds.link(page)).isEqualTo("raw/benchmarks-locks.csv");
    }

    @Test
    void aRoundIsOneLineWithCommasQuotedAndUnmeasuredSharesEmpty() {
        String csv = new RawRounds("benchmarks-idempotency.md", "scripts/bench", Instant.EPOCH, "calls")
                .round("H2", "dupguard transactional, claim-first", "50% dup, racing", 2, 76_612.6, 0.284, "ok")
                .round("Redis", "dupguard", "unique", 1, 33_759, Double.NaN, "ok")
                .toString();

        assertThat(csv.lines().filter(l -> !l.startsWith("#")))
                .containsExactly(
                        RawRounds.COLUMNS,
                        "H2,\"dupguard transactional, claim-first\",\"50% dup, racing\",2,76613,28,ok",
                        "Redis,dupguard,unique,1,33759,,ok");
        assertThat(csv).startsWith("# Every measured round behind benchmarks-idempotency.md,");
    }
}
