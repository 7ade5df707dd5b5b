//! Lints a reviewer sees on a proposal: leaked credentials, lowered tiers,
//! dangling endpoints, near-duplicate names and edges across tiers.

use std::collections::HashMap;
use std::sync::OnceLock;

use serde::Serialize;

use super::change::Change;
use super::stored::StoredProposal;
use crate::lookup::{NameScan, NearNames};
use crate::model::{Status, Tier};
use crate::store::Store;

/// One finding. `change` is the 1-based change number (0: the rationale).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "lint", rename_all = "kebab-case")]
pub enum Lint {
    /// Text that has the shape of a credential (never echoed).
    Credential { change: usize, kind: String },
    /// An update that lowers a node's tier.
    TierLowered {
        change: usize,
        name: String,
        from: Tier,
        to: Tier,
    },
    /// An edge endpoint that is neither in the graph nor added here.
    Dangling { change: usize, name: String },
    /// A name the reviewer's unlock level cannot read.
    Hidden { change: usize, name: String },
    /// A new node whose name is close to an existing one.
    NearDuplicate {
        change: usize,
        name: String,
        existing: String,
    },
    /// A new node whose name is already taken.
    NameTaken { change: usize, name: String },
    /// Text at one tier that names a node of a more secret tier.
    MentionsHigher {
        change: usize,
        name: String,
        tier: Tier,
        mentions: String,
        mentioned_tier: Tier,
    },
    /// A tier, or a node written, above what any agent may read: only a
    /// file sealed outside `graphex propose` can ask for it.
    AboveAgentTier { change: usize, name: String, tier: Tier },
    /// A change to a node pulled from another project (read-only here), an
    /// edge from one, or a node given the property only a pull sets.
    Federated {
        change: usize,
        name: String,
        origin: String,
    },
    /// An edge joining a node agents may read to a restricted or human-only one.
    CrossTier {
        change: usize,
        edge: String,
        lower: String,
        lower_tier: Tier,
        higher: String,
        higher_tier: Tier,
    },
    /// An edge to remove that is not in the graph as the reviewer reads it
    /// (removed since it was proposed, or never there): accepting it fails.
    NoSuchEdge { change: usize, edge: String },
    /// A lifecycle move the node's status (as earlier changes leave it) does
    /// not allow, such as archiving an active node: accepting it fails.
    Lifecycle {
        change: usize,
        name: String,
        from: Status,
        to: Status,
    },
    /// An edge to remove sealed above what the proposer reads: accepting
    /// would tell the agent that it exists, so accepting it is refused.
    UnreadableEdge {
        change: usize,
        edge: String,
        tier: Tier,
        proposer_tier: Tier,
    },
    /// The same edge removed by an earlier change of the proposal.
    DuplicateRemoval { change: usize, edge: String, first: usize },
    /// An edge from a node to itself: accepting it fails.
    SelfLoop { change: usize, name: String },
    /// Accepting the whole proposal fails, for a reason no other lint
    /// names (found by running accept's checks without writing).
    CannotApply { reason: String },
}

impl Lint {
    /// The lint's short name (`credential`, ...).
    pub fn code(&self) -> &'static str {
        match self {
            Lint::Credential { .. } => "credential",
            Lint::TierLowered { .. } => "tier-lowered",
            Lint::Dangling { .. } => "dangling",
            Lint::Hidden { .. } => "hidden",
            Lint::NearDuplicate { .. } => "near-duplicate",
            Lint::NameTaken { .. } => "name-taken",
            Lint::MentionsHigher { .. } => "mentions-higher",
            Lint::AboveAgentTier { .. } => "above-agent-tier",
            Lint::CrossTier { .. } => "cross-tier",
            Lint::NoSuchEdge { .. } => "no-such-edge",
            Lint::Lifecycle { .. } => "lifecycle",
            Lint::UnreadableEdge { .. } => "unreadable-edge",
            Lint::DuplicateRemoval { .. } => "duplicate-removal",
            Lint::Federated { .. } => "federated",
            Lint::SelfLoop { .. } => "self-loop",
            Lint::CannotApply { .. } => "cannot-apply",
        }
    }

    /// Whether accepting the proposal as it is fails because of it.
    pub fn accept_fails(&self) -> bool {
        matches!(
            self,
            Lint::Dangling { .. }
                | Lint::Hidden { .. }
                | Lint::NameTaken { .. }
                | Lint::Federated { .. }
                | Lint::NoSuchEdge { .. }
                | Lint::Lifecycle { .. }
                | Lint::UnreadableEdge { .. }
                | Lint::SelfLoop { .. }
                | Lint::CannotApply { .. }
        )
    }

    /// A sentence for people.
    pub fn explain(&self) -> String {
        match self {
            Lint::Credential { change, kind } => {
                format!("change {change}: contains what looks like {kind}; reject it, or edit the secret out")
            }
            Lint::TierLowered { change, name, from, to } => format!(
                "change {change}: lowers {name} from {from} to {to}, exposing it (and its history) to more readers"
            ),
            Lint::Dangling { change, name } => {
                format!("change {change}: {name} is not in the graph and not added by this proposal")
            }
            Lint::Hidden { change, name } => {
                format!("change {change}: {name} is a node your unlock level cannot read")
            }
            Lint::NearDuplicate { change, name, existing } => {
                format!("change {change}: {name} is very close to the existing {existing}; is it the same thing?")
            }
            Lint::NameTaken { change, name } => format!("change {change}: a node named {name} already exists"),
            Lint::MentionsHigher {
                change,
                name,
                tier,
                mentions,
                mentioned_tier,
            } => format!(
                "change {change}: the text of {name} ({tier}) names {mentions} ({mentioned_tier}), \
                 so {tier} readers would learn of it"
            ),
            Lint::AboveAgentTier { change, name, tier } => format!(
                "change {change}: touches {name} at the {tier} tier, above anything an agent reads or may propose; \
                 this file did not come through `graphex propose`"
            ),
            Lint::Federated { change, name, origin } if origin.is_empty() => format!(
                "change {change}: gives {name} the property {}, which only a federation pull sets; accepting is refused",
                crate::federation::FEDERATED_FROM
            ),
            Lint::Federated { change, name, origin } => format!(
                "change {change}: {name} is federated from {origin} and read-only here; accepting is refused                  (the change belongs in {origin})"
            ),
            Lint::CrossTier {
                change,
                edge,
                lower,
                lower_tier,
                higher,
                higher_tier,
            } => format!(
                "change {change}: {edge} links {lower} ({lower_tier}) to {higher} ({higher_tier}); \
                 the edge is sealed at {higher_tier}, and text on {lower} that names it would expose it"
            ),
            Lint::Lifecycle { change, name, from, to } => format!(
                "change {change}: {name} is {from} and cannot become {to}{}; accepting this change fails",
                if *from == Status::Active && *to == Status::Archived {
                    " (deprecate it first)"
                } else {
                    ""
                }
            ),
            Lint::NoSuchEdge { change, edge } => format!(
                "change {change}: removes {edge}, which is not in the graph as this session reads it \
                 (removed since, or never there); accepting this change fails"
            ),
            Lint::UnreadableEdge {
                change,
                edge,
                tier,
                proposer_tier,
            } => format!(
                "change {change}: removes {edge}, sealed at {tier}, but the proposer reads only up to \
                 {proposer_tier}; accepting would tell it the edge exists, so it is refused (use `graphex unlink`)"
            ),
            Lint::DuplicateRemoval { change, edge, first } => {
                format!("change {change}: removes {edge} again (change {first} removes it already)")
            }
            Lint::SelfLoop { change, name } => {
                format!(
                    "change {change}: links {name} to itself; a node cannot be linked to itself, so accepting this change fails"
                )
            }
            Lint::CannotApply { reason } => format!("accepting this proposal fails: {reason}"),
        }
    }
}

/// The kind of credential `text` seems to contain, if any: the scrubber's
/// own table, so the lint and the projection agree on what a secret is.
pub use crate::project::credential_in;

/// Lints `p` against the graph as `store` sees it.
pub fn lint(store: &Store, p: &StoredProposal) -> Vec<Lint> {
    lint_with(store, &Mentions::new(store), p)
}

/// [`lint`] with a prepared name index (for many proposals at once).
pub fn lint_with(store: &Store, mentions: &Mentions, p: &StoredProposal) -> Vec<Lint> {
    let catalog = store.catalog();
    let sub = &p.submission;
    let mut out = Vec::new();
    if let Some(kind) = credential_in(&sub.rationale).or_else(|| credential_in(&sub.session)) {
        out.push(Lint::Credential {
            change: 0,
            kind: kind.into(),
        });
    }
    let mut added: HashMap<&str, Tier> = HashMap::new();
    // Each node's status as the changes so far leave it.
    let mut status: HashMap<String, Status> = HashMap::new();
    let mut removals: HashMap<String, usize> = HashMap::new();
    let ceiling = OnceLock::new();
    for (i, change) in sub.changes.iter().enumerate() {
        let n = i + 1;
        if let Some(kind) = change.texts().into_iter().find_map(credential_in) {
            out.push(Lint::Credential {
                change: n,
                kind: kind.into(),
            });
        }
        for (from, _, to) in change.edges() {
            if from == to {
                out.push(Lint::SelfLoop {
                    change: n,
                    name: from.to_string(),
                });
            }
        }
        match change {
            Change::AddNode { name, tier, .. } => {
                if catalog.by_name(name.as_str()).is_some() {
                    out.push(Lint::NameTaken {
                        change: n,
                        name: name.to_string(),
                    });
                } else if let Some(existing) = mentions.near(store).duplicate_of(name.as_str()) {
                    out.push(Lint::NearDuplicate {
                        change: n,
                        name: name.to_string(),
                        existing: existing.to_owned(),
                    });
                }
                out.extend(mentions_higher(mentions, n, name.as_str(), *tier, &change.texts()));
                added.insert(name.as_str(), *tier);
            }
            Change::UpdateNode { name, set } => {
                if let Some(current) = catalog.by_name(name.as_str()) {
                    let tier = set.tier.unwrap_or(current.tier);
                    out.extend(mentions_higher(mentions, n, name.as_str(), tier, &change.texts()));
                }
                if let (Some(to), Some(current)) = (set.tier, catalog.by_name(name.as_str()))
                    && to < current.tier
                {
                    out.push(Lint::TierLowered {
                        change: n,
                        name: name.to_string(),
                        from: current.tier,
                        to,
                    });
                }
            }
            _ => {}
        }
        let moved = match change {
            Change::AddNode { name, .. } => {
                status.insert(name.to_string(), Status::Active);
                None
            }
            Change::Deprecate { name, .. } => Some((name, Status::Deprecated)),
            Change::Archive { name, .. } => Some((name, Status::Archived)),
            Change::Restore { name, .. } => Some((name, Status::Active)),
            Change::Supersede { old, .. } => Some((old, Status::Deprecated)),
            _ => None,
        };
        if let Some((name, to)) = moved {
            let from = status
                .get(name.as_str())
                .copied()
                .or_else(|| catalog.by_name(name.as_str()).map(|s| s.status));
            match from {
                Some(from) if !from.can_become(to) => out.push(Lint::Lifecycle {
                    change: n,
                    name: name.to_string(),
                    from,
                    to,
                }),
                _ => {
                    status.insert(name.to_string(), to);
                }
            }
        }
        out.extend(federated(store, n, change));
        for name in change.modifies() {
            match catalog.by_name(name.as_str()) {
                // Added by an earlier change of this proposal: not dangling.
                None if added.contains_key(name.as_str()) => {}
                None => out.push(missing(store, n, name.as_str())),
                Some(s) if s.tier > Tier::AgentReadable => out.push(Lint::AboveAgentTier {
                    change: n,
                    name: name.to_string(),
                    tier: s.tier,
                }),
                Some(_) => {}
            }
        }
        if let Some(t) = change.requested_tier()
            && t > Tier::AgentReadable
        {
            let name = change.names().first().map(|n| n.to_string()).unwrap_or_default();
            out.push(Lint::AboveAgentTier {
                change: n,
                name,
                tier: t,
            });
        }
        if let Some(edge) = change.removed_edge() {
            let tier = || *ceiling.get_or_init(|| super::proposer_tier(store, sub));
            out.extend(removal(store, n, &edge, &added, &mut removals, tier));
        }
        for (from, relation, to) in change.edges() {
            let tier = |name: &str| {
                added
                    .get(name)
                    .copied()
                    .or_else(|| catalog.by_name(name).map(|s| s.tier))
            };
            let (ft, tt) = (tier(from.as_str()), tier(to.as_str()));
            for (name, t) in [(&from, ft), (&to, tt)] {
                if t.is_none() {
                    let lint = missing(store, n, name.as_str());
                    if !out.contains(&lint) {
                        out.push(lint);
                    }
                }
            }
            if let (Some(ft), Some(tt)) = (ft, tt)
                && ft != tt
                && ft.max(tt) >= Tier::AgentRestricted
            {
                let ((lower, lt), (higher, ht)) = if ft < tt {
                    ((&from, ft), (&to, tt))
                } else {
                    ((&to, tt), (&from, ft))
                };
                out.push(Lint::CrossTier {
                    change: n,
                    edge: format!("{from} -> {relation} -> {to}"),
                    lower: lower.to_string(),
                    lower_tier: lt,
                    higher: higher.to_string(),
                    higher_tier: ht,
                });
            }
        }
    }
    // Whatever else accept would refuse, found by running its checks
    // (a session that can write only; nothing is written).
    if !out.iter().any(Lint::accept_fails)
        && store.require_writer("").is_ok()
        && let Err(e) = store.check_applies(p)
    {
        out.push(Lint::CannotApply { reason: e.to_string() });
    }
    out
}

/// The findings on removing `edge` (change `n`): a repeat, a missing end
/// or edge, or an edge above what the proposer (`ceiling`) reads.
fn removal(
    store: &Store,
    n: usize,
    edge: &super::Triple,
    added: &HashMap<&str, Tier>,
    removals: &mut HashMap<String, usize>,
    ceiling: impl FnOnce() -> Tier,
) -> Vec<Lint> {
    let (from, relation, to) = edge;
    let described = format!("{from} -> {relation} -> {to}");
    if let Some(first) = removals.get(&described) {
        return vec![Lint::DuplicateRemoval {
            change: n,
            edge: described,
            first: *first,
        }];
    }
    removals.insert(described.clone(), n);
    let catalog = store.catalog();
    let no_edge = || Lint::NoSuchEdge {
        change: n,
        edge: described.clone(),
    };
    if added.contains_key(from.as_str()) || added.contains_key(to.as_str()) {
        return vec![no_edge()];
    }
    let (Some(f), Some(t)) = (catalog.by_name(from.as_str()), catalog.by_name(to.as_str())) else {
        // An end this session cannot read is named as the other lints name
        // it; nothing is said about the edge itself.
        return [from, to]
            .into_iter()
            .filter(|name| catalog.by_name(name.as_str()).is_none())
            .map(|name| missing(store, n, name.as_str()))
            .collect();
    };
    match catalog
        .outgoing(&f.id)
        .find(|e| e.relation == *relation && e.to == t.id)
    {
        None => vec![no_edge()],
        Some(e) => {
            let proposer_tier = ceiling();
            if e.tier > proposer_tier {
                vec![Lint::UnreadableEdge {
                    change: n,
                    edge: described,
                    tier: e.tier,
                    proposer_tier,
                }]
            } else {
                Vec::new()
            }
        }
    }
}

/// [`Lint::Federated`] for `change` (number `n`): what it writes to or
/// links from a pulled node, and the reserved property.
fn federated(store: &Store, n: usize, change: &Change) -> Vec<Lint> {
    let mut out = Vec::new();
    let mut flag = |name: &crate::model::Name, origin: String| {
        let lint = Lint::Federated {
            change: n,
            name: name.to_string(),
            origin,
        };
        if !out.contains(&lint) {
            out.push(lint);
        }
    };
    let from_edges = change.edges().into_iter().map(|(from, _, _)| from);
    for name in change.modifies().into_iter().cloned().chain(from_edges) {
        if let Some(origin) = store.federated_origin(name.as_str()) {
            flag(&name, origin);
        }
    }
    let reserved =
        |props: &std::collections::BTreeMap<String, String>| props.contains_key(crate::federation::FEDERATED_FROM);
    match change {
        Change::AddNode { name, properties, .. } if reserved(properties) => flag(name, String::new()),
        Change::UpdateNode { name, set } if reserved(&set.properties) => flag(name, String::new()),
        _ => {}
    }
    out
}

/// The `mentions-higher` check for a person's own write, the one every
/// proposal gets: the nodes more secret than `tier` that `texts` name
/// (other than `name`, the node written), worded for the writer. Empty when
/// nothing is named.
pub fn mentions_above(store: &Store, name: &str, tier: Tier, texts: &[&str]) -> Vec<String> {
    Mentions::new(store)
        .above(tier, name, texts)
        .into_iter()
        .map(|(mentions, mentioned_tier)| {
            format!(
                "the text of {name} ({tier}) names {mentions} ({mentioned_tier}), so {tier} readers would learn of it"
            )
        })
        .collect()
}

/// Every non-public node name the session reads, in one automaton, so a
/// text is searched once however large the graph.
pub struct Mentions {
    names: Vec<(String, Tier)>,
    scan: NameScan,
    /// Built on the first near-duplicate check, then shared by every node
    /// of every proposal linted with this index.
    near: OnceLock<NearNames>,
}

impl Mentions {
    /// Built from `store`'s readable, non-public nodes (CPU: linear in names).
    pub fn new(store: &Store) -> Self {
        let names: Vec<(String, Tier)> = store
            .catalog()
            .nodes()
            .filter(|n| n.tier > Tier::Public)
            .map(|n| (n.name.to_string(), n.tier))
            .collect();
        let scan = NameScan::new(names.iter().map(|(n, _)| n.as_str()));
        Self {
            names,
            scan,
            near: OnceLock::new(),
        }
    }

    /// Every name `store` reads, indexed for near-duplicate checks (all of
    /// a proposal's new names, however many: a limit would let a proposal
    /// hide a duplicate behind enough new names).
    fn near(&self, store: &Store) -> &NearNames {
        self.near
            .get_or_init(|| NearNames::new(store.catalog().nodes().map(|n| n.name.as_str())))
    }

    /// Names above `tier` (other than `except`) that `texts` mention at word
    /// boundaries, with their tiers.
    pub fn above(&self, tier: Tier, except: &str, texts: &[&str]) -> Vec<(String, Tier)> {
        let mut found: Vec<(String, Tier)> = Vec::new();
        for text in texts {
            let lowered = text.to_lowercase();
            for i in self.scan.find(&lowered) {
                let (name, t) = &self.names[i];
                if *t > tier && name != except && !found.iter().any(|(n, _)| n == name) {
                    found.push((name.clone(), *t));
                }
            }
        }
        found
    }
}

fn mentions_higher(m: &Mentions, change: usize, name: &str, tier: Tier, texts: &[&str]) -> Vec<Lint> {
    m.above(tier, name, texts)
        .into_iter()
        .map(|(mentions, mentioned_tier)| Lint::MentionsHigher {
            change,
            name: name.to_owned(),
            tier,
            mentions,
            mentioned_tier,
        })
        .collect()
}

/// Dangling, or hidden from the reviewer (the blind index knows the name).
fn missing(store: &Store, change: usize, name: &str) -> Lint {
    if store.name_is_hidden(name) {
        Lint::Hidden {
            change,
            name: name.to_owned(),
        }
    } else {
        Lint::Dangling {
            change,
            name: name.to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::Lint;
    use crate::Level;
    use crate::proposal::tests::{graph, propose};
    use crate::store::tests::open_at;

    /// Fifty-nine new names first, then a near duplicate of an existing
    /// one: a check that stopped after fifty names would miss it.
    #[test]
    fn a_near_duplicate_behind_many_new_nodes_is_still_found() {
        let (_dir, root) = graph();
        let mut changes: Vec<serde_json::Value> = (0..59)
            .map(|i| json!({"op": "add_node", "name": format!("filler-{i:02}-unique"), "type": "module", "description": "d"}))
            .collect();
        changes.push(json!({"op": "add_node", "name": "orders-servce", "type": "service", "description": "d"}));
        let id = propose(&mut open_at(&root, Level::Agent), json!(changes));
        let human = open_at(&root, Level::Human);
        let (cards, _) = crate::proposal::cards(&human, human.pending().unwrap().pending);
        let card = cards.iter().find(|c| c.id == id).unwrap();
        let near: Vec<_> = card
            .lints
            .iter()
            .filter_map(|l| match l {
                Lint::NearDuplicate { change, name, existing } => Some((*change, name.as_str(), existing.as_str())),
                _ => None,
            })
            .collect();
        assert_eq!(near, [(60, "orders-servce", "orders-service")], "{:?}", card.lints);
    }

    #[test]
    fn a_persons_own_text_gets_the_same_mentions_check() {
        use crate::model::Tier;
        let (_dir, root) = graph();
        let human = open_at(&root, Level::Human);
        let text = ["retired in favour of payroll and orders-service"];
        let found = super::mentions_above(&human, "old-thing", Tier::Public, &text);
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(
            found[1].contains("names payroll (human-only), so public readers would learn of it")
                || found[0].contains("names payroll (human-only)"),
            "{found:?}"
        );
        assert_eq!(
            super::mentions_above(&human, "old-thing", Tier::AgentReadable, &text).len(),
            1
        );
        assert!(
            super::mentions_above(&human, "payroll", Tier::Public, &["payroll"]).is_empty(),
            "its own name"
        );
    }
}
