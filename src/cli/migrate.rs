//! `graphex migrate`: brings a store made by an older version to today's
//! layout, and says what it moved (see `Store::migrate`).

use anyhow::Result;
use graphex_engine::store::Migration;

use super::output::emit;
use super::session::{Context, Need};

pub fn migrate(ctx: &Context, dry_run: bool) -> Result<()> {
    let store = ctx.open(Need::Write)?;
    let done = store.migrate(dry_run)?;
    emit(ctx.json, &done, text)
}

fn text(m: &Migration) -> String {
    if m.nothing_to_do() {
        return format!(
            "nothing to migrate: the store is in today's layout ({} blob file(s) fanned out in .gpp/objects/XX/)\n",
            m.blobs_in_place
        );
    }
    let verb = if m.dry_run { "would move" } else { "moved" };
    let mut s = format!(
        "{verb} {} blob file(s) from .gpp/objects/HASH to .gpp/objects/HA/SH… (as git keeps its objects: no \
         directory holds more than a few thousand files); {} were in place already\n",
        m.blobs_fanned_out, m.blobs_in_place
    );
    s.push_str(if m.dry_run {
        "dry run: nothing moved; without --dry-run, the next write does the same\n"
    } else {
        "git sees each as a rename of the same content: commit .gpp/objects as usual\n"
    });
    s
}
