//! NetworkX node-link (`nodes` + `links` or `edges`), kgraph's `graph.json`
//! and its extractor's output (`name` instead of `id`), read as a stream:
//! each node and link is parsed and mapped on its own, so the document is
//! never held whole, neither as bytes nor as a JSON tree. Links that come
//! before the nodes (rare) wait, unmapped, until the nodes are read.

use std::collections::HashMap;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use super::foreign::{edge_fields, key_text, node, normalise_name};
use super::{ImportEdge, Input, Mapped, Refusal};
use crate::error::{Error, Result};
use crate::model::Name;

const NOT_AN_OBJECT: &str = "expected a JSON object with \"nodes\" and \"links\" (or \"edges\")";
const NO_NODES: &str = "no \"nodes\" array";

/// Which array a link came from: `links` wins; `edges` is read when there
/// is no `links`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Nodes,
    Links,
    Edges,
}

struct State<'a> {
    file: &'a str,
    m: &'a mut Mapped,
    by_key: HashMap<String, Name>,
    nodes_read: bool,
    links_read: bool,
    /// The `edges` array's items, mapped, until it is known whether a
    /// `links` array overrides them.
    alt: (Vec<ImportEdge>, Vec<Refusal>),
    /// Links read before the nodes, by array and index.
    early: Vec<(Kind, usize, Value)>,
    /// What the value being read must be, for a shape error's message.
    shape: Option<&'static str>,
}

/// Reads one node-link document from `input` into `m`.
pub(super) fn read(input: &mut Input<'_>, m: &mut Mapped) -> Result<()> {
    let file = input.file;
    let mut state = State {
        file,
        m,
        by_key: HashMap::new(),
        nodes_read: false,
        links_read: false,
        alt: (Vec::new(), Vec::new()),
        early: Vec::new(),
        shape: Some(NOT_AN_OBJECT),
    };
    let mut de = serde_json::Deserializer::from_reader(&mut *input.read);
    let parsed = Top(&mut state).deserialize(&mut de).and_then(|()| de.end());
    if let Err(e) = parsed {
        let reason = match (e.classify(), state.shape) {
            (serde_json::error::Category::Data, Some(shape)) => shape.to_owned(),
            (serde_json::error::Category::Io, _) => e.to_string(),
            _ => format!("not valid JSON: {e}"),
        };
        return Err(Error::Document {
            path: file.to_owned(),
            reason,
        });
    }
    if !state.nodes_read {
        return Err(Error::Document {
            path: file.to_owned(),
            reason: NO_NODES.into(),
        });
    }
    for (kind, i, v) in std::mem::take(&mut state.early) {
        state.link(kind, i, v);
    }
    if !state.links_read {
        let (edges, refused) = std::mem::take(&mut state.alt);
        state.m.edges.extend(edges);
        state.m.refused.extend(refused);
    }
    Ok(())
}

impl State<'_> {
    fn item(&mut self, kind: Kind, i: usize, v: Value) {
        match kind {
            Kind::Nodes => self.node(i, v),
            _ if !self.nodes_read => self.early.push((kind, i, v)),
            _ => self.link(kind, i, v),
        }
    }

    fn node(&mut self, i: usize, v: Value) {
        let (file, m) = (self.file, &mut *self.m);
        let item = format!("node {i}");
        let Value::Object(o) = v else {
            m.refuse(file, item, "not a JSON object");
            return;
        };
        let Some(key) = o.get("id").or_else(|| o.get("name")).and_then(key_text) else {
            m.refuse(file, item, "no \"id\" (or \"name\") string or number");
            return;
        };
        let name = match normalise_name(&key) {
            Ok(n) => n,
            Err(e) => {
                m.refuse(file, item, e);
                return;
            }
        };
        // kgraph's five types map by the type rule (`APIObject` → `api-object`).
        match node(&o, format!("{item} ({key})"), &key, name.clone(), "concept") {
            Ok(n) => {
                self.by_key.insert(key, name);
                m.nodes.push(n);
            }
            Err(e) => m.refuse(file, format!("{item} ({key})"), e),
        }
    }

    fn link(&mut self, kind: Kind, i: usize, v: Value) {
        let item = format!("link {i}");
        let mapped = match &v {
            Value::Object(o) => self.map_link(o, &item),
            _ => Err("not a JSON object".to_owned()),
        };
        let file = self.file.to_owned();
        let (edges, refused) = match kind {
            Kind::Edges => (&mut self.alt.0, &mut self.alt.1),
            _ => (&mut self.m.edges, &mut self.m.refused),
        };
        match mapped {
            Ok(e) => edges.push(e),
            Err(problem) => refused.push(Refusal { file, item, problem }),
        }
    }

    fn map_link(&self, o: &Map<String, Value>, item: &str) -> std::result::Result<ImportEdge, String> {
        let end = |k: &str| -> std::result::Result<Name, String> {
            let key = o.get(k).and_then(key_text).ok_or_else(|| format!("no \"{k}\""))?;
            match self.by_key.get(&key) {
                Some(n) => Ok(n.clone()),
                // Not among the file's nodes: it may name one in the store.
                None => normalise_name(&key),
            }
        };
        let (from, to) = (end("source")?, end("target")?);
        edge_fields(o, item.to_owned(), from, to)
    }
}

/// The top-level object: its arrays read item by item, anything else skipped.
struct Top<'s, 'a>(&'s mut State<'a>);

impl<'de> DeserializeSeed<'de> for Top<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Top<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(NOT_AN_OBJECT)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<(), A::Error> {
        let state = self.0;
        state.shape = None;
        while let Some(key) = map.next_key::<String>()? {
            let kind = match key.as_str() {
                "nodes" => Kind::Nodes,
                "links" => Kind::Links,
                "edges" if !state.links_read => Kind::Edges,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
            };
            state.shape = Some(match kind {
                Kind::Nodes => NO_NODES,
                Kind::Links => "\"links\" is not an array",
                Kind::Edges => "\"edges\" is not an array",
            });
            map.next_value_seed(Items {
                state: &mut *state,
                kind,
            })?;
            state.shape = None;
            match kind {
                Kind::Nodes => state.nodes_read = true,
                Kind::Links => {
                    state.links_read = true;
                    state.alt = (Vec::new(), Vec::new());
                    state.early.retain(|(k, _, _)| *k != Kind::Edges);
                }
                Kind::Edges => {}
            }
        }
        Ok(())
    }
}

/// One array, each item handed to the state as soon as it is parsed.
struct Items<'s, 'a> {
    state: &'s mut State<'a>,
    kind: Kind,
}

impl<'de> DeserializeSeed<'de> for Items<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Items<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<(), A::Error> {
        let mut i = 0;
        while let Some(v) = seq.next_element::<Value>()? {
            self.state.item(self.kind, i, v);
            i += 1;
        }
        Ok(())
    }
}
