//! `graphex migrate`: brings a store made by an older version to today's
//! layout, saying what it moves. Today that is the blob fan-out (see
//! `objects`); the same step runs on its own at every write.

use serde::Serialize;

use super::Store;
use crate::error::Result;

/// What a migration did, or (dry run) would do.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Migration {
    /// Blob files moved from `objects/HASH` to `objects/HA/SH…`.
    pub blobs_fanned_out: usize,
    /// Blob files already in place.
    pub blobs_in_place: usize,
    pub dry_run: bool,
}

impl Migration {
    /// Whether the store was already in today's layout.
    pub fn nothing_to_do(&self) -> bool {
        self.blobs_fanned_out == 0
    }
}

impl Store {
    /// Moves what an older version left in an older layout (master level:
    /// the same as any write). With `dry_run`, counts it and moves nothing.
    pub fn migrate(&self, dry_run: bool) -> Result<Migration> {
        self.require_writer("migrate the store")?;
        let census = super::objects::Census::of(&self.layout.objects(), &self.objects.list()?);
        // A flat copy of a blob already in place is dropped, not moved.
        let moved = if dry_run {
            census.to_move
        } else {
            self.objects.fan_out()?
        };
        Ok(Migration {
            blobs_fanned_out: moved,
            blobs_in_place: census.blobs - census.flat,
            dry_run,
        })
    }
}
