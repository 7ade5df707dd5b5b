//! The store's primitives for operations that rewrite the index whole: a
//! merge of two branches' indexes (the `merge` module) and a key rotation
//! (the `rotate` module). They need the row formats, the manifest, the row MACs and the
//! seal as the store writes them, inside one of its transactions; this
//! module names exactly what they may use, and nothing above the store
//! reaches into it otherwise.

pub(crate) use super::{
    audit_chain, audit_merge, blob_name, edge_groups, manifest, merge_conflicts as conflicts, rotate, rowmac, schema,
    seal, seal_log, seal_timeline, timeline_pack, unlinked,
};
