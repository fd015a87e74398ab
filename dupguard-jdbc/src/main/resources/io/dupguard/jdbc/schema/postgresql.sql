-- dupguard schema for PostgreSQL. Table names start with the default prefix "dupguard_";
-- createSchemaIfMissing() substitutes a configured table name.
-- Keys use the "C" collation: byte-exact comparison, so 'DB00x' and 'Db00X' never collide (SPEC K6).
-- expires_at is exact (end of the lease, then of the retention) and not indexed; purge_after is the
-- purge's index, set by the claim to now + lease + typical retention and only ever raised. So
-- completion and renewal change no indexed column: HOT updates, for which fillfactor leaves room
-- on each page (a completion adds the result to the row).
CREATE TABLE IF NOT EXISTS dupguard_idempotency (
    scope       VARCHAR(64)  COLLATE "C" NOT NULL,
    idem_key    VARCHAR(255) COLLATE "C" NOT NULL,
    status      CHAR(1)      NOT NULL,
    fingerprint VARCHAR(64)  NOT NULL,
    owner       VARCHAR(64),
    payload     BYTEA,
    expires_at  TIMESTAMPTZ  NOT NULL,
    purge_after TIMESTAMPTZ  NOT NULL,
    PRIMARY KEY (scope, idem_key)
) WITH (fillfactor = 80);
CREATE INDEX IF NOT EXISTS dupguard_idempotency_purge_after ON dupguard_idempotency (purge_after);

-- Lock table of JdbcLockProvider. One row per lock name, never deleted: release clears the owner,
-- so the fence counter keeps increasing across holders and restarts (SPEC L5). Every acquire and
-- release rewrites the row; free space on each page keeps those updates HOT (no index writes).
CREATE TABLE IF NOT EXISTS dupguard_locks (
    name        VARCHAR(200) COLLATE "C" NOT NULL,
    owner       VARCHAR(64),
    fence       BIGINT       NOT NULL,
    lease_until TIMESTAMPTZ  NOT NULL,
    locked_at   TIMESTAMPTZ  NOT NULL,
    PRIMARY KEY (name)
) WITH (fillfactor = 70);

-- Submission tokens (JdbcSubmissionTokens): only the SHA-256 of a token is stored.
CREATE TABLE IF NOT EXISTS dupguard_tokens (
    scope       VARCHAR(64)  COLLATE "C" NOT NULL,
    token_hash  CHAR(64)     COLLATE "C" NOT NULL,
    subject     VARCHAR(128) COLLATE "C" NOT NULL,
    expires_at  TIMESTAMPTZ  NOT NULL,
    PRIMARY KEY (scope, token_hash)
);
CREATE INDEX IF NOT EXISTS dupguard_tokens_expires_at ON dupguard_tokens (expires_at);

-- Submit throttle windows (JdbcSubmitThrottle).
CREATE TABLE IF NOT EXISTS dupguard_throttle (
    scope       VARCHAR(64)  COLLATE "C" NOT NULL,
    subject     VARCHAR(128) COLLATE "C" NOT NULL,
    window_end  TIMESTAMPTZ  NOT NULL,
    PRIMARY KEY (scope, subject)
);

-- Prepared submissions (JdbcPreparedSubmissions): pre-id -> the one business id bound to it.
CREATE TABLE IF NOT EXISTS dupguard_prepared (
    pre_id      VARCHAR(32)  COLLATE "C" NOT NULL,
    subject     VARCHAR(128) COLLATE "C" NOT NULL,
    business_id VARCHAR(255),
    created_at  TIMESTAMPTZ  NOT NULL,
    PRIMARY KEY (pre_id)
);
CREATE INDEX IF NOT EXISTS dupguard_prepared_created_at ON dupguard_prepared (created_at);

-- Guard rows of UnfinishedGuard: one per kind, locked FOR UPDATE to serialise check-then-insert.
CREATE TABLE IF NOT EXISTS dupguard_guards (
    guard_key   VARCHAR(255) COLLATE "C" NOT NULL,
    PRIMARY KEY (guard_key)
);
