//! The demo store: its passphrases, its graph and proposals, and how it is
//! built. `graphex demo` makes one; the console's tests build one too.

use std::path::Path;

use anyhow::{Context as _, Result};
use graphex_engine::age_secret::SecretString;
use graphex_engine::store::Durability;
use graphex_engine::{Credentials, KdfCost, Store, seed};

/// The demo store's passphrases (documented in the README).
pub const DEMO_PASSPHRASE: &str = "graphex-demo";
pub const DEMO_HUMAN_PASSPHRASE: &str = "graphex-demo-human";
/// Passphrases `gen` uses when the environment gives none.
pub const GEN_PASSPHRASE: &str = "graphex-gen";
pub const GEN_HUMAN_PASSPHRASE: &str = "graphex-gen-human";

const DEMO_GRAPH: &str = include_str!("../../assets/demo/graph.json");
pub const DEMO_MARKER: &str = ".graphex-demo";

/// Builds the demo store (graph and pending proposals) in `root`.
pub fn create_demo(root: &Path, cost: KdfCost) -> Result<()> {
    std::fs::create_dir_all(root).with_context(|| format!("cannot create {}", root.display()))?;
    let (pass, human) = (
        SecretString::from(DEMO_PASSPHRASE),
        SecretString::from(DEMO_HUMAN_PASSPHRASE),
    );
    Store::init(root, &pass, &human, cost)?;
    std::fs::write(root.join(DEMO_MARKER), "graphex demo store\n")?;
    let creds = Credentials {
        passphrase: Some(pass),
        human_passphrase: Some(human),
        ..Credentials::default()
    };
    let mut store = Store::open(root, &creds)?;
    let seed = seed::parse("assets/demo/graph.json", DEMO_GRAPH)?;
    store.apply_batch(seed.batch, Durability::Sync)?;
    super::demo_proposals::add(&mut store)?;
    Ok(())
}

/// A copy of the demo store at `root` (KDF cost 4), made from one built
/// once per test process: tests share the fixture instead of each building
/// the demo again.
#[cfg(test)]
pub fn demo_copy(root: &Path) {
    use std::sync::OnceLock;
    static TEMPLATE: OnceLock<tempfile::TempDir> = OnceLock::new();
    let template = TEMPLATE.get_or_init(|| {
        let dir = tempfile::tempdir().expect("a temporary directory");
        create_demo(dir.path(), KdfCost(Some(4))).expect("the demo store");
        dir
    });
    copy_tree(template.path(), root).expect("a copy of the demo store");
}

/// Copies directory `from` into `to` (created), modes kept.
#[cfg(test)]
fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    std::fs::set_permissions(to, std::fs::metadata(from)?.permissions())?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}
