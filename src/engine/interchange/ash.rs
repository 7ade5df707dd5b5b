//! Ash's JSONL collections, read a line at a time: one object per line; a
//! line with `edge_type`, `source_id` and `target_id` is an edge, any other
//! a node of its file's collection (or its own `node_type`). Node names are
//! `TYPE-NAME` (or `TYPE-ID` when it has no name), so that a person and a
//! user of one name stay apart. Edges wait for every node (they name nodes
//! by id), mapped already but for their ends: a few strings each, not the
//! line's JSON.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::foreign::{edge_fields, key_text, node, normalise_name};
use super::lines::each_line;
use super::{ImportEdge, Input, Mapped};
use crate::error::Result;
use crate::model::Name;

/// One end of an edge line: a node id, and the type to find it by when it
/// is not in this import.
struct End {
    id: std::result::Result<String, String>,
    node_type: Option<String>,
}

impl End {
    fn of(o: &Map<String, Value>, id_key: &str, type_key: &str) -> Self {
        Self {
            id: o
                .get(id_key)
                .and_then(key_text)
                .ok_or_else(|| format!("no \"{id_key}\"")),
            node_type: o.get(type_key).and_then(Value::as_str).map(str::to_owned),
        }
    }

    /// The node's name: in this import by id, else `TYPE-ID` from an
    /// earlier import.
    fn name(&self, by_id: &HashMap<String, Name>, id_key: &str, type_key: &str) -> std::result::Result<Name, String> {
        let id = self.id.as_ref().map_err(Clone::clone)?;
        if let Some(n) = by_id.get(id) {
            return Ok(n.clone());
        }
        let ty = self.node_type.as_deref().ok_or_else(|| {
            format!("{id_key} {id:?} is not a node of this import and there is no {type_key} to find it by")
        })?;
        normalise_name(&format!("{ty}-{id}"))
    }
}

/// An edge line read before every node is known: its file, item, ends, and
/// the edge mapped with stand-in ends (or why it cannot be).
struct Pending {
    input: usize,
    item: String,
    from: End,
    to: End,
    edge: std::result::Result<ImportEdge, String>,
}

/// The node type an Ash collection file holds (`people.jsonl` → `person`).
fn collection_type(file: &str) -> String {
    let stem = std::path::Path::new(file)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    match stem.as_str() {
        "people" => "person".into(),
        "memories" => "memory".into(),
        s => s.strip_suffix('s').unwrap_or(s).to_owned(),
    }
}

/// Reads every input's lines into `m`.
pub(super) fn read(inputs: &mut [Input<'_>], m: &mut Mapped) -> Result<()> {
    let mut by_id: HashMap<String, Name> = HashMap::new();
    let mut edges: Vec<Pending> = Vec::new();
    let stand_in = Name::new("x")?;
    for (index, input) in inputs.iter_mut().enumerate() {
        let file = input.file;
        let collection = collection_type(file);
        each_line(input.read, file, 1, m, |m, item, line| {
            let o = match serde_json::from_slice::<Value>(line) {
                Ok(Value::Object(o)) => o,
                Ok(_) => {
                    m.refuse(file, item, "not a JSON object");
                    return;
                }
                Err(e) => {
                    m.refuse(file, item, format!("not valid JSON: {e}"));
                    return;
                }
            };
            if o.contains_key("edge_type") && o.contains_key("source_id") && o.contains_key("target_id") {
                edges.push(Pending {
                    input: index,
                    from: End::of(&o, "source_id", "source_type"),
                    to: End::of(&o, "target_id", "target_type"),
                    edge: edge_fields(&o, item.clone(), stand_in.clone(), stand_in.clone()),
                    item,
                });
                return;
            }
            node_line(file, &collection, item, o, m, &mut by_id);
        })?;
    }
    for p in edges {
        let file = inputs[p.input].file;
        let ends = p
            .from
            .name(&by_id, "source_id", "source_type")
            .and_then(|f| p.to.name(&by_id, "target_id", "target_type").map(|t| (f, t)));
        match ends.and_then(|(from, to)| p.edge.map(|e| ImportEdge { from, to, ..e })) {
            Ok(e) => m.edges.push(e),
            Err(e) => m.refuse(file, p.item, e),
        }
    }
    super::ash_meaning::apply(m);
    Ok(())
}

/// A node line mapped: named `TYPE-NAME` (or `TYPE-ID`), its id kept.
fn node_line(
    file: &str,
    collection: &str,
    item: String,
    mut o: Map<String, Value>,
    m: &mut Mapped,
    by_id: &mut HashMap<String, Name>,
) {
    let Some(id) = o.get("id").and_then(key_text) else {
        m.refuse(file, item, "no \"id\"");
        return;
    };
    let ty = o
        .get("node_type")
        .and_then(Value::as_str)
        .unwrap_or(collection)
        .to_owned();
    let label = o.get("name").and_then(Value::as_str).unwrap_or(&id);
    let name = match normalise_name(&format!("{ty}-{label}")) {
        Ok(n) => n,
        Err(e) => {
            m.refuse(file, item, e);
            return;
        }
    };
    o.insert("node_type".into(), Value::String(ty.clone()));
    o.insert("import.id".into(), Value::String(id.clone()));
    match node(&o, format!("{item} ({id})"), name.as_str(), name.clone(), &ty) {
        Ok(n) => {
            by_id.insert(id, name);
            m.nodes.push(n);
        }
        Err(e) => m.refuse(file, format!("{item} ({id})"), e),
    }
}
