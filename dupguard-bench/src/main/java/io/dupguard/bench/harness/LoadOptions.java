package io.dupguard.bench.harness;

import java.nio.file.Path;
import java.time.Duration;
import picocli.CommandLine.Mixin;

/**
 * The options class of a load benchmark extends this: the shared options ({@link CommonOptions})
 * and their accessors, once.
 */
public abstract class LoadOptions {
    @Mixin
    public CommonOptions common = new CommonOptions();

    public int threads() {
        return common.threads;
    }

    public Duration prewarm() {
        return common.prewarm;
    }

    public Duration warmup() {
        return common.warmup;
    }

    public Duration duration() {
        return common.duration;
    }

    public int rounds() {
        return common.rounds;
    }

    /** The report file, or null for none. */
    public Path out() {
        return common.out();
    }

    public String pgUrl() {
        return common.pgUrl;
    }

    public String mariadbUrl() {
        return common.mariadbUrl;
    }

    public String redisUrl() {
        return common.redisUrl;
    }

    public int poolSize() {
        return common.poolSize;
    }

    /** Whether a row of this name is to run. */
    public boolean runs(String rowName) {
        return common.runs(rowName);
    }
}
