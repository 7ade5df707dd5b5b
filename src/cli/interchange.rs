//! `export` and `import`: the graph out as json, jsonl, graphml, dot or
//! mermaid (never above the session's level), and node-link, kgraph, Ash
//! JSONL or our own json in, in one commit or as one proposal.

use std::path::Path;

use anyhow::{Context as _, Result, bail};
use graphex_engine::hygiene::{json_safe, visible_text};
use graphex_engine::interchange::{self, ExportOptions, ImportFormat};
use graphex_engine::interchange::{DEFAULT_IMPORT_TIER, ImportOptions, ImportReport};
use graphex_engine::model::{Provenance, Tier};
use graphex_engine::proposal::{self, MAX_CHANGES, Submission};
use serde::Serialize;

use super::io_args::{ExportArgs, ExportFormat, ImportArgs, ImportFormatArg};
use super::output::{emit, note};
use super::session::{Context, Need};

pub fn export(ctx: &Context, a: &ExportArgs) -> Result<()> {
    let tier = a.tier.as_deref().map(str::parse::<Tier>).transpose()?;
    if a.node.is_some() && !(1..=graphex_engine::query::MAX_DEPTH).contains(&a.depth) {
        bail!("--depth must be from 1 to {}", graphex_engine::query::MAX_DEPTH);
    }
    let store = ctx.open(Need::Read)?;
    let opts = ExportOptions {
        tier,
        center: a.node.clone(),
        depth: a.depth,
        versions: a.versions,
    };
    let doc = match interchange::export(&store, &opts) {
        Err(graphex_engine::Error::NotFound(name)) => return Err(super::read::not_found(&store, &name)),
        r => r?,
    };
    let what = format!(
        "{} node(s), {} edge(s), up to {}",
        doc.nodes.len(),
        doc.edges.len(),
        doc.tier_cap
    );
    // A large JSONL export goes to its file a line at a time, never held
    // whole as text (the same bytes as below).
    if let (ExportFormat::Jsonl, Some(file)) = (a.format, &a.output) {
        stream_new(file, |out| interchange::write_jsonl(&doc, out))?;
        note(&exported_note(&what, file));
        return Ok(());
    }
    let text = match a.format {
        ExportFormat::Json => serde_json::to_string_pretty(&doc)? + "\n",
        ExportFormat::Jsonl => interchange::jsonl(&doc)?,
        ExportFormat::Graphml => interchange::graphml(&doc)?,
        ExportFormat::Dot => interchange::dot(&doc),
        ExportFormat::Mermaid => interchange::mermaid(&doc),
    };
    match &a.output {
        Some(file) => {
            write_new(file, &text)?;
            note(&exported_note(&what, file));
        }
        None => {
            // Piped text keeps no terminal controls: JSON escapes them, the
            // diagrams show them.
            let safe = match a.format {
                ExportFormat::Json | ExportFormat::Jsonl => json_safe(&text),
                _ => visible_text(&text),
            };
            super::output::write_stdout(safe.as_bytes())?;
        }
    }
    Ok(())
}

fn exported_note(what: &str, file: &Path) -> String {
    format!(
        "exported {what} to {} (decrypted content, mode 0600: keep it out of the repository)",
        file.display()
    )
}

/// Writes `text` to `file`, which must not exist: 0600, synced.
fn write_new(file: &Path, text: &str) -> Result<()> {
    stream_new(file, |out| {
        out.write_all(text.as_bytes())
            .map_err(|e| graphex_engine::Error::io(file, e))
    })
}

/// Creates `file`, which must not exist (0600), has `write` fill it
/// through a buffer, and syncs it.
fn stream_new(file: &Path, write: impl FnOnce(&mut dyn std::io::Write) -> graphex_engine::Result<()>) -> Result<()> {
    let created = match graphex_engine::keys::files::create_private(file) {
        Ok(f) => f,
        Err(graphex_engine::Error::Io { source, .. }) if source.kind() == std::io::ErrorKind::AlreadyExists => {
            bail!("{} already exists; export to a new file name", file.display())
        }
        Err(e) => return Err(e).with_context(|| format!("cannot write {}", file.display())),
    };
    let mut out = std::io::BufWriter::with_capacity(1 << 20, created);
    write(&mut out)
        .and_then(|()| {
            out.into_inner()
                .map_err(|e| graphex_engine::Error::io(file, e.into_error()))?
                .sync_all()
                .map_err(|e| graphex_engine::Error::io(file, e))
        })
        .with_context(|| format!("cannot write {}", file.display()))
}

/// The input parsed before, or parsed again when it was used up.
fn parse_once(
    parsed: &mut Option<interchange::Mapped>,
    parse: &dyn Fn() -> graphex_engine::Result<interchange::Mapped>,
) -> graphex_engine::Result<interchange::Mapped> {
    parsed.take().map_or_else(parse, Ok)
}

#[derive(Serialize)]
struct ImportView<'a> {
    file: String,
    format: ImportFormat,
    dry_run: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    proposal: Option<String>,
    #[serde(flatten)]
    report: &'a ImportReport,
}

fn names(label: &str, list: &[String]) -> String {
    if list.is_empty() {
        return String::new();
    }
    const SHOWN: usize = 30;
    let mut s = format!(
        "  {label}: {}",
        list.iter().take(SHOWN).cloned().collect::<Vec<_>>().join(", ")
    );
    if list.len() > SHOWN {
        s.push_str(&format!(" … and {} more", list.len() - SHOWN));
    }
    s.push('\n');
    s
}

fn summary_text(v: &ImportView<'_>) -> String {
    let r = v.report;
    let mut s = format!(
        "import {} {}: {} added, {} changed, {} unchanged, {} refused; edges: {} added, {} unchanged\n",
        v.format,
        v.file,
        r.added.len(),
        r.changed.len(),
        r.unchanged.len(),
        r.refused_count,
        r.edges_added.len(),
        r.edges_unchanged
    );
    s.push_str(&names("added", &r.added));
    s.push_str(&names("changed (new versions)", &r.changed));
    s.push_str(&names("unchanged", &r.unchanged));
    s.push_str(&names("kept at their higher tier", &r.tier_kept));
    s.push_str(&names("edges added", &r.edges_added));
    for f in &r.refused {
        s.push_str(&format!("  refused: {f}\n"));
    }
    if r.refused_count > r.refused.len() {
        s.push_str(&format!("  … and {} more refused\n", r.refused_count - r.refused.len()));
    }
    if v.dry_run {
        s.push_str("dry run: nothing written\n");
    } else if r.refused_count > 0 {
        s.push_str("nothing written\n");
    }
    if let Some(id) = &v.proposal {
        s.push_str(&format!("proposal {id} is in the queue: `graphex pending`\n"));
    }
    s
}

pub fn import(ctx: &Context, a: &ImportArgs) -> Result<()> {
    let format = match a.format {
        ImportFormatArg::NodeLink => ImportFormat::NodeLink,
        ImportFormatArg::Kgraph => ImportFormat::Kgraph,
        ImportFormatArg::AshJsonl => ImportFormat::AshJsonl,
        ImportFormatArg::Json => ImportFormat::Json,
    };
    let mut tier = a.tier.as_deref().map(str::parse::<Tier>).transpose()?;
    if a.as_proposal && tier.is_none() && format != ImportFormat::Json {
        // The most a proposal may ask for; a reviewer can raise it.
        tier = Some(Tier::AgentReadable);
    }
    let files = interchange::input_files(&a.file, format == ImportFormat::AshJsonl)?;
    // Read as a stream; planning consumes it, so a retry (another process
    // committed meanwhile) reads the files again rather than keep a copy.
    let labels = sensitivity_map(format, &a.sensitivity)?;
    let parse = || {
        interchange::parse_files(format, &a.file, &files).map(|mut m| {
            interchange::ash_meaning::remap_sensitivity(&mut m, &labels);
            m
        })
    };
    let file_name = a
        .file
        .file_name()
        .map_or_else(|| a.file.display().to_string(), |n| n.to_string_lossy().into_owned());
    let actor: String = format!("import {format} {file_name}").chars().take(100).collect();
    let opts = ImportOptions {
        tier,
        file: a.file.display().to_string(),
        actor: actor.clone(),
        provenance: Provenance::Inferred { source: actor.clone() },
    };
    let need = if a.as_proposal { Need::Read } else { Need::Write };
    // The input is parsed on a second thread while the store opens (its
    // passphrase KDF), unless the open asks for a passphrase: then a file
    // that does not parse is named before anyone types one.
    let (mapped, store) = if ctx.would_prompt(need) {
        let mapped = parse()?;
        (mapped, ctx.open(need)?)
    } else {
        std::thread::scope(|scope| -> Result<_> {
            let parsing = scope.spawn(parse);
            let store = ctx.open(need);
            let mapped = parsing
                .join()
                .map_err(|_| anyhow::anyhow!("the thread parsing the input failed"))??;
            Ok((mapped, store?))
        })?
    };
    let mut mapped = Some(mapped);
    let mut store = store;
    let view = |report: &ImportReport, proposal: Option<String>, dry_run: bool| -> Result<()> {
        let v = ImportView {
            file: a.file.display().to_string(),
            format,
            dry_run,
            proposal,
            report,
        };
        emit(ctx.json, &v, summary_text)
    };
    if a.dry_run {
        let plan = store.plan_import_owned(parse_once(&mut mapped, &parse)?, &opts)?;
        return view(&plan.report, None, true);
    }
    if a.as_proposal {
        let plan = store.plan_import_proposal(parse_once(&mut mapped, &parse)?, &opts)?;
        if plan.refused() {
            view(&plan.report, None, false)?;
            bail!("{} item(s) refused; nothing proposed", plan.report.refused_count);
        }
        let changes = plan.changes();
        if changes.is_empty() {
            view(&plan.report, None, false)?;
            note("nothing to propose: the graph already holds all of it");
            return Ok(());
        }
        if changes.len() > MAX_CHANGES {
            bail!(
                "{}: {} changes; a proposal holds at most {MAX_CHANGES}: import it directly, or split the file",
                a.file.display(),
                changes.len()
            );
        }
        let sub = Submission {
            revises: None,
            agent: "import".into(),
            trust: 100.0,
            session: actor.clone(),
            rationale: format!("Import of {} ({format}).", a.file.display()),
            changes,
        };
        let settings = super::output::config_in_force(&store)?.projection_settings()?;
        super::proposals::warn_unauthenticated_recipient(&store);
        let id = proposal::submit(&mut store, &settings.policy, sub, proposal::Source::Cli)?;
        return view(&plan.report, Some(id.short().to_string()), false);
    }
    let mut refused = None;
    let report = store.retrying(|s| {
        let plan = s.plan_import_owned(parse_once(&mut mapped, &parse)?, &opts)?;
        if plan.refused() {
            refused = Some(plan.report.clone());
            return Ok(plan.report);
        }
        s.apply_import(plan, &actor)
    })?;
    view(&report, None, false)?;
    if let Some(r) = refused {
        bail!(
            "{} item(s) refused; nothing written (each is named above, with its file and item)",
            r.refused_count
        );
    }
    if tier.is_none() && format != ImportFormat::Json && !report.added.is_empty() && !ctx.json {
        note(&format!(
            "new nodes are {DEFAULT_IMPORT_TIER} (never sent to agents but trusted local ones); give --tier to choose"
        ));
    }
    Ok(())
}

/// `--sensitivity LABEL=TIER`, each checked: for ash-jsonl only.
fn sensitivity_map(format: ImportFormat, given: &[String]) -> Result<std::collections::BTreeMap<String, Tier>> {
    if !given.is_empty() && format != ImportFormat::AshJsonl {
        bail!("--sensitivity maps Ash's sensitivity labels: it applies to --format ash-jsonl only");
    }
    given
        .iter()
        .map(|pair| {
            let (label, tier) = pair
                .split_once('=')
                .with_context(|| format!("--sensitivity {pair:?}: give LABEL=TIER, e.g. PERSONAL=human-only"))?;
            let label = label.trim().to_ascii_uppercase();
            if label.is_empty() {
                bail!("--sensitivity {pair:?}: the label is empty");
            }
            let tier = tier
                .trim()
                .parse::<Tier>()
                .with_context(|| format!("--sensitivity {pair:?}: {tier:?} is not a tier"))?;
            Ok((label, tier))
        })
        .collect()
}
