//! What the engine worker does for the Query pane: evaluate a query into
//! the pane's view model, complete the word under the cursor, and render
//! the results as JSON, Mermaid or DOT for a file or the clipboard. Plain
//! functions of the open store.

use std::path::Path;

use graphex_engine::hygiene::json_safe;
use graphex_engine::model::Timestamp;
use graphex_engine::query::complete::{self, Candidate};
use graphex_engine::query::{QueryError, QueryOutput, run};
use graphex_engine::store::Store;

/// How many candidates the completion shows.
pub const COMPLETIONS: usize = 12;

/// One edge of a result path, seen along the path.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Step {
    pub relation: String,
    pub confidence: f64,
    /// The edge points along the path (from the node before to the next).
    pub forward: bool,
    pub bidirectional: bool,
}

/// One result path: its nodes (name, type) and the edges between them.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PathRow {
    pub nodes: Vec<(String, String)>,
    pub steps: Vec<Step>,
}

/// A query's results as the pane shows them.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ResultsView {
    pub paths: Vec<PathRow>,
    pub total: usize,
    pub truncated: bool,
    /// The spec's JSON response, pretty, one entry per line.
    pub json: Vec<String>,
}

/// What is wrong with the query, where, and what might be meant.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ErrorView {
    pub message: String,
    /// Byte span in the query text.
    pub span: (usize, usize),
    pub candidates: Vec<String>,
}

impl From<&QueryError> for ErrorView {
    fn from(e: &QueryError) -> Self {
        Self {
            message: e.to_string(),
            span: (e.span.start, e.span.end),
            candidates: e.candidates.clone(),
        }
    }
}

fn view(out: &QueryOutput) -> ResultsView {
    let json = serde_json::to_string_pretty(&out.to_json()).unwrap_or_default();
    ResultsView {
        paths: out
            .paths
            .iter()
            .map(|p| PathRow {
                nodes: p
                    .nodes
                    .iter()
                    .map(|n| (n.name.to_string(), n.node_type.to_string()))
                    .collect(),
                steps: p
                    .edges
                    .iter()
                    .zip(p.nodes.iter().skip(1))
                    .map(|(e, next)| Step {
                        relation: e.relation.to_string(),
                        confidence: e.confidence,
                        forward: e.to == next.id,
                        bidirectional: e.bidirectional,
                    })
                    .collect(),
            })
            .collect(),
        total: out.total_results,
        truncated: out.truncated,
        json: json_safe(&json).lines().map(str::to_owned).collect(),
    }
}

/// Evaluates `text` on what the session reads.
pub fn evaluate(store: &Store, text: &str) -> Result<ResultsView, ErrorView> {
    run(store.catalog(), text)
        .map(|o| view(&o))
        .map_err(|e| ErrorView::from(&e))
}

/// What the completion offers at byte `cursor` of `text`: the candidates,
/// the bytes a choice replaces, and the help of the flag there.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Completion {
    pub items: Vec<Candidate>,
    pub replace: (usize, usize),
    pub signature: Option<String>,
}

pub fn complete(store: &Store, text: &str, cursor: usize, now: Timestamp) -> Completion {
    let ctx = complete::context(text, cursor);
    Completion {
        items: complete::candidates(store.catalog(), &ctx, now, COMPLETIONS),
        replace: ctx.replace,
        signature: complete::flag_at(text, cursor)
            .and_then(complete::flag_help)
            .map(str::to_owned),
    }
}

/// The formats results are copied or exported in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Format {
    Json,
    Mermaid,
    Dot,
}

impl Format {
    /// By a file's extension.
    pub fn of(path: &Path) -> Result<Self, String> {
        match path.extension().and_then(|e| e.to_str()) {
            Some("json") => Ok(Format::Json),
            Some("mmd" | "mermaid") => Ok(Format::Mermaid),
            Some("dot" | "gv") => Ok(Format::Dot),
            _ => Err(format!(
                "{}: name the file .json, .mmd (Mermaid) or .dot (DOT)",
                path.display()
            )),
        }
    }
}

/// The results of `text` as `format`.
pub fn render(store: &Store, text: &str, format: Format) -> Result<String, String> {
    let out = run(store.catalog(), text).map_err(|e| e.to_string())?;
    Ok(match format {
        Format::Json => {
            let json = serde_json::to_string_pretty(&out.to_json()).map_err(|e| e.to_string())?;
            json_safe(&json).into_owned() + "\n"
        }
        Format::Mermaid => out.to_mermaid(),
        Format::Dot => out.to_dot(),
    })
}

/// Writes the results of `text` to a new file (never over one), readable by
/// its owner only: it holds the names matched, in plain text.
pub fn export(store: &Store, text: &str, file: &Path) -> Result<String, String> {
    let format = Format::of(file)?;
    let body = render(store, text, format)?;
    crate::app::new_file::write_new(file, &body)?;
    Ok(format!("exported the results to {}", file.display()))
}
