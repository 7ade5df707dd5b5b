//! `graphex git textconv FILE`: a `graph.db` as git shows it in `git diff`,
//! `git log -p` and `git show`. Git hands over the index alone, from any
//! revision; it is opened beside this repository's key files and blobs
//! (content-addressed, so an older revision's are there too), in a private
//! temporary directory, at the level of the key in the environment (no
//! prompt: git runs this without a terminal). The text is sorted, so git's
//! own line diff of two of them is the graph's change.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context as _, Result};
use graphex_engine::Store;
use graphex_engine::keys::Credentials;
use graphex_engine::store::Layout;

use super::output::emit;

pub fn textconv(file: &Path) -> Result<()> {
    let text = match show(file) {
        Ok(t) => t,
        // Git shows what it is given: say why the graph is not shown.
        Err(e) => format!(
            "graph.db ({} bytes): not shown in words: {e:#}\n",
            file.metadata().map_or(0, |m| m.len())
        ),
    };
    emit(false, &(), |()| text)
}

fn show(file: &Path) -> Result<String> {
    let here = std::env::current_dir().context("reading the working directory")?;
    let repo = Layout::discover(&here).context("not inside a repository holding a Graphex store")?;
    let dir = tempfile::Builder::new().prefix("graphex-textconv-").tempdir()?;
    let copy = Layout::new(dir.path());
    let graphex = copy.db().parent().map(Path::to_owned).context("the store's layout")?;
    std::fs::create_dir_all(&graphex)?;
    std::fs::copy(file, copy.db()).with_context(|| format!("reading {}", file.display()))?;
    // The key files are copied (an open may finish a rotation's renames in
    // its own copy); the blobs are read from the repository's, never written.
    std::fs::create_dir_all(&copy.keys().dir)?;
    for entry in std::fs::read_dir(&repo.keys().dir).context("reading the store's key files")? {
        let entry = entry?;
        if entry.file_type()?.is_file() {
            std::fs::copy(entry.path(), copy.keys().dir.join(entry.file_name()))?;
        }
    }
    let store = Store::open_snapshot(dir.path(), &Credentials::from_env(), Some(&repo.objects()))?;
    Ok(render(&store))
}

/// The graph as sorted, stable text.
fn render(store: &Store) -> String {
    let c = store.catalog();
    let mut nodes: Vec<_> = c.nodes().collect();
    nodes.sort_by(|a, b| a.name.cmp(&b.name));
    let mut s = String::new();
    for n in nodes {
        let _ = writeln!(s, "node {}", n.name);
        let _ = writeln!(s, "  type: {}", n.node_type);
        let _ = writeln!(s, "  tier: {}", n.tier);
        let _ = writeln!(s, "  status: {}", n.status);
        let _ = writeln!(s, "  description: {:?}", n.description);
        for (k, v) in n.properties.iter() {
            let _ = writeln!(s, "  property {k}: {v:?}");
        }
        let mut edges: Vec<String> = c
            .outgoing(&n.id)
            .filter_map(|e| {
                c.node(&e.to)
                    .map(|t| format!("  -> {} -> {} ({})", e.relation, t.name, e.tier))
            })
            .collect();
        edges.sort();
        for e in edges {
            let _ = writeln!(s, "{e}");
        }
        s.push('\n');
    }
    if let Ok(status) = store.status() {
        for t in status
            .tiers
            .iter()
            .filter(|t| !t.readable && (t.nodes > 0 || t.edges > 0))
        {
            let _ = writeln!(s, "sealed {}: {} node(s), {} edge(s)", t.tier, t.nodes, t.edges);
        }
    }
    s
}
