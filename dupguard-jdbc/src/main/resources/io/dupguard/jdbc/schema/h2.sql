-- dupguard schema for H2 2.x. Table names start with the default prefix "dupguard_";
-- createSchemaIfMissing() substitutes a configured table name. VARCHAR comparison is exact.
-- expires_at is exact and not indexed; purge_after, indexed, is what the purge reads (see postgresql.sql).
CREATE TABLE IF NOT EXISTS dupguard_idempotency (
    scope       VARCHAR(64)  NOT NULL,
    idem_key    VARCHAR(255) NOT NULL,
    status      CHAR(1)      NOT NULL,
    fingerprint VARCHAR(64)  NOT NULL,
    owner       VARCHAR(64),
    payload     VARBINARY(1000000000),
    expires_at  TIMESTAMP(6) WITH TIME ZONE NOT NULL,
    purge_after TIMESTAMP(6) WITH TIME ZONE NOT NULL,
    PRIMARY KEY (scope, idem_key)
);
CREATE INDEX IF NOT EXISTS dupguard_idempotency_purge_after ON dupguard_idempotency (purge_after);

-- Lock table of JdbcLockProvider. One row per lock name, never deleted: release clears the owner,
-- so the fence counter keeps increasing across holders and restarts (SPEC L5).
CREATE TABLE IF NOT EXISTS dupguard_locks (
    name        VARCHAR(200) NOT NULL,
    owner       VARCHAR(64),
    fence       BIGINT       NOT NULL,
    lease_until TIMESTAMP(6) WITH TIME ZONE NOT NULL,
    locked_at   TIMESTAMP(6) WITH TIME ZONE NOT NULL,
    PRIMARY KEY (name)
);

-- Submission tokens (JdbcSubmissionTokens): only the SHA-256 of a token is stored.
CREATE TABLE IF NOT EXISTS dupguard_tokens (
    scope       VARCHAR(64)  NOT NULL,
    token_hash  CHAR(64)     NOT NULL,
    subject     VARCHAR(128) NOT NULL,
    expires_at  TIMESTAMP(6) WITH TIME ZONE NOT NULL,
    PRIMARY KEY (scope, token_hash)
);
CREATE INDEX IF NOT EXISTS dupguard_tokens_expires_at ON dupguard_tokens (expires_at);

-- Submit throttle windows (JdbcSubmitThrottle).
CREATE TABLE IF NOT EXISTS dupguard_throttle (
    scope       VARCHAR(64)  NOT NULL,
    subject     VARCHAR(128) NOT NULL,
    window_end  TIMESTAMP(6) WITH TIME ZONE NOT NULL,
    PRIMARY KEY (scope, subject)
);

-- Prepared submissions (JdbcPreparedSubmissions): pre-id -> the one business id bound to it.
CREATE TABLE IF NOT EXISTS dupguard_prepared (
    pre_id      VARCHAR(32)  NOT NULL,
    subject     VARCHAR(128) NOT NULL,
    business_id VARCHAR(255),
    created_at  TIMESTAMP(6) WITH TIME ZONE NOT NULL,
    PRIMARY KEY (pre_id)
);
CREATE INDEX IF NOT EXISTS dupguard_prepared_created_at ON dupguard_prepared (created_at);

-- Guard rows of UnfinishedGuard: one per kind, locked FOR UPDATE to serialise check-then-insert.
CREATE TABLE IF NOT EXISTS dupguard_guards (
    guard_key   VARCHAR(255) NOT NULL,
    PRIMARY KEY (guard_key)
);
