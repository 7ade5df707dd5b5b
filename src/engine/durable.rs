//! Durability on the file system, below every layer that writes files
//! (keys, blobs, the index's neighbours).

use std::path::Path;

use crate::error::{Error, Result};

/// fsync on a directory, so a rename or new file in it survives a crash
/// (no-op where directories cannot be synced).
pub fn sync_dir(dir: &Path) -> Result<()> {
    match std::fs::File::open(dir) {
        Ok(f) => f.sync_all().or(Ok(())),
        Err(e) => Err(Error::io(dir, e)),
    }
}
