package io.dupguard.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The default storm on MariaDB: INSERT IGNORE, binary-collation keys and the MySQL dialect of the
 * stores, the guarded writes and the submission tools.
 */
class StormMariaDbIT {
    static final String MARIADB =
            System.getProperty("dupguard.mariadb.url", "jdbc:mariadb://127.0.0.1:3306/test?user=root");

    @TempDir
    Path dir;

    @Test
    void naiveStrategiesDuplicateAndDupguardStrategiesHoldOnMariaDb() throws Exception {
        Path json = dir.resolve("storm.json");
        LabCli.Result r = LabCli.run(
                "storm", "--duration", "700ms", "--clients", "24", "--jdbc-url", MARIADB, "--json", json.toString());

        assertThat(r.status()).as("stdout:%n%s%nstderr:%n%s", r.out(), r.err()).isZero();
        StormJson.assertNaiveFailAndDupguardHolds(StormJson.read(json), Expected.defaultWorkloads());
    }
}
