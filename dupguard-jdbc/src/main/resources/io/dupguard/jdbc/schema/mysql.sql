-- dupguard schema for MySQL 8 / MariaDB 10.6+. Table names start with the default prefix
-- "dupguard_"; createSchemaIfMissing() substitutes a configured table name.
-- The key is VARBINARY (its UTF-8 bytes): comparison is byte-exact, with no case folding and no
-- trailing-space padding, which even the *_bin collations of MariaDB apply (SPEC K6).
CREATE TABLE IF NOT EXISTS dupguard_idempotency (
    scope       VARCHAR(64)    CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    idem_key    VARBINARY(1020) NOT NULL,
    status      CHAR(1)        CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    fingerprint VARCHAR(64)    CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    owner       VARCHAR(64)    CHARACTER SET ascii COLLATE ascii_bin NULL,
    payload     LONGBLOB       NULL,
    created_at  DATETIME(6)    NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
    expires_at  DATETIME(6)    NOT NULL,
    PRIMARY KEY (scope, idem_key),
    KEY dupguard_idempotency_expires_at (expires_at)
) ENGINE = InnoDB;

-- Lock table of JdbcLockProvider. One row per lock name, never deleted: release clears the owner,
-- so the fence counter keeps increasing across holders and restarts (SPEC L5). The name is
-- VARBINARY (its UTF-8 bytes, at most 200 characters) for the same byte-exact comparison as idem_key.
CREATE TABLE IF NOT EXISTS dupguard_locks (
    name        VARBINARY(800) NOT NULL,
    owner       VARCHAR(64)    CHARACTER SET ascii COLLATE ascii_bin NULL,
    fence       BIGINT         NOT NULL,
    lease_until DATETIME(6)    NOT NULL,
    locked_at   DATETIME(6)    NOT NULL,
    PRIMARY KEY (name)
) ENGINE = InnoDB;
