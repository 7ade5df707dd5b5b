//! Measures what the planned schema's edge groups (docs/development.md,
//! "The index's size") would take for a real store: each readable edge row
//! is put in its group (source node and tier) with the size it would have
//! there, an SQLite table of that layout is filled with random bytes of
//! those sizes, and that file's size is printed (compare the `edges` parts
//! of `sqlite3 graph.db "SELECT name, SUM(pgsize) FROM dbstat GROUP BY
//! name"`).
//!
//! cargo run --release -p graphex-engine --example edge_groups_estimate -- ROOT IDENTITY
//!
//! The master's identity reads every tier but human-only, whose edges are
//! counted at the readable tiers' average (the file shows how many rows
//! each tier has, not their sources).

use std::collections::HashMap;
use std::path::PathBuf;

use graphex_engine::crypto::fill_random;
use graphex_engine::model::{EdgeId, NodeId, Tier};
use graphex_engine::{Credentials, Store};
use rusqlite::{Connection, params};

/// A sealed record's nonce and tag.
const SEAL: usize = 28;
/// The source's id, which a group's records leave out.
const SOURCE: usize = 16;
/// A group's blind-index token of each edge, truncated.
const TOKEN: usize = 16;
/// A record's length prefix in the group.
const FRAME: usize = 2;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [root, identity] = args.as_slice() else {
        return Err("usage: edge_groups_estimate ROOT IDENTITY".into());
    };
    let creds = Credentials {
        identity_file: Some(PathBuf::from(identity)),
        ..Credentials::default()
    };
    let store = Store::open(root.as_ref(), &creds)?;
    let db = Connection::open(PathBuf::from(root).join(".gpp/graphex/graph.db"))?;
    // Each edge row's sealed length, by id.
    let mut sealed_len: HashMap<EdgeId, usize> = HashMap::new();
    let mut rows_per_tier = [0usize; 4];
    {
        let mut stmt = db.prepare("SELECT id, tier, length(sealed) FROM edges")?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let id: Vec<u8> = r.get(0)?;
            let tier: i64 = r.get(1)?;
            let len: i64 = r.get(2)?;
            let id = EdgeId(uuid::Uuid::from_slice(&id)?);
            sealed_len.insert(id, usize::try_from(len)?);
            rows_per_tier[usize::try_from(tier)?] += 1;
        }
    }
    // Groups of the readable edges: (source, tier) -> edges and bytes.
    let mut groups: HashMap<(NodeId, Tier), (usize, usize)> = HashMap::new();
    for e in store.catalog().edges() {
        let Some(&len) = sealed_len.get(&e.id) else { continue };
        let g = groups.entry((e.from, e.tier)).or_default();
        g.0 += 1;
        g.1 += len - SEAL - SOURCE + FRAME;
    }
    let readable_edges: usize = groups.values().map(|g| g.0).sum();
    let unread = rows_per_tier[Tier::HumanOnly.code() as usize];
    let scale = (readable_edges + unread) as f64 / readable_edges.max(1) as f64;
    println!(
        "edge rows {} ({} read, {} human-only counted at the others' average); groups read {}",
        readable_edges + unread,
        readable_edges,
        unread,
        groups.len()
    );
    let out = tempfile::tempdir()?;
    let path = out.path().join("groups.db");
    let conn = Connection::open(&path)?;
    conn.pragma_update(None, "page_size", 16384)?;
    conn.execute_batch(
        "CREATE TABLE edge_groups (grp BLOB PRIMARY KEY, tier INTEGER NOT NULL, seq INTEGER NOT NULL,
             tokens BLOB NOT NULL, sealed BLOB NOT NULL, digest BLOB NOT NULL) WITHOUT ROWID;
         CREATE INDEX edge_groups_by_tier ON edge_groups (tier, seq);",
    )?;
    let tx = conn.unchecked_transaction()?;
    {
        let mut put = tx.prepare("INSERT INTO edge_groups VALUES (?1, ?2, ?3, ?4, ?5, ?6)")?;
        let random = |n: usize| -> Result<Vec<u8>, Box<dyn std::error::Error>> {
            let mut b = vec![0u8; n];
            fill_random(&mut b)?;
            Ok(b)
        };
        for (&(_, tier), &(edges, bytes)) in &groups {
            put.execute(params![
                random(16)?,
                tier.code(),
                1,
                random(edges * TOKEN)?,
                random(bytes + SEAL)?,
                random(16)?
            ])?;
        }
    }
    tx.commit()?;
    drop(conn);
    let total = std::fs::metadata(&path)?.len() as f64;
    let nodes = db.query_row("SELECT COUNT(*) FROM nodes", [], |r| r.get::<_, i64>(0))? as f64;
    let scaled = total * scale;
    println!(
        "edge groups with their index: {:.1} MB for the edges read, {:.1} MB scaled to every edge ({:.0} B a node)",
        total / 1e6,
        scaled / 1e6,
        scaled / nodes
    );
    Ok(())
}
