//! The graph model: nodes, edges, tiers, lifecycle, provenance. Plain data with
//! validation; no storage or crypto here.

mod diff;
mod edge;
mod ids;
mod name;
mod node;
mod properties;
mod provenance;
mod status;
mod tier;
mod time;
pub(crate) mod vocabulary;

pub use diff::{FieldDiff, field_diff};
pub use edge::{Edge, NewEdge};
pub use ids::{EdgeId, NodeId};
pub use name::{MAX_NAME_LEN, Name};
pub use node::{
    FEDERATED_FROM, MAX_BODY, MAX_DESCRIPTION, MAX_PROPERTIES, MAX_PROPERTY_KEY, MAX_PROPERTY_VALUE, NewNode, Node,
    NodePatch, NodeSummary, federated_origin, parse_property, validate_confidence, validate_description,
    validate_properties, validate_weight,
};
pub use properties::Properties;
pub use provenance::Provenance;
pub use status::{Status, set_status};
pub use tier::Tier;
pub use time::{Timestamp, times_rfc3339};
pub use vocabulary::{NodeType, Relation};
