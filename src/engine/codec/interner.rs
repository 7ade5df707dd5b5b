//! Interning of node types and relations while decoding many records, so
//! equal values share one allocation and are validated once; and whether
//! those records' descriptions and properties are wanted at all.

use rustc_hash::FxHashMap;

use crate::error::{Error, Result};
use crate::model::{NodeType, Provenance, Relation};

/// How much of a tier's records an open decodes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Decode {
    /// Every field of every summary and edge.
    #[default]
    Whole,
    /// Summaries without descriptions and properties (left empty); edges
    /// whole.
    Names,
    /// Summaries as [`Decode::Names`] has them, and no edge at all: for a
    /// read that prints counts and node names only (`status`).
    NodeNames,
}

impl Decode {
    /// Whether descriptions and properties are left undecoded.
    pub fn skips_text(self) -> bool {
        self != Decode::Whole
    }

    /// Whether edges are decoded.
    pub fn edges(self) -> bool {
        self != Decode::NodeNames
    }
}

/// Caches of decoded vocabulary terms.
#[derive(Default)]
pub struct Interner {
    relations: FxHashMap<Box<[u8]>, Relation>,
    types: FxHashMap<Box<[u8]>, NodeType>,
    human: Option<std::sync::Arc<Provenance>>,
    names_only: bool,
}

fn text(raw: &[u8]) -> Result<&str> {
    std::str::from_utf8(raw).map_err(|_| Error::integrity("record", "term is not UTF-8"))
}

impl Interner {
    /// For the records of an open that decodes `what`: without
    /// descriptions and properties (left empty) where it skips them, which
    /// saves their allocations.
    pub fn for_decode(what: Decode) -> Self {
        Self {
            names_only: what.skips_text(),
            ..Self::default()
        }
    }

    /// Whether descriptions and properties are skipped.
    pub fn skips_text(&self) -> bool {
        self.names_only
    }

    /// The relation spelled `raw`.
    pub fn relation(&mut self, raw: &[u8]) -> Result<Relation> {
        if let Some(r) = self.relations.get(raw) {
            return Ok(r.clone());
        }
        let r = Relation::new(text(raw)?)?;
        self.relations.insert(raw.into(), r.clone());
        Ok(r)
    }

    /// The shared human provenance.
    pub fn human(&mut self) -> std::sync::Arc<Provenance> {
        self.human
            .get_or_insert_with(|| std::sync::Arc::new(Provenance::Human))
            .clone()
    }

    /// The node type spelled `raw`.
    pub fn node_type(&mut self, raw: &[u8]) -> Result<NodeType> {
        if let Some(t) = self.types.get(raw) {
            return Ok(t.clone());
        }
        let t = NodeType::new(text(raw)?)?;
        self.types.insert(raw.into(), t.clone());
        Ok(t)
    }
}
