DROP TABLE IF EXISTS pgb_dg, pgb_proc;
CREATE TABLE pgb_dg (
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
CREATE INDEX pgb_dg_purge_after ON pgb_dg (purge_after);
CREATE TABLE pgb_proc (id VARCHAR(64) PRIMARY KEY);
