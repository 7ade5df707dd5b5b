//! A stale proposal's three versions of each node it touches, field by
//! field: what the agent saw, what the graph holds now, and what the
//! proposal would make of it. Only the fields that differ in any of the
//! three are listed; each value is one escaped line.

use graphex_engine::hygiene::visible_line;
use graphex_engine::model::field_diff;
use graphex_engine::proposal::StaleNode;

/// One node's three versions, side by side.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ThreeWay {
    pub name: String,
    /// The columns' headings: "agent saw v1", "graph holds v2", "proposal".
    pub heads: [String; 3],
    /// Each differing field and its value in each column (`None`: unset,
    /// or, in the first column, not seen by the agent).
    pub rows: Vec<(String, [Option<String>; 3])>,
}

/// The three-way view of each stale node.
pub fn three_way(nodes: &[StaleNode]) -> Vec<ThreeWay> {
    nodes.iter().map(one).collect()
}

fn one(s: &StaleNode) -> ThreeWay {
    let since = s.base.as_ref().map(|b| field_diff(b, &s.current)).unwrap_or_default();
    let change = field_diff(&s.current, &s.proposed);
    let mut fields: Vec<String> = since.iter().map(|d| d.field.clone()).collect();
    for d in &change {
        if !fields.contains(&d.field) {
            fields.push(d.field.clone());
        }
    }
    let line = |v: &Option<String>| v.as_deref().map(|t| visible_line(t).into_owned());
    let rows = fields
        .into_iter()
        .map(|f| {
            let a = since.iter().find(|d| d.field == f);
            let b = change.iter().find(|d| d.field == f);
            // A field one diff leaves out holds the same value on both of
            // its sides: the other diff's value there.
            let now = a.map(|d| &d.after).or(b.map(|d| &d.before)).cloned().flatten();
            let saw = match (&s.base, a) {
                (None, _) => None,
                (Some(_), Some(d)) => d.before.clone(),
                (Some(_), None) => now.clone(),
            };
            let proposed = b.map_or_else(|| now.clone(), |d| d.after.clone());
            (f, [line(&saw), line(&now), line(&proposed)])
        })
        .collect();
    ThreeWay {
        name: visible_line(&s.name).into_owned(),
        heads: [
            s.base.as_ref().map_or_else(
                || "the agent did not see it".to_owned(),
                |b| format!("agent saw v{}", b.version),
            ),
            format!("graph holds v{}", s.current.version),
            "the proposal makes".to_owned(),
        ],
        rows,
    }
}
