-- A new store, before any edge is written, laid out as schema v10 made it
-- (one edge a row): how the tests make a store as an older graphex did.
CREATE UNIQUE INDEX edges_by_token ON edges (substr(token, 1, 16));
PRAGMA user_version = 10;
