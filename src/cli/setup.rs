//! Commands that create stores or export keys: `init`, `keys`, `demo`, `gen`.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context as _, Result, bail};
use graphex_engine::age_secret::SecretString;
use graphex_engine::keys::{ENV_HUMAN_PASSPHRASE, ENV_PASSPHRASE, IdentityKind};
use graphex_engine::store::{Durability, Layout};
use graphex_engine::synth::{SynthSpec, generate};
use graphex_engine::{Credentials, KdfCost, Store};
use serde::Serialize;

use super::args::{GenArgs, KeysCommand};
use super::output::{emit, note};
use super::session::{Context, Need, absolute, new_passphrase};
pub use crate::shared::demo::{
    DEMO_HUMAN_PASSPHRASE, DEMO_MARKER, DEMO_PASSPHRASE, GEN_HUMAN_PASSPHRASE, GEN_PASSPHRASE, create_demo,
};

/// Test-only: scrypt work factor (log2 N) for new passphrase files. Never set
/// it for real stores; age's default (about one second) is what protects them.
pub const ENV_TEST_KDF: &str = "GRAPHEX_TEST_KDF_LOG_N";

pub(crate) fn kdf_cost() -> Result<KdfCost> {
    match std::env::var(ENV_TEST_KDF) {
        Err(_) => Ok(KdfCost(None)),
        Ok(v) => {
            let n: u8 = v
                .parse()
                .ok()
                .filter(|n| (1..=30).contains(n))
                .with_context(|| format!("{ENV_TEST_KDF} must be a number from 1 to 30 (it is {v:?})"))?;
            note(&format!(
                "warning: {ENV_TEST_KDF}={n}: weak passphrase KDF, for tests only"
            ));
            Ok(KdfCost(Some(n)))
        }
    }
}

pub fn init(dir: Option<&Path>) -> Result<()> {
    let root = absolute(dir.unwrap_or(Path::new(".")))?;
    if Layout::new(&root).db().exists() {
        bail!(
            "a Graphex store already exists at {}",
            Layout::new(&root).graphex().display()
        );
    }
    let pass = new_passphrase(ENV_PASSPHRASE, "master passphrase")?;
    let human = new_passphrase(ENV_HUMAN_PASSPHRASE, "human-only passphrase")?;
    let layout = Store::init(&root, &pass, &human, kdf_cost()?)?;
    super::output::say(&format!(
        "created {}\nnext: add knowledge with `graphex add`, and give agents an identity with \
         `graphex keys export-agent FILE` (keep the file outside the repository)\n",
        layout.graphex().display()
    ))?;
    // In a git repository whose top is this root, the merge driver is set
    // up at once; anywhere else `graphex git install` does it later.
    if super::git::is_top_of_work_tree(&root) {
        super::git::install(&root, None)?;
    }
    Ok(())
}

pub fn keys(ctx: &Context, cmd: &KeysCommand) -> Result<()> {
    let (kind, file, what) = match cmd {
        KeysCommand::ExportAgent { file } => (IdentityKind::Agent, file, "agent"),
        KeysCommand::ExportMaster { file } => (IdentityKind::Master, file, "master"),
        KeysCommand::Rotate { tier } => return super::rotate::rotate(ctx, tier.as_deref()),
    };
    let store = ctx.open(Need::Write)?;
    store.keys().export_identity(&store.layout().keys(), kind, file)?;
    let env = if kind == IdentityKind::Agent {
        "GRAPHEX_AGENT_IDENTITY"
    } else {
        "GRAPHEX_IDENTITY"
    };
    super::output::say(&format!(
        "wrote the {what} identity to {} (mode 0600); use it with {env}={}\n",
        file.display(),
        file.display()
    ))
}

fn default_demo_dir() -> PathBuf {
    directories::ProjectDirs::from("", "", "graphex")
        .map(|d| d.data_dir().join("demo"))
        .unwrap_or_else(|| PathBuf::from("graphex-demo"))
}

/// The demo's scrypt work factor (log2 N): its passphrases are published
/// in the README, so a slow KDF would protect nothing and only delay the
/// console's first queue frame. Stores from `init` use age's default.
pub const DEMO_KDF_LOG_N: u8 = 12;

pub fn demo(dir: Option<&Path>, reset: bool, no_console: bool) -> Result<()> {
    let root = absolute(&dir.map(Path::to_path_buf).unwrap_or_else(default_demo_dir))?;
    if !no_console {
        // Said before any work, not after building the store.
        crate::app::terminal::require_tty().map_err(|e| {
            e.context("the console cannot open here; `graphex demo --no-console` builds the store and prints a tour")
        })?;
    }
    let layout = Layout::new(&root);
    let exists = layout.db().exists();
    if exists && reset {
        if !root.join(DEMO_MARKER).exists() {
            bail!(
                "{} holds a store that is not a demo store; refusing to delete it",
                root.display()
            );
        }
        std::fs::remove_dir_all(layout.gpp()).with_context(|| format!("cannot remove {}", layout.gpp().display()))?;
    }
    if !exists || reset {
        create_demo(&root, KdfCost(kdf_cost()?.0.or(Some(DEMO_KDF_LOG_N))))?;
        super::output::say(&format!("created the demo store in {}\n", root.display()))?;
    } else {
        super::output::say(&format!(
            "using the existing demo store in {} (--reset rebuilds it)\n",
            root.display()
        ))?;
    }
    if no_console {
        return super::output::say(&tour(&root));
    }
    let creds = Credentials {
        passphrase: Some(SecretString::from(DEMO_PASSPHRASE)),
        ..Credentials::default()
    };
    crate::app::run(crate::app::Options {
        root,
        creds,
        session: None,
        range: None,
    })
}

fn tour(root: &Path) -> String {
    let d = root.display();
    format!(
        "\nTour (the demo's passphrases are {DEMO_PASSPHRASE} and {DEMO_HUMAN_PASSPHRASE}):\n\
         \n  graphex --store {d} status                      # locked: counts only, public content\
         \n  graphex --store {d} list                        # public nodes\
         \n  export GRAPHEX_PASSPHRASE={DEMO_PASSPHRASE}\
         \n  graphex --store {d} list --tier agent-restricted\
         \n  graphex --store {d} show orders-service\
         \n  graphex --store {d} list --type convention --json\
         \n  graphex --store {d} query 'orders-service -> depends-on -> * --depth 2'\
         \n  graphex --store {d} path retry-queue orders-team --undirected\
         \n  graphex --store {d} project --node orders-service --trust 94.2 --agent claude-code --budget 600\
         \n  graphex --store {d} exposure\
         \n  graphex --store {d} pending                     # agent proposals waiting for review\
         \n  GRAPHEX_HUMAN_PASSPHRASE={DEMO_HUMAN_PASSPHRASE} graphex --store {d} list --tier human-only\
         \n  graphex --store {d} add --type convention --name log-format -d \"Logs are JSON lines\"\
         \n  graphex --store {d} link orders-service uses log-format\
         \n  graphex --store {d} deprecate log-format --reason \"replaced by OpenTelemetry\"\
         \n  graphex --store {d} keys export-agent /tmp/graphex-agent.id\
         \n  GRAPHEX_PASSPHRASE= GRAPHEX_AGENT_IDENTITY=/tmp/graphex-agent.id graphex --store {d} status\n"
    )
}

#[derive(Serialize)]
struct GenReport {
    store: String,
    nodes: usize,
    edges: usize,
    seed: u64,
    seconds: f64,
}

pub fn gen_store(ctx: &Context, a: &GenArgs) -> Result<()> {
    let root = absolute(&a.dir)?;
    if Layout::new(&root).db().exists() {
        bail!("{} already holds a store; gen makes a new one", root.display());
    }
    std::fs::create_dir_all(&root).with_context(|| format!("cannot create {}", root.display()))?;
    let env_or = |k: &str, d: &str| {
        SecretString::from(
            std::env::var(k)
                .ok()
                .filter(|v| !v.is_empty())
                .unwrap_or_else(|| d.to_owned()),
        )
    };
    let pass = env_or(ENV_PASSPHRASE, GEN_PASSPHRASE);
    let human = env_or(ENV_HUMAN_PASSPHRASE, GEN_HUMAN_PASSPHRASE);
    // Opened with the keys just made: no second run of the passphrase KDFs.
    let mut store = Store::create(&root, &pass, &human, kdf_cost()?)?;
    let started = Instant::now();
    let batch = generate(SynthSpec {
        nodes: a.nodes,
        edges: a.edges,
        seed: a.seed,
    });
    let (nodes, edges) = (batch.node_count(), batch.edge_count());
    store.apply_batch(batch, Durability::Deferred)?;
    store.checkpoint()?;
    let report = GenReport {
        store: root.display().to_string(),
        nodes,
        edges,
        seed: a.seed,
        seconds: started.elapsed().as_secs_f64(),
    };
    emit(ctx.json, &report, |r| {
        format!(
            "generated {} nodes and {} edges in {} ({:.2} s)\n",
            r.nodes, r.edges, r.store, r.seconds
        )
    })
}
