-- Lays a store out as schema v9 did (rowid tables, covering tier indexes,
-- four timeline indexes), for the tests of a store an older version made
-- and of `graphex migrate`. The rows are kept as they are.
CREATE TABLE nodes_v9 (
    id         BLOB PRIMARY KEY,
    tier       INTEGER NOT NULL,
    version    INTEGER NOT NULL,
    name_token BLOB NOT NULL UNIQUE,
    blob       TEXT NOT NULL,
    summary    BLOB NOT NULL,
    seq        INTEGER NOT NULL,
    digest     BLOB
);
INSERT INTO nodes_v9 SELECT id, tier, version, name_token, blob, summary, seq, digest FROM nodes ORDER BY seq, id;
DROP TABLE nodes;
ALTER TABLE nodes_v9 RENAME TO nodes;
CREATE INDEX nodes_by_tier ON nodes (tier, seq, id, version, blob, digest, name_token);
CREATE TABLE node_versions_v9 (
    node_id BLOB NOT NULL,
    version INTEGER NOT NULL,
    tier    INTEGER NOT NULL,
    blob    TEXT NOT NULL,
    mac     BLOB,
    PRIMARY KEY (node_id, version)
);
INSERT INTO node_versions_v9 SELECT node_id, version, tier, blob, mac FROM node_versions;
DROP TABLE node_versions;
ALTER TABLE node_versions_v9 RENAME TO node_versions;
CREATE TABLE edges_v9 (
    id     BLOB PRIMARY KEY,
    tier   INTEGER NOT NULL,
    token  BLOB NOT NULL UNIQUE,
    sealed BLOB NOT NULL,
    seq    INTEGER NOT NULL,
    digest BLOB
);
INSERT INTO edges_v9 SELECT id, tier, token, sealed, seq, digest FROM edges ORDER BY seq, id;
DROP TABLE edges;
ALTER TABLE edges_v9 RENAME TO edges;
CREATE INDEX edges_by_tier ON edges (tier, seq, id, digest, token);
DROP INDEX timeline_by_node;
DROP INDEX timeline_packed_nodes;
DROP INDEX timeline_by_action;
CREATE INDEX timeline_by_node ON timeline (node_id);
CREATE INDEX timeline_by_proposal ON timeline (proposal);
CREATE INDEX timeline_by_action ON timeline (action);
CREATE INDEX timeline_by_at ON timeline (at);
PRAGMA user_version = 9;
