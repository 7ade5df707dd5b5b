//! The security reviewer's views beside the previews: exposure (what each
//! tier holds and adds, and the leak findings) and the audit browser (the
//! projection and preview records, filtered by agent and date, the chain's
//! verify state, a record replayed from that time's node versions, and two
//! records diffed). Built on the worker from what the session reads.

use graphex_engine::exposure::FindingKind;
use graphex_engine::model::Timestamp;
use graphex_engine::project::Settings;
use graphex_engine::store::Store;

/// What each tier holds and adds, and the findings.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ExposureView {
    pub covers_up_to: String,
    /// (tier, nodes, edges, the names it adds over the tier below).
    pub tiers: Vec<(String, u64, u64, Vec<String>)>,
    /// The findings, the most severe kind first and by node within a kind.
    pub findings: Vec<FindingRow>,
}

/// One finding as the view lists it.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FindingRow {
    pub kind: FindingKind,
    /// The finding in words, its lint left to the group's heading, made
    /// safe to show on one line (it quotes property keys).
    pub text: String,
    /// The node it is about, to open and fix.
    pub node: String,
}

/// One audit record as the browser lists it.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AuditRow {
    pub seq: u64,
    pub at: String,
    pub kind: String,
    /// Empty when this session cannot read the record's tier.
    pub agent: String,
    pub trust: Option<f64>,
    pub tier: String,
    pub centre: String,
    pub tokens: usize,
    pub hash: String,
    pub readable: bool,
}

/// The audit log as the browser shows it.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AuditView {
    /// The chain verifies: (ok, records, problems).
    pub verify: (bool, u64, Vec<String>),
    pub rows: Vec<AuditRow>,
    /// Every agent in the log, for the filter.
    pub agents: Vec<String>,
}

/// A record rebuilt: its text from that time's node versions, and whether
/// it hashes as recorded.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ReplayView {
    pub seq: u64,
    pub at: String,
    pub agent: String,
    pub text: String,
    pub matches: bool,
}

pub fn exposure(store: &Store) -> Result<ExposureView, String> {
    let r = store.exposure().map_err(|e| e.to_string())?;
    Ok(ExposureView {
        covers_up_to: r.covers_up_to.to_string(),
        tiers: r
            .tiers
            .iter()
            .map(|t| (t.tier.to_string(), t.nodes, t.edges, t.adds.clone()))
            .collect(),
        findings: r
            .findings
            .iter()
            .map(|f| {
                let line = f.to_string();
                let text = line.strip_prefix(&format!("{}: ", f.kind().lint())).unwrap_or(&line);
                FindingRow {
                    kind: f.kind(),
                    text: graphex_engine::hygiene::visible_line(text).into_owned(),
                    node: f.node().to_owned(),
                }
            })
            .collect(),
    })
}

pub fn audit(store: &Store, agent: Option<&str>, since: Option<Timestamp>) -> Result<AuditView, String> {
    let v = store.audit_verify().map_err(|e| e.to_string())?;
    let all = store.audit_list(None, None, usize::MAX).map_err(|e| e.to_string())?;
    let mut agents: Vec<String> = all
        .iter()
        .filter_map(|e| e.record.as_ref().map(|r| r.agent.clone()))
        .collect();
    agents.sort();
    agents.dedup();
    let rows = store
        .audit_list(agent, since, 500)
        .map_err(|e| e.to_string())?
        .into_iter()
        .map(|e| {
            let r = e.record.as_ref();
            AuditRow {
                seq: e.seq,
                at: e.at.clone(),
                kind: e.kind.clone(),
                agent: r
                    .map(|r| graphex_engine::hygiene::visible_line(&r.agent).into_owned())
                    .unwrap_or_default(),
                trust: r.and_then(|r| r.trust),
                tier: r.map_or_else(|| e.sealed_at.to_string(), |r| r.tier.to_string()),
                centre: r
                    .map(|r| {
                        let centre = graphex_engine::hygiene::visible_line(&r.center);
                        // A cost record says what the agent reports it
                        // spent, then on what; a step of its work, what it did.
                        match (&r.activity, &r.cost) {
                            (Some(a), _) => crate::shared::audit_text::activity(a),
                            (None, Some(c)) => crate::shared::audit_text::cost(c, &centre),
                            (None, None) => centre.into_owned(),
                        }
                    })
                    .unwrap_or_default(),
                tokens: r.map_or(0, |r| r.tokens),
                hash: r.map(|r| r.projection_hash.clone()).unwrap_or_default(),
                readable: r.is_some() && !e.corrupt,
            }
        })
        .collect();
    Ok(AuditView {
        verify: (v.ok, v.records, v.problems),
        rows,
        agents,
    })
}

/// Replays the records with these projection hashes, in order.
pub fn replay(store: &Store, settings: &Settings, hashes: &[String]) -> Result<Vec<ReplayView>, String> {
    hashes
        .iter()
        .map(|h| {
            let r = store.audit_replay(h, settings).map_err(|e| e.to_string())?;
            Ok(ReplayView {
                seq: r.seq,
                at: r.record.at.to_rfc3339(),
                agent: graphex_engine::hygiene::visible_line(&r.record.agent).into_owned(),
                text: r.text,
                matches: r.matches,
            })
        })
        .collect()
}
