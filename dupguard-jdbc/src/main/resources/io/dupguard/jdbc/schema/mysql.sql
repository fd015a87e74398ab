-- dupguard schema for MySQL 8 / MariaDB 10.6+. Table names start with the default prefix
-- "dupguard_"; createSchemaIfMissing() substitutes a configured table name.
-- The key is VARBINARY (its UTF-8 bytes): comparison is byte-exact, with no case folding and no
-- trailing-space padding, which even the *_bin collations of MariaDB apply (SPEC K6).
-- expires_at is exact (end of the lease, then of the retention) and not indexed; purge_after is the
-- purge's index, set by the claim to now + lease + typical retention and only ever raised, so
-- completion and renewal write no secondary index. The fingerprint is the SHA-256 itself (32 bytes;
-- empty for "no fingerprint"), not its 64 hex characters.
CREATE TABLE IF NOT EXISTS dupguard_idempotency (
    scope       VARCHAR(64)    CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    idem_key    VARBINARY(1020) NOT NULL,
    status      CHAR(1)        CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    fingerprint VARBINARY(32)  NOT NULL,
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

-- Submission tokens (JdbcSubmissionTokens): only the SHA-256 of a token is stored. lease_owner and
-- lease_until mark a token in use by a two-phase submit until the lease ends (NULL: free).
CREATE TABLE IF NOT EXISTS dupguard_tokens (
    scope       VARCHAR(64)  CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    token_hash  CHAR(64)     CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    subject     VARBINARY(512) NOT NULL,
    expires_at  DATETIME(6)  NOT NULL,
    lease_owner VARCHAR(64)  CHARACTER SET ascii COLLATE ascii_bin NULL,
    lease_until DATETIME(6)  NULL,
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

-- Retry log (JdbcRetryStore, SPEC R1-R6). due_at is the due time of a PENDING task and the lease end
-- of a RUNNING one, and NULL once a task is finished: the claim's range scan (due_at <= now, earliest
-- first, FOR UPDATE SKIP LOCKED) never touches finished rows and stays O(batch). The dedup key is
-- unique per type (NULLs never collide). runs counts claims and guards every worker's write together
-- with state and owner, and run_base is where the attempt count restarts after an unblock. Type, key
-- and owner are VARBINARY for byte-exact comparison, as in the tables above.
CREATE TABLE IF NOT EXISTS dupguard_retry_tasks (
    id          BIGINT         NOT NULL AUTO_INCREMENT,
    task_type   VARBINARY(256) NOT NULL,
    task_key    CHAR(32)       CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    dedup_key   VARBINARY(1020) NULL,
    state       CHAR(1)        CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    runs        INT            NOT NULL,
    run_base    INT            NOT NULL,
    due_at      DATETIME(6)    NULL,
    owner       VARBINARY(256) NULL,
    last_error  TEXT           CHARACTER SET utf8mb4 NULL,
    created_at  DATETIME(6)    NOT NULL,
    updated_at  DATETIME(6)    NOT NULL,
    payload     LONGBLOB       NOT NULL,
    PRIMARY KEY (id),
    UNIQUE KEY dupguard_retry_tasks_dedup (task_type, dedup_key),
    KEY dupguard_retry_tasks_due (due_at),
    KEY dupguard_retry_tasks_open (state, task_type, id),
    KEY dupguard_retry_tasks_done (state, updated_at)
) ENGINE = InnoDB;

-- Processed messages (JdbcProcessedMessages): the lean layout of a listener's dedup in the
-- listener's transaction. One row per message: its key, the first 8 bytes of its payload's
-- SHA-256 (NULL: not kept) and its expiry; no status, owner or result, since a row exists only
-- committed with the message's effect. No secondary index: the purge walks the primary key.
CREATE TABLE IF NOT EXISTS dupguard_processed (
    scope       VARCHAR(64)    CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    msg_id      VARBINARY(1020) NOT NULL,
    fingerprint BIGINT         NULL,
    expires_at  DATETIME(6)    NOT NULL,
    PRIMARY KEY (scope, msg_id)
) ENGINE = InnoDB;
