//! Field-level differences between two versions of a node.

use serde::Serialize;

use super::Node;

/// One field that differs; `None` means absent on that side.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct FieldDiff {
    /// `description`, `tier`, `property owner`, ...
    pub field: String,
    pub before: Option<String>,
    pub after: Option<String>,
}

/// The fields of `after` that differ from `before` (content fields only:
/// versions and times are not listed).
pub fn field_diff(before: &Node, after: &Node) -> Vec<FieldDiff> {
    let mut out = Vec::new();
    let mut field = |name: &str, b: Option<String>, a: Option<String>| {
        if b != a {
            out.push(FieldDiff {
                field: name.to_owned(),
                before: b,
                after: a,
            });
        }
    };
    field("name", Some(before.name.to_string()), Some(after.name.to_string()));
    field(
        "type",
        Some(before.node_type.to_string()),
        Some(after.node_type.to_string()),
    );
    field(
        "description",
        Some(before.description.clone()),
        Some(after.description.clone()),
    );
    field("body", before.body.clone(), after.body.clone());
    field("tier", Some(before.tier.to_string()), Some(after.tier.to_string()));
    field(
        "status",
        Some(before.status.to_string()),
        Some(after.status.to_string()),
    );
    field(
        "status reason",
        before.status_reason.clone(),
        after.status_reason.clone(),
    );
    field(
        "confidence",
        Some(format!("{:.2}", before.confidence)),
        Some(format!("{:.2}", after.confidence)),
    );
    let keys: std::collections::BTreeSet<&String> = before.properties.keys().chain(after.properties.keys()).collect();
    for k in keys {
        field(
            &format!("property {k}"),
            before.properties.get(k).cloned(),
            after.properties.get(k).cloned(),
        );
    }
    out
}
