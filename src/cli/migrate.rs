//! `graphex migrate`: brings a store made by an older version to today's
//! layout, and says what it moved (see `Store::migrate`).

use anyhow::Result;
use graphex_engine::store::Migration;

use super::output::emit;
use super::session::{Context, Need};

pub fn migrate(ctx: &Context, dry_run: bool) -> Result<()> {
    let mut store = ctx.open(Need::Write)?;
    let done = store.migrate(dry_run)?;
    emit(ctx.json, &done, text)
}

/// What is left to a migration at the human level.
const GROUPS_NEED_HUMAN: &str = "the edges are still one a row: holding them in groups (schema v11, one row per \
     node and tier, about a third of graph.db) opens every edge and seals it again, so it needs every tier's key: \
     run `graphex migrate --unlock human` (or with GRAPHEX_HUMAN_PASSPHRASE set)\n";

fn text(m: &Migration) -> String {
    if m.nothing_to_do() {
        let mut s = format!(
            "nothing to migrate{}: graph.db at schema v{}, {}; {} blob file(s) fanned out in .gpp/objects/XX/\n",
            if m.groups_need_human {
                " at this level"
            } else {
                ": the store is in today's layout"
            },
            m.schema,
            megabytes(m.index_bytes_after),
            m.blobs_in_place
        );
        if m.groups_need_human {
            s.push_str(GROUPS_NEED_HUMAN);
        }
        return s;
    }
    let mut s = String::new();
    if m.blobs_fanned_out > 0 {
        let verb = if m.dry_run { "would move" } else { "moved" };
        s.push_str(&format!(
            "{verb} {} blob file(s) from .gpp/objects/HASH to .gpp/objects/HA/SH… (as git keeps its objects: no \
             directory holds more than a few thousand files); {} were in place already\n",
            m.blobs_fanned_out, m.blobs_in_place
        ));
    }
    if m.index_relaid && m.dry_run {
        s.push_str(&format!(
            "would lay graph.db ({}) out as schema v10: the same rows, keyed by their ids, with slimmer indexes \
             (about a third smaller); the whole file is rewritten once, and older versions of graphex no \
             longer open it\n",
            megabytes(m.index_bytes_before)
        ));
    } else if m.index_relaid {
        s.push_str(&format!(
            "laid graph.db out as schema v{}: {} → {}, every row as it was and checked against the seal; older \
             versions of graphex no longer open it\n",
            m.schema,
            megabytes(m.index_bytes_before),
            megabytes(m.index_bytes_after)
        ));
    } else if m.index_compacted && m.edge_groups == 0 {
        let verb = if m.dry_run { "would rewrite" } else { "rewrote" };
        s.push_str(&format!(
            "{verb} graph.db without its free pages: {} → {}\n",
            megabytes(m.index_bytes_before),
            megabytes(m.index_bytes_after)
        ));
    }
    if m.edge_groups > 0 && m.dry_run {
        s.push_str(&format!(
            "would hold the edges in {} group(s) (schema v11: one row per node and tier, sealed once): every \
             edge is opened and sealed again in its group, in one commit, and the manifest and the seal made \
             anew over the groups\n",
            m.edge_groups
        ));
    } else if m.edge_groups > 0 {
        s.push_str(&format!(
            "held the edges in {} group(s): graph.db at schema v{}, {} → {}, checked against the seal before and \
             after; older versions of graphex no longer open it\n",
            m.edge_groups,
            m.schema,
            megabytes(m.index_bytes_before),
            megabytes(m.index_bytes_after)
        ));
    } else if m.groups_need_human {
        s.push_str(GROUPS_NEED_HUMAN);
    }
    if m.log_pending {
        s.push_str(
            "another graphex process (an unlock session, a console) had the store open: graph.db reaches its new \
             size once it closes (`graphex lock` ends a session)\n",
        );
    }
    s.push_str(if m.dry_run {
        "dry run: nothing changed\n"
    } else {
        "commit .gpp as usual (git sees each blob as a rename of the same content)\n"
    });
    s
}

/// `bytes` in megabytes, one decimal.
fn megabytes(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / 1e6)
}
