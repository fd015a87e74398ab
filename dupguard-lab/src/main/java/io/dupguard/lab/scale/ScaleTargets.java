package io.dupguard.lab.scale;

import io.dupguard.lab.env.LabEnvironment;
import java.io.IOException;
import java.sql.SQLException;

/** Opens the stores the study measures. */
public final class ScaleTargets {
    private ScaleTargets() {}

    /**
     * The JDBC store on the database at {@code jdbcUrl}, on a fresh table; {@code surrogateKey}
     * (MariaDB/MySQL only, an experiment) clusters it by an {@code AUTO_INCREMENT} id instead.
     */
    public static ScaleTarget jdbc(String jdbcUrl, boolean surrogateKey) throws SQLException {
        LabEnvironment env = LabEnvironment.open(jdbcUrl, null);
        try {
            return new JdbcScaleTarget(env, surrogateKey);
        } catch (SQLException | RuntimeException e) {
            env.close();
            throw e;
        }
    }

    /** The Redis store on a {@code redis-server} the study starts for itself. */
    public static ScaleTarget redis() throws IOException {
        return new RedisScaleTarget();
    }
}
