//! The review queue: one card per pending proposal, with lints, stale-base
//! state, its place in its session, and groups of proposals touching the
//! same node so a reviewer decides them together.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::Serialize;

use super::lint::{Lint, Mentions, lint_with};
use super::pending::Pending;
use super::stored::{ProposalId, StoredProposal};
use crate::model::Node;
use crate::store::Store;

/// What a reviewer sees for one proposal.
#[derive(Clone, Debug, Serialize)]
pub struct Card {
    pub id: ProposalId,
    #[serde(serialize_with = "crate::model::times_rfc3339")]
    pub proposal: StoredProposal,
    pub lints: Vec<Lint>,
    /// Nodes written by the proposal that changed since its base.
    pub stale: Vec<String>,
    /// Index into the groups, when another proposal touches the same node.
    pub group: Option<usize>,
    /// 1-based position within its agent session, and the session's size.
    pub position: (usize, usize),
    /// A merge proposal's three versions (base, ours, theirs).
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "crate::model::times_rfc3339"
    )]
    pub merge: Option<super::MergeSides>,
    /// For a revision: the rounds before it, oldest first (each proposal,
    /// the reviewer's request, the agent's replies).
    #[serde(
        skip_serializing_if = "Vec::is_empty",
        serialize_with = "crate::model::times_rfc3339"
    )]
    pub rounds: Vec<super::Round>,
    /// What does not hold in its conversation (see
    /// [`super::conversation_problems`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub revision_problems: Vec<String>,
}

/// A revision's earlier rounds and what does not hold in them; nothing
/// for a proposal that revises none.
fn earlier_rounds(
    store: &Store,
    p: &Pending,
    index: &super::siblings::RevisionIndex,
) -> (Vec<super::Round>, Vec<String>) {
    let Some(revises) = &p.proposal.submission.revises else {
        return (Vec::new(), Vec::new());
    };
    match store.conversation(&p.id) {
        Ok(mut rounds) => {
            let mut problems = super::conversation_problems(&rounds);
            problems.extend(store.sibling_problems(index, revises, &p.id));
            rounds.pop();
            (rounds, problems)
        }
        Err(e) => (Vec::new(), vec![format!("its earlier rounds cannot be read: {e}")]),
    }
}

/// Proposals that touch a common node.
#[derive(Clone, Debug, Serialize)]
pub struct Group {
    pub names: Vec<String>,
    pub proposals: Vec<ProposalId>,
}

/// A node a stale proposal writes: as the agent saw it, as it is now, and as
/// the proposal would leave it.
#[derive(Clone, Debug, Serialize)]
pub struct StaleNode {
    pub name: String,
    pub base: Option<Node>,
    pub current: Node,
    pub proposed: Node,
}

/// Cards for `pending` (in queue order), and the groups they form.
pub fn cards(store: &Store, pending: Vec<Pending>) -> (Vec<Card>, Vec<Group>) {
    let (mut cards, groups) = cards_unlinted(store, pending);
    let mentions = Mentions::new(store);
    for c in &mut cards {
        c.lints = lint_with(store, &mentions, &c.proposal);
    }
    (cards, groups)
}

/// [`cards`] without their lints (left empty), which cost the most on a
/// large store: a console shows these first and fills the lints in with
/// [`lint_with`].
pub fn cards_unlinted(store: &Store, pending: Vec<Pending>) -> (Vec<Card>, Vec<Group>) {
    let mut sessions: HashMap<(String, String), usize> = HashMap::new();
    for p in &pending {
        *sessions.entry(session_key(&p.proposal)).or_default() += 1;
    }
    let mut seen: HashMap<(String, String), usize> = HashMap::new();
    // Merge proposals' three versions, built once for the whole queue.
    let mut merges: HashMap<super::ProposalId, super::MergeSides> =
        if pending.iter().any(|p| p.proposal.source == super::Source::Merge) {
            store
                .merge_proposals()
                .map(|all| all.into_iter().map(|(id, _, sides)| (id, sides)).collect())
                .unwrap_or_default()
        } else {
            HashMap::new()
        };
    // Which proposals revise which, built once, and only for a queue that
    // holds a revision.
    let revisions = if pending.iter().any(|p| p.proposal.submission.revises.is_some()) {
        store.revision_index().unwrap_or_default()
    } else {
        super::siblings::RevisionIndex::new()
    };
    let mut by_name: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    let mut cards: Vec<Card> = pending
        .into_iter()
        .enumerate()
        .map(|(i, p)| {
            let key = session_key(&p.proposal);
            let n = seen.entry(key.clone()).or_default();
            *n += 1;
            for c in &p.proposal.submission.changes {
                for name in c.modifies().into_iter().chain(added_name(c)) {
                    let list = by_name.entry(name.to_string()).or_default();
                    if !list.contains(&i) {
                        list.push(i);
                    }
                }
            }
            let all: Vec<usize> = (0..p.proposal.submission.changes.len()).collect();
            let merge = merges.remove(&p.id);
            let (rounds, revision_problems) = earlier_rounds(store, &p, &revisions);
            Card {
                merge,
                rounds,
                revision_problems,
                lints: Vec::new(),
                stale: store.stale_names(&p.proposal, &all),
                group: None,
                position: (*n, sessions[&key]),
                id: p.id,
                proposal: p.proposal,
            }
        })
        .collect();
    // Union of proposals sharing a name, smallest index as the root.
    let mut root: Vec<usize> = (0..cards.len()).collect();
    fn find(root: &mut [usize], i: usize) -> usize {
        let mut r = i;
        while root[r] != r {
            r = root[r];
        }
        root[i] = r;
        r
    }
    for list in by_name.values().filter(|l| l.len() > 1) {
        for w in list.windows(2) {
            let (a, b) = (find(&mut root, w[0]), find(&mut root, w[1]));
            root[a.max(b)] = a.min(b);
        }
    }
    let mut groups: Vec<Group> = Vec::new();
    let mut group_of_root: HashMap<usize, usize> = HashMap::new();
    let roots: Vec<usize> = (0..cards.len()).map(|i| find(&mut root, i)).collect();
    let mut size: HashMap<usize, usize> = HashMap::new();
    for r in &roots {
        *size.entry(*r).or_default() += 1;
    }
    for i in 0..cards.len() {
        let r = roots[i];
        if size[&r] < 2 {
            continue;
        }
        let g = *group_of_root.entry(r).or_insert_with(|| {
            groups.push(Group {
                names: Vec::new(),
                proposals: Vec::new(),
            });
            groups.len() - 1
        });
        groups[g].proposals.push(cards[i].id.clone());
        cards[i].group = Some(g);
    }
    for (name, list) in &by_name {
        if list.len() > 1
            && let Some(g) = cards[list[0]].group
        {
            groups[g].names.push(name.clone());
        }
    }
    for g in &mut groups {
        g.names = g.names.iter().cloned().collect::<BTreeSet<_>>().into_iter().collect();
    }
    (cards, groups)
}

fn session_key(p: &StoredProposal) -> (String, String) {
    (p.submission.agent.clone(), p.submission.session.clone())
}

fn added_name(c: &super::Change) -> Option<&crate::model::Name> {
    match c {
        super::Change::AddNode { name, .. } => Some(name),
        _ => None,
    }
}

/// For each stale node `p` writes: the version the agent saw, the current
/// one, and the current one with the proposal's changes applied.
pub fn stale_versions(store: &Store, p: &StoredProposal) -> crate::error::Result<Vec<StaleNode>> {
    let all: Vec<usize> = (0..p.submission.changes.len()).collect();
    let mut out = Vec::new();
    for name in store.stale_names(p, &all) {
        let current = store.node(&name)?;
        let base = match p.bases.iter().find(|(n, _)| n.as_str() == name).and_then(|(_, v)| *v) {
            Some(v) if v <= current.version => Some(store.node_version(&current.id, v)?),
            _ => None,
        };
        let mut proposed = current.clone();
        for c in &p.submission.changes {
            if !c.modifies().iter().any(|n| n.as_str() == name) {
                continue;
            }
            match c {
                super::Change::UpdateNode { set, .. } => proposed = set.patch().apply(&proposed),
                super::Change::Restore { reason, .. } => {
                    proposed.status = crate::model::Status::Active;
                    proposed.status_reason.clone_from(reason);
                }
                super::Change::Deprecate { reason, .. } => {
                    proposed.status = crate::model::Status::Deprecated;
                    proposed.status_reason.clone_from(reason);
                }
                super::Change::Archive { reason, .. } => {
                    proposed.status = crate::model::Status::Archived;
                    proposed.status_reason.clone_from(reason);
                }
                super::Change::Supersede { new, .. } => {
                    proposed.status = crate::model::Status::Deprecated;
                    proposed.status_reason = Some(format!("superseded by {new}"));
                }
                _ => {}
            }
        }
        out.push(StaleNode {
            name,
            base,
            current,
            proposed,
        });
    }
    Ok(out)
}

/// A short digest of a set of proposal ids: what a reviewer saw of a
/// session, so a batch decision can refuse a set that changed since.
pub fn batch_digest<'a>(ids: impl IntoIterator<Item = &'a ProposalId>) -> String {
    let mut sorted: Vec<&str> = ids.into_iter().map(ProposalId::as_str).collect();
    sorted.sort_unstable();
    crate::crypto::sha256_hex(sorted.join("\n").as_bytes())[..8].to_owned()
}
