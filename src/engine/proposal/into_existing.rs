//! A reviewer's answer to a near-duplicate: the proposal's `add_node`
//! rewritten as an `update_node` of the node it duplicates. The new node's
//! description, body and properties become the fields of the existing
//! node they would change; its suggested edges become `add_edge`s of the
//! existing node (those it already has left out); every other change that
//! names the new node names the existing one. The existing node's type and
//! tier stay as they are: a merge never moves a node between tiers.
//!
//! The result is a submission the reviewer accepts as an edit
//! ([`Store::accept_edit`]), so the decision records both.

use super::{Change, FieldSet, Submission};
use crate::error::{Error, Result};
use crate::model::Name;
use crate::store::Store;

/// `sub` with its `change`-th change (1-based), an `add_node`, merged into
/// the existing node `existing`.
pub fn merged_into(store: &Store, sub: &Submission, change: usize, existing: &str) -> Result<Submission> {
    let at = change
        .checked_sub(1)
        .filter(|i| *i < sub.changes.len())
        .ok_or_else(|| Error::invalid("change", change.to_string(), "the proposal has no such change"))?;
    let Change::AddNode {
        name: added,
        description,
        body,
        properties,
        suggested_edges,
        ..
    } = &sub.changes[at]
    else {
        return Err(Error::invalid(
            "change",
            change.to_string(),
            "only a new node (add_node) can be merged into an existing one",
        ));
    };
    let node = store.node(existing)?;
    let into = node.name.clone();
    let rename = |n: &Name| if n == added { into.clone() } else { n.clone() };
    let set = FieldSet {
        description: (*description != node.description).then(|| description.clone()),
        body: body.clone().filter(|b| node.body.as_deref() != Some(b.as_str())),
        properties: properties
            .iter()
            .filter(|(k, v)| !v.is_empty() && node.properties.get(k) != Some(*v))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        ..FieldSet::default()
    };
    let mut replaced = Vec::new();
    if set != FieldSet::default() {
        replaced.push(Change::UpdateNode {
            name: into.clone(),
            set,
        });
    }
    for (from, relation, to) in suggested_edges {
        let (from, to) = (rename(from), rename(to));
        if from != to && !has_edge(store, &from, relation.as_str(), &to) {
            replaced.push(Change::AddEdge {
                from,
                relation: relation.clone(),
                to,
                confidence: None,
            });
        }
    }
    let mut changes = Vec::new();
    for (i, c) in sub.changes.iter().enumerate() {
        if i == at {
            changes.append(&mut replaced);
            continue;
        }
        changes.push(match c.clone() {
            Change::AddEdge {
                from,
                relation,
                to,
                confidence,
            } => Change::AddEdge {
                from: rename(&from),
                relation,
                to: rename(&to),
                confidence,
            },
            Change::RemoveEdge {
                from,
                relation,
                to,
                reason,
            } => Change::RemoveEdge {
                from: rename(&from),
                relation,
                to: rename(&to),
                reason,
            },
            Change::UpdateNode { name, set } => Change::UpdateNode {
                name: rename(&name),
                set,
            },
            Change::Deprecate { name, reason } => Change::Deprecate {
                name: rename(&name),
                reason,
            },
            Change::Archive { name, reason } => Change::Archive {
                name: rename(&name),
                reason,
            },
            Change::Restore { name, reason } => Change::Restore {
                name: rename(&name),
                reason,
            },
            Change::Supersede { old, new } => Change::Supersede {
                old: rename(&old),
                new: rename(&new),
            },
            other @ Change::AddNode { .. } => other,
        });
    }
    if changes.is_empty() {
        return Err(Error::invalid(
            "merge",
            added.to_string(),
            format!("{added} adds nothing {into} lacks: reject it as a duplicate instead"),
        ));
    }
    Ok(Submission { changes, ..sub.clone() })
}

/// Whether `from -relation-> to` is an edge of the graph this session reads.
fn has_edge(store: &Store, from: &Name, relation: &str, to: &Name) -> bool {
    let c = store.catalog();
    let (Some(f), Some(t)) = (c.by_name(from.as_str()), c.by_name(to.as_str())) else {
        return false;
    };
    c.outgoing(&f.id)
        .any(|e| e.to == t.id && e.relation.as_str() == relation)
}

#[cfg(test)]
#[path = "into_existing_tests.rs"]
mod tests;
