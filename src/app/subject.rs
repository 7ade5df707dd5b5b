//! What a projection is of: a node, a query, a proposal's centre, or a node
//! across a revision range. Shared vocabulary: any pane may ask the shell
//! to project one (`Effect::Go`), and the Projection pane shows it.

use graphex_engine::project::Center;

/// What is projected.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Subject {
    Node {
        name: String,
        depth: u32,
    },
    Query(String),
    /// A proposal's centre, before and after accepting it.
    Proposal {
        id: String,
        short: String,
        centre: String,
    },
    /// A node before and after a revision range (`graphex diff --console
    /// main...HEAD`): the graph at the range's base against the store now.
    Range {
        centre: String,
        label: String,
    },
}

impl Subject {
    pub fn center(&self) -> Center {
        match self {
            Subject::Node { name, depth } => Center::Node {
                name: name.clone(),
                depth: *depth,
            },
            Subject::Query(q) => Center::Query(q.clone()),
            Subject::Proposal { centre, .. } | Subject::Range { centre, .. } => Center::Node {
                name: centre.clone(),
                depth: 2,
            },
        }
    }

    pub fn label(&self) -> String {
        match self {
            Subject::Node { name, depth } => format!("{name} (depth {depth})"),
            Subject::Query(q) => format!("query {q}"),
            Subject::Proposal { short, centre, .. } => {
                format!("{centre}: before and after accepting proposal {short}")
            }
            Subject::Range { centre, label } => format!("{centre}: before and after {label}"),
        }
    }
}
