package io.dupguard.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The storm on MariaDB: INSERT IGNORE, binary-collation keys and the MySQL dialect of the stores. */
class StormMariaDbIT {
    static final String MARIADB =
            System.getProperty("dupguard.mariadb.url", "jdbc:mariadb://127.0.0.1:3306/test?user=root");

    @TempDir
    Path dir;

    @Test
    void naiveStrategiesDuplicateAndDupguardStrategiesHoldOnMariaDb() throws Exception {
        Path json = dir.resolve("storm.json");
        LabCli.Result r = LabCli.run(
                "storm", "--duration", "1s", "--clients", "24", "--jdbc-url", MARIADB, "--json", json.toString());

        assertThat(r.status()).as("stdout:%n%s%nstderr:%n%s", r.out(), r.err()).isZero();
        Map<String, List<String>> expected = new LinkedHashMap<>();
        expected.put(
                "account-binding",
                List.of("select-then-insert", "unique-key-catch", "insert-ignore-reread", "lock", "idempotency"));
        expected.put(
                "payment",
                List.of("none", "select-then-insert", "idempotency-memory", "idempotency-jdbc", "idempotency-jdbc-tx"));
        StormJson.assertNaiveFailAndDupguardHolds(StormJson.read(json), expected);
    }
}
