package io.dupguard.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.jdbc.TestDatabases.Db;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Only a unique-key violation counts as "duplicate"; NOT NULL and FK violations do not (K5). */
class UniqueViolationIT {

    private static SQLException failure(Db db, String... statements) throws SQLException {
        try (HikariDataSource ds = TestDatabases.pool(db, 1);
                Connection c = ds.getConnection();
                Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS dupguard_uv_child");
            st.execute("DROP TABLE IF EXISTS dupguard_uv_parent");
            st.execute(
                    "CREATE TABLE dupguard_uv_parent (id INT PRIMARY KEY, code VARCHAR(10) NOT NULL, UNIQUE (code))");
            st.execute("CREATE TABLE dupguard_uv_child (id INT PRIMARY KEY, parent_id INT NOT NULL,"
                    + " FOREIGN KEY (parent_id) REFERENCES dupguard_uv_parent (id))");
            st.execute("INSERT INTO dupguard_uv_parent VALUES (1, 'a')");
            return catchThrowableOfType(SQLException.class, () -> {
                for (String s : statements) {
                    st.execute(s);
                }
            });
        }
    }

    @ParameterizedTest
    @EnumSource(Db.class)
    void recognisesDuplicatePrimaryAndUniqueKeys(Db db) throws SQLException {
        assertThat(UniqueViolation.test(failure(db, "INSERT INTO dupguard_uv_parent VALUES (1, 'b')")))
                .isTrue();
        assertThat(UniqueViolation.test(failure(db, "INSERT INTO dupguard_uv_parent VALUES (2, 'a')")))
                .isTrue();
    }

    @ParameterizedTest
    @EnumSource(Db.class)
    void notNullViolationIsNotADuplicate(Db db) throws SQLException {
        SQLException e = failure(db, "INSERT INTO dupguard_uv_parent VALUES (3, NULL)");
        assertThat((Throwable) e).isNotNull();
        assertThat(UniqueViolation.test(e)).isFalse();
    }

    @ParameterizedTest
    @EnumSource(Db.class)
    void foreignKeyViolationIsNotADuplicate(Db db) throws SQLException {
        SQLException e = failure(db, "INSERT INTO dupguard_uv_child VALUES (1, 99)");
        assertThat((Throwable) e).isNotNull();
        assertThat(UniqueViolation.test(e)).isFalse();
    }
}
