-- dupguard schema for PostgreSQL. Table names start with the default prefix "dupguard_";
-- createSchemaIfMissing() substitutes a configured table name.
-- Keys use the "C" collation: byte-exact comparison, so 'DB00x' and 'Db00X' never collide (SPEC K6).
CREATE TABLE IF NOT EXISTS dupguard_idempotency (
    scope       VARCHAR(64)  COLLATE "C" NOT NULL,
    idem_key    VARCHAR(255) COLLATE "C" NOT NULL,
    status      CHAR(1)      NOT NULL,
    fingerprint VARCHAR(64)  NOT NULL,
    owner       VARCHAR(64),
    payload     BYTEA,
    created_at  TIMESTAMPTZ  NOT NULL DEFAULT clock_timestamp(),
    expires_at  TIMESTAMPTZ  NOT NULL,
    PRIMARY KEY (scope, idem_key)
);
CREATE INDEX IF NOT EXISTS dupguard_idempotency_expires_at ON dupguard_idempotency (expires_at);

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
