//! The policy check tells an agent nothing about what is above its tier:
//! a name it cannot read gets exactly what an absent name gets.

use serde_json::json;

use super::tests::graph;
use super::*;
use crate::Level;
use crate::model::{Name, NewNode, NodeType, Tier};
use crate::project::TrustPolicy;
use crate::store::tests::open_at;

fn draft(changes: serde_json::Value) -> Submission {
    Submission::from_json(
        json!({"agent": "claude-code", "trust": 94.2, "changes": changes})
            .to_string()
            .as_bytes(),
    )
    .unwrap()
}

fn findings(level: Level, root: &std::path::Path, to: &str) -> Vec<String> {
    let s = open_at(root, level);
    let sub = draft(json!([{"op": "add_edge", "from": "orders-service", "relation": "uses", "to": to}]));
    check(&s, &TrustPolicy::default(), sub, Tier::AgentReadable)
        .unwrap()
        .iter()
        .map(|l| l.explain().replace(to, "NAME"))
        .collect()
}

/// [`graph`] with `vault-keys`, agent-restricted, added at the master level.
fn with_vault_keys() -> (tempfile::TempDir, std::path::PathBuf) {
    let (d, root) = graph();
    open_at(&root, Level::Master)
        .add_node(NewNode::new(
            Name::new("vault-keys").unwrap(),
            NodeType::new("service").unwrap(),
            "where the keys live".to_owned(),
            Tier::AgentRestricted,
        ))
        .unwrap();
    (d, root)
}

#[test]
fn a_hidden_name_reads_as_an_absent_one() {
    let (_d, root) = with_vault_keys();
    for level in [Level::Agent, Level::Master] {
        let absent = findings(level, &root, "no-such-node");
        assert!(!absent.is_empty(), "an absent name is named: {absent:?}");
        for hidden in ["vault-keys", "payroll"] {
            assert_eq!(findings(level, &root, hidden), absent, "{hidden} at {level:?}");
        }
    }
}

#[test]
fn every_change_with_a_hidden_end_is_named_like_an_absent_one() {
    let (_d, root) = with_vault_keys();
    let s = open_at(&root, Level::Agent);
    let sub = draft(json!([
        {"op": "add_node", "name": "orders-service", "type": "service", "description": "again"},
        {"op": "add_edge", "from": "orders-service", "relation": "uses", "to": "vault-keys"},
        {"op": "add_edge", "from": "orders-service", "relation": "uses", "to": "nowhere-at-all"}
    ]));
    for cap in [Tier::AgentReadable, Tier::AgentRestricted] {
        let got: Vec<(String, usize)> = check(&s, &TrustPolicy::default(), sub.clone(), cap)
            .unwrap()
            .iter()
            .map(|l| (l.code().to_owned(), super::check::change_of(l)))
            .collect();
        assert!(got.contains(&("dangling".into(), 2)), "{cap}: {got:?}");
        assert!(got.contains(&("dangling".into(), 3)), "{cap}: {got:?}");
    }
}

#[test]
fn a_name_spelt_like_a_tier_is_judged_as_a_name() {
    let (_d, root) = graph();
    // No node is named `agent-restricted` here: it is simply absent.
    let got = findings(Level::Agent, &root, "agent-restricted");
    assert_eq!(got, findings(Level::Agent, &root, "no-such-node"));
}
