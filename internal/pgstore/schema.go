package pgstore

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// schemaVersion is the version of the tables below; a store of another
// version is refused (ctxls does not rewrite an organisation's store
// behind its back).
const schemaVersion = 1

// schema creates ctxls's tables. Every statement is idempotent.
const schema = `
CREATE TABLE IF NOT EXISTS ctxls_meta (
	key   text PRIMARY KEY,
	value text NOT NULL
);
-- Content-addressed blobs: texts, chunks, side files' blocks, manifests.
CREATE TABLE IF NOT EXISTS ctxls_blobs (
	hash bytea PRIMARY KEY,  -- SHA-256 of the uncompressed bytes
	size bigint NOT NULL,    -- uncompressed length
	data bytea NOT NULL      -- zstd
);
CREATE TABLE IF NOT EXISTS ctxls_repos (
	name       text PRIMARY KEY,
	generation bigint NOT NULL DEFAULT 0,  -- the current one; 0: none yet
	updated    timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS ctxls_generations (
	repo     text NOT NULL REFERENCES ctxls_repos(name) ON DELETE CASCADE,
	id       bigint NOT NULL,
	manifest bytea NOT NULL,  -- the manifest's blob
	files    integer NOT NULL,
	bytes    bigint NOT NULL, -- the texts' total size
	created  timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (repo, id)
);
-- The index image a cold replica starts from (the publisher's index
-- files of one generation), replaced when it has grown stale.
CREATE TABLE IF NOT EXISTS ctxls_images (
	repo       text PRIMARY KEY REFERENCES ctxls_repos(name) ON DELETE CASCADE,
	generation bigint NOT NULL,
	image      bytea NOT NULL  -- the image manifest's blob
);
CREATE TABLE IF NOT EXISTS ctxls_tokens (
	hash    bytea PRIMARY KEY,  -- SHA-256 of the token
	name    text NOT NULL UNIQUE,
	repos   text[] NOT NULL,    -- '*': every repository
	created timestamptz NOT NULL DEFAULT now()
);
`

// migrate creates the tables when missing and checks the store's
// version. On a read-only server (a standby) it only checks.
func (s *Store) migrate(ctx context.Context) error {
	// A store that has its tables needs nothing written: a replica's
	// read-only role, or a standby, opens it as it is.
	var v string
	if err := s.pool.QueryRow(ctx, "SELECT value FROM ctxls_meta WHERE key = 'schema'").Scan(&v); err == nil {
		if v != fmt.Sprint(schemaVersion) {
			return fmt.Errorf("the store has schema version %s, this ctxls reads %d", v, schemaVersion)
		}
		return nil
	}
	var ro string
	if err := s.pool.QueryRow(ctx, "SHOW transaction_read_only").Scan(&ro); err != nil {
		return err
	}
	if ro != "on" {
		err := s.inTx(ctx, func(tx pgx.Tx) error {
			// One migrator at a time: two replicas starting together
			// must not race on CREATE TABLE.
			if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(7243151)"); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, schema); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, "INSERT INTO ctxls_meta (key, value) VALUES ('schema', $1) ON CONFLICT (key) DO NOTHING", fmt.Sprint(schemaVersion))
			return err
		})
		if err != nil {
			return fmt.Errorf("create tables: %w", err)
		}
	}
	if err := s.pool.QueryRow(ctx, "SELECT value FROM ctxls_meta WHERE key = 'schema'").Scan(&v); err != nil {
		return fmt.Errorf("read the store's version (is it a ctxls store?): %w", err)
	}
	if v != fmt.Sprint(schemaVersion) {
		return fmt.Errorf("the store has schema version %s, this ctxls reads %d", v, schemaVersion)
	}
	return nil
}
