//! Lints a reviewer sees on a proposal: leaked credentials, lowered tiers,
//! dangling endpoints, near-duplicate names and edges across tiers.

use std::collections::HashMap;
use std::sync::OnceLock;

use regex::Regex;
use serde::Serialize;

use super::change::Change;
use super::stored::StoredProposal;
use crate::model::Tier;
use crate::query::edit_distance;
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
    /// An edge joining a node agents may read to a restricted or human-only one.
    CrossTier {
        change: usize,
        edge: String,
        lower: String,
        lower_tier: Tier,
        higher: String,
        higher_tier: Tier,
    },
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
            Lint::CrossTier { .. } => "cross-tier",
        }
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
        }
    }
}

/// Credential shapes, with the words a lint uses for them.
const CREDENTIALS: &[(&str, &str)] = &[
    ("a private key", r"-----BEGIN [A-Z ]*PRIVATE KEY-----"),
    ("an AWS access key", r"\b(AKIA|ASIA)[0-9A-Z]{16}\b"),
    ("a GitHub token", r"\bgh[pousr]_[A-Za-z0-9]{36,}"),
    ("a Slack token", r"\bxox[baprs]-[A-Za-z0-9-]{10,}"),
    ("an API secret key", r"\bsk-[A-Za-z0-9_-]{20,}"),
    ("an age secret key", r"AGE-SECRET-KEY-1[0-9A-Z]{58}"),
    (
        "a JSON web token",
        r"\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}",
    ),
    (
        "a password or token assignment",
        r#"(?i)\b(password|passwd|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret)\b\s*[:=]\s*['"]?[^\s'"]{8,}"#,
    ),
];

fn credential_patterns() -> &'static [(&'static str, Regex)] {
    static COMPILED: OnceLock<Vec<(&'static str, Regex)>> = OnceLock::new();
    COMPILED.get_or_init(|| {
        CREDENTIALS
            .iter()
            .filter_map(|(kind, re)| Regex::new(re).ok().map(|r| (*kind, r)))
            .collect()
    })
}

/// The kind of credential `text` seems to contain, if any.
pub fn credential_in(text: &str) -> Option<&'static str> {
    credential_patterns()
        .iter()
        .find(|(_, re)| re.is_match(text))
        .map(|(kind, _)| *kind)
}

/// Lints `p` against the graph as `store` sees it.
pub fn lint(store: &Store, p: &StoredProposal) -> Vec<Lint> {
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
    for (i, change) in sub.changes.iter().enumerate() {
        let n = i + 1;
        if let Some(kind) = change.texts().into_iter().find_map(credential_in) {
            out.push(Lint::Credential {
                change: n,
                kind: kind.into(),
            });
        }
        match change {
            Change::AddNode { name, tier, .. } => {
                if catalog.by_name(name.as_str()).is_some() {
                    out.push(Lint::NameTaken {
                        change: n,
                        name: name.to_string(),
                    });
                } else if let Some(existing) = near_duplicate(store, name.as_str()) {
                    out.push(Lint::NearDuplicate {
                        change: n,
                        name: name.to_string(),
                        existing,
                    });
                }
                out.extend(mentions_higher(store, n, name.as_str(), *tier, &change.texts()));
                added.insert(name.as_str(), *tier);
            }
            Change::UpdateNode { name, set } => {
                if let Some(current) = catalog.by_name(name.as_str()) {
                    let tier = set.tier.unwrap_or(current.tier);
                    out.extend(mentions_higher(store, n, name.as_str(), tier, &change.texts()));
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
        for name in change.modifies() {
            if catalog.by_name(name.as_str()).is_none() {
                out.push(missing(store, n, name.as_str()));
            }
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
    out
}

/// Names of readable nodes above `tier` that `texts` mention at word
/// boundaries.
fn mentions_higher(store: &Store, change: usize, name: &str, tier: Tier, texts: &[&str]) -> Vec<Lint> {
    let lowered: Vec<String> = texts.iter().map(|t| t.to_lowercase()).collect();
    let boundary = |b: Option<&u8>| b.is_none_or(|b| !(b.is_ascii_alphanumeric() || *b == b'_'));
    let mut out = Vec::new();
    for n in store
        .catalog()
        .nodes()
        .filter(|n| n.tier > tier && n.name.as_str() != name)
    {
        let needle = n.name.as_str();
        let hit = lowered.iter().any(|text| {
            text.match_indices(needle).any(|(at, _)| {
                boundary(at.checked_sub(1).and_then(|i| text.as_bytes().get(i)))
                    && boundary(text.as_bytes().get(at + needle.len()))
            })
        });
        if hit {
            out.push(Lint::MentionsHigher {
                change,
                name: name.to_owned(),
                tier,
                mentions: needle.to_owned(),
                mentioned_tier: n.tier,
            });
        }
    }
    out
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

/// An existing name that differs from `name` only by separators or by a
/// small edit.
fn near_duplicate(store: &Store, name: &str) -> Option<String> {
    let squash = |s: &str| s.chars().filter(|c| c.is_ascii_alphanumeric()).collect::<String>();
    let wanted = squash(name);
    let budget = (name.len() / 6).clamp(1, 3);
    store
        .catalog()
        .nodes()
        .filter(|s| s.name.as_str().len().abs_diff(name.len()) <= budget)
        .find(|s| {
            let other = s.name.as_str();
            squash(other) == wanted || (name.len() >= 5 && edit_distance(other, name) <= budget)
        })
        .map(|s| s.name.to_string())
}
