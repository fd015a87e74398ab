-- The hand-written one-column table; pgb_dg (dupguard's table) is created by run from the schema
-- dupguard ships (dupguard-jdbc/.../schema/postgresql.sql), renamed.
DROP TABLE IF EXISTS pgb_dg, pgb_proc;
CREATE TABLE pgb_proc (id VARCHAR(64) PRIMARY KEY);
