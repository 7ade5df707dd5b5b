//! The workflow and review tools: explorations (a draft proposal built
//! over several calls, then submitted as one or abandoned), changesets,
//! and the agent's side of a review conversation (its proposals' states,
//! its comments).

use graphex_engine::proposal::Ledger;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::{tool, tool_router};
use serde_json::json;

use super::args::{
    BeginExplorationArgs, EndExplorationArgs, ExplorationResult, ProposeChangesetArgs, ReviewCommentArgs,
    ReviewListArgs,
};
use super::propose_tools::poisoned;
use super::{GraphexServer, ToolResult};

/// A rationale from its parts, the empty ones left out.
fn rationale(parts: &[&str]) -> String {
    parts
        .iter()
        .map(|p| p.trim())
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n")
}

#[tool_router(router = review_router, vis = "pub(super)")]
impl GraphexServer {
    /// Open an exploration: a draft proposal. graphex_propose_* calls with its id add to it instead of submitting; end_exploration submits it as one proposal or abandons it. Returns its id.
    #[tool]
    async fn begin_exploration(&self, Parameters(a): Parameters<BeginExplorationArgs>) -> ToolResult {
        let id = self
            .drafts
            .lock()
            .map_err(|_| poisoned())?
            .begin(&a.name, a.description.as_deref().unwrap_or_default())?;
        Ok(pretty(&json!({
            "exploration": id,
            "note": "pass it as `exploration` to graphex_propose_*; nothing is submitted until end_exploration \
                     (accept) or propose_changeset",
        })))
    }

    /// End an exploration: accept submits every change made in it as one proposal for human review; abandon discards it.
    #[tool]
    async fn end_exploration(&self, Parameters(a): Parameters<EndExplorationArgs>) -> ToolResult {
        let draft = {
            let mut drafts = self.drafts.lock().map_err(|_| poisoned())?;
            let (_, d) = drafts.pick(Some(&a.exploration))?;
            if matches!(a.result, ExplorationResult::Accept) && d.changes.is_empty() {
                return Err(format!(
                    "exploration {} holds no change: abandon it, or add changes first",
                    a.exploration
                ));
            }
            drafts.end(&a.exploration)?
        };
        match a.result {
            ExplorationResult::Abandon => Ok(pretty(&json!({
                "exploration": a.exploration,
                "result": "abandoned",
                "discarded_changes": draft.changes.len(),
            }))),
            ExplorationResult::Accept => {
                let why = rationale(&[
                    &draft.description,
                    a.message.as_deref().unwrap_or_default(),
                    &format!("(exploration {})", draft.name),
                ]);
                let n = draft.changes.len();
                match self.submit(draft.changes.clone(), why, None).await {
                    Ok(said) => Ok(format!("exploration {} ({n} change(s)): {said}", a.exploration)),
                    Err(e) => {
                        // Nothing submitted: the exploration stays open.
                        self.reopen(&a.exploration, draft)?;
                        Err(e)
                    }
                }
            }
        }
    }

    /// Submit an exploration's changes (the only open one, or the one named) as one proposal, with a message and an intent.
    #[tool]
    async fn propose_changeset(&self, Parameters(a): Parameters<ProposeChangesetArgs>) -> ToolResult {
        if a.intent.trim().is_empty() || a.intent.contains('\n') || a.intent.len() > 64 {
            return Err("intent is one short line: fix, feature, refactor, documentation, …".into());
        }
        if a.message.trim().is_empty() {
            return Err("say what the changeset does in message".into());
        }
        let (id, draft) = {
            let mut drafts = self.drafts.lock().map_err(|_| poisoned())?;
            let (id, d) = drafts.pick(a.exploration.as_deref())?;
            if d.changes.is_empty() {
                return Err(format!("exploration {id} holds no change yet"));
            }
            let d = drafts.end(&id)?;
            (id, d)
        };
        let why = rationale(&[
            &format!("{}: {}", a.intent.trim(), a.message.trim()),
            &draft.description,
            &format!("(exploration {})", draft.name),
        ]);
        match self.submit(draft.changes.clone(), why, a.revises).await {
            Ok(said) => Ok(format!("changeset from exploration {id}: {said}")),
            Err(e) => {
                self.reopen(&id, draft)?;
                Err(e)
            }
        }
    }

    /// Your proposals and where each stands in review: pending, accepted, rejected (with the reason), changes-requested (with the reviewer's comment and the change it is on), revised (with the revision's id). Newest first.
    #[tool(annotations(read_only_hint = true))]
    async fn review_list(&self, Parameters(a): Parameters<ReviewListArgs>) -> ToolResult {
        self.with_store(move |store, agent| {
            let Some(ledger) = Ledger::for_store(store.layout().root(), &agent.agent) else {
                return Ok(pretty(
                    &json!({"proposals": [], "note": "no state directory to keep your list in"}),
                ));
            };
            let mut items = store.review_list(&ledger.entries()?)?;
            if let Some(s) = a.state {
                items.retain(|i| i.state == s.as_str());
            }
            Ok(pretty(&json!({"proposals": items})))
        })
        .await
    }

    /// Comment on one of your proposals (the answer to a reviewer's request for changes), on the whole or on one change. Sealed for the reviewers. Then submit the revision with `revises`.
    #[tool]
    async fn review_comment(&self, Parameters(a): Parameters<ReviewCommentArgs>) -> ToolResult {
        self.with_store(move |store, agent| {
            let id = store.comment(&agent.agent, &agent.session, &a.proposal, a.change, &a.comment)?;
            Ok(pretty(&json!({
                "comment": id.as_str(),
                "on": store.resolve_proposal(&a.proposal)?.as_str(),
                "note": "sealed for the reviewers; they see it with the proposal's revision",
            })))
        })
        .await
    }
}

impl GraphexServer {
    /// Puts an exploration back after a failed submit.
    fn reopen(&self, id: &str, draft: super::drafts::Draft) -> Result<(), String> {
        self.drafts.lock().map_err(|_| poisoned())?.restore(id, draft);
        Ok(())
    }
}

fn pretty(v: &serde_json::Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}
