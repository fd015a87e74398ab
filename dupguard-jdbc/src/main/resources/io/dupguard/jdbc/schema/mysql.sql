-- dupguard schema for MySQL 8 / MariaDB 10.6+. Table names start with the default prefix
-- "dupguard_"; createSchemaIfMissing() substitutes a configured table name.
-- The key is VARBINARY (its UTF-8 bytes): comparison is byte-exact, with no case folding and no
-- trailing-space padding, which even the *_bin collations of MariaDB apply (SPEC K6).
-- expires_at is exact (end of the lease, then of the retention) and not indexed; purge_after is the
-- purge's index, set by the claim to now + lease + typical retention and only ever raised, so
-- completion and renewal write no secondary index.
CREATE TABLE IF NOT EXISTS dupguard_idempotency (
    scope       VARCHAR(64)    CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    idem_key    VARBINARY(1020) NOT NULL,
    status      CHAR(1)        CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    fingerprint VARCHAR(64)    CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    owner       VARCHAR(64)    CHARACTER SET ascii COLLATE ascii_bin NULL,
    payload     LONGBLOB       NULL,
    expires_at  DATETIME(6)    NOT NULL,
    purge_after DATETIME(6)    NOT NULL,
    PRIMARY KEY (scope, idem_key),
    KEY dupguard_idempotency_purge_after (purge_after)
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

-- Submission tokens (JdbcSubmissionTokens): only the SHA-256 of a token is stored.
CREATE TABLE IF NOT EXISTS dupguard_tokens (
    scope       VARCHAR(64)  CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    token_hash  CHAR(64)     CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    subject     VARBINARY(512) NOT NULL,
    expires_at  DATETIME(6)  NOT NULL,
    PRIMARY KEY (scope, token_hash),
    KEY dupguard_tokens_expires_at (expires_at)
) ENGINE = InnoDB;

-- Submit throttle windows (JdbcSubmitThrottle).
CREATE TABLE IF NOT EXISTS dupguard_throttle (
    scope       VARCHAR(64)  CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    subject     VARBINARY(512) NOT NULL,
    window_end  DATETIME(6)  NOT NULL,
    PRIMARY KEY (scope, subject)
) ENGINE = InnoDB;

-- Prepared submissions (JdbcPreparedSubmissions): pre-id -> the one business id bound to it.
CREATE TABLE IF NOT EXISTS dupguard_prepared (
    pre_id      VARCHAR(32)  CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    subject     VARBINARY(512) NOT NULL,
    business_id VARCHAR(255) NULL,
    created_at  DATETIME(6)  NOT NULL,
    PRIMARY KEY (pre_id),
    KEY dupguard_prepared_created_at (created_at)
) ENGINE = InnoDB;

-- Guard rows of UnfinishedGuard: one per kind, locked FOR UPDATE to serialise check-then-insert.
CREATE TABLE IF NOT EXISTS dupguard_guards (
    guard_key   VARBINARY(1020) NOT NULL,
    PRIMARY KEY (guard_key)
) ENGINE = InnoDB;
