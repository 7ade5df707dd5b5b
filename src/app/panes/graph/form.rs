//! The node form of the Graph pane: new node, and edit node on its current
//! version. Fields are checked as they are typed (the name against the
//! naming rules and every existing name, on the worker); an edit shows a
//! field diff, and a tier change what it means, before anything is saved.

use std::collections::BTreeMap;

use graphex_engine::model::{Name, NewNode, NodePatch, NodeType, Tier, parse_property};
use ratatui_textarea::TextArea;

/// The form's fields, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    Type,
    Name,
    Description,
    Tier,
    Properties,
    Body,
}

impl Field {
    pub const ALL: [Field; 6] = [
        Field::Type,
        Field::Name,
        Field::Description,
        Field::Tier,
        Field::Properties,
        Field::Body,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Field::Type => "type",
            Field::Name => "name",
            Field::Description => "description",
            Field::Tier => "tier",
            Field::Properties => "properties",
            Field::Body => "body",
        }
    }
}

/// The values a form holds, comparable for an edit's diff.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Values {
    pub node_type: String,
    pub name: String,
    pub description: String,
    pub tier: Option<Tier>,
    /// `key=value` pairs separated by `;`.
    pub properties: String,
    pub body: String,
}

impl Values {
    /// The values of a node as the inspector read it (its text is shown
    /// escaped there; an edit starts from the node's own text, which the
    /// worker sends with the form).
    pub fn of(n: &graphex_engine::model::Node) -> Self {
        Self {
            node_type: n.node_type.to_string(),
            name: n.name.to_string(),
            description: n.description.clone(),
            tier: Some(n.tier),
            properties: n
                .properties
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join("; "),
            body: n.body.clone().unwrap_or_default(),
        }
    }

    fn parsed_properties(&self) -> Result<BTreeMap<String, String>, String> {
        let mut out = BTreeMap::new();
        for piece in self.properties.split(';').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, v) = parse_property(piece).map_err(|e| format!("properties: {e}"))?;
            out.insert(k, v);
        }
        Ok(out)
    }
}

/// New node, or edit of an existing one.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    New,
    Edit { original: Box<Values> },
}

/// The form.
pub struct NodeForm {
    pub kind: Kind,
    pub focus: Field,
    pub values: Values,
    /// The body is edited as text of several lines.
    pub body: TextArea<'static>,
    /// The worker's answer on the name typed (new nodes).
    pub name_check: Option<Result<(), String>>,
    pub generation: u64,
    /// Types offered (the spec's and those in use), for ←/→.
    pub types: Vec<String>,
    /// The level's highest tier: a form never offers a tier it cannot read.
    pub max_tier: Tier,
    /// The review before an edit is saved: the diff, and what a tier
    /// change means; a second ctrl-s saves.
    pub review: Option<Vec<String>>,
    pub error: Option<String>,
    pub saving: bool,
    /// A successor made from the supersede picker: once written, it
    /// supersedes this node.
    pub supersedes: Option<String>,
}

impl NodeForm {
    pub fn new(max_tier: Tier) -> Self {
        Self {
            kind: Kind::New,
            focus: Field::Type,
            values: Values {
                node_type: "convention".into(),
                tier: Some(Tier::AgentReadable.min(max_tier)),
                ..Values::default()
            },
            body: TextArea::default(),
            name_check: None,
            generation: 0,
            types: NodeType::KNOWN.iter().map(|t| (*t).to_owned()).collect(),
            max_tier,
            review: None,
            error: None,
            saving: false,
            supersedes: None,
        }
    }

    pub fn edit(values: Values, max_tier: Tier) -> Self {
        let body = TextArea::new(values.body.lines().map(str::to_owned).collect());
        Self {
            kind: Kind::Edit {
                original: Box::new(values.clone()),
            },
            focus: Field::Description,
            values,
            body,
            ..Self::new(max_tier)
        }
    }

    pub fn is_edit(&self) -> bool {
        matches!(self.kind, Kind::Edit { .. })
    }

    /// The values with the body as typed.
    pub fn current(&self) -> Values {
        Values {
            body: self.body.lines().join("\n"),
            ..self.values.clone()
        }
    }

    pub fn modified(&self) -> bool {
        match &self.kind {
            Kind::New => self.current() != NodeForm::new(self.max_tier).values,
            Kind::Edit { original } => self.current() != **original,
        }
    }

    /// The tiers the form offers, lowest first.
    pub fn tiers(&self) -> Vec<Tier> {
        [
            Tier::Public,
            Tier::AgentReadable,
            Tier::AgentRestricted,
            Tier::HumanOnly,
        ]
        .into_iter()
        .filter(|t| *t <= self.max_tier)
        .collect()
    }

    /// ←/→ on a field with choices: the next type or tier.
    pub fn cycle(&mut self, forward: bool) {
        let step = |i: usize, n: usize| if forward { (i + 1) % n } else { (i + n - 1) % n };
        match self.focus {
            Field::Type if !self.types.is_empty() => {
                let i = self.types.iter().position(|t| *t == self.values.node_type).unwrap_or(0);
                self.values.node_type = self.types[step(i, self.types.len())].clone();
            }
            Field::Tier => {
                let tiers = self.tiers();
                let i = tiers.iter().position(|t| Some(*t) == self.values.tier).unwrap_or(0);
                self.values.tier = Some(tiers[step(i, tiers.len())]);
            }
            _ => {}
        }
    }

    /// The new node the form describes, or the first problem, in words.
    pub fn new_node(&self) -> Result<NewNode, String> {
        let v = self.current();
        let node_type = NodeType::new(v.node_type.trim()).map_err(|e| format!("type: {e}"))?;
        let name = Name::new(v.name.trim()).map_err(|e| format!("name: {e}"))?;
        if let Some(Err(e)) = &self.name_check {
            return Err(format!("name: {e}"));
        }
        if v.description.trim().is_empty() {
            return Err("description: say in a sentence what this is".into());
        }
        let tier = v.tier.ok_or("tier: choose one")?;
        let mut n = NewNode::new(name, node_type, v.description.trim(), tier);
        n.properties = v.parsed_properties()?.into();
        n.body = (!v.body.trim().is_empty()).then(|| v.body.clone());
        Ok(n)
    }

    /// The patch an edit makes, or the first problem; empty when nothing
    /// changed.
    pub fn patch(&self) -> Result<NodePatch, String> {
        let Kind::Edit { original } = &self.kind else {
            return Err("not an edit".into());
        };
        let v = self.current();
        let mut p = NodePatch::default();
        if v.node_type != original.node_type {
            p.node_type = Some(NodeType::new(v.node_type.trim()).map_err(|e| format!("type: {e}"))?);
        }
        if v.description != original.description {
            if v.description.trim().is_empty() {
                return Err("description: say in a sentence what this is".into());
            }
            p.description = Some(v.description.clone());
        }
        if v.tier != original.tier {
            p.tier = v.tier;
        }
        if v.body != original.body {
            p.body = Some((!v.body.trim().is_empty()).then(|| v.body.clone()));
        }
        let (before, after) = (original.parsed_properties()?, v.parsed_properties()?);
        for (k, val) in &after {
            if before.get(k) != Some(val) {
                p.properties.insert(k.clone(), val.clone());
            }
        }
        for k in before.keys().filter(|k| !after.contains_key(*k)) {
            // An empty value removes the key.
            p.properties.insert(k.clone(), String::new());
        }
        Ok(p)
    }

    /// The lines of an edit's review: each changed field, old and new.
    pub fn diff(&self) -> Vec<(String, String, String)> {
        let Kind::Edit { original } = &self.kind else {
            return Vec::new();
        };
        let v = self.current();
        let tier = |t: Option<Tier>| t.map(|t| t.to_string()).unwrap_or_default();
        [
            ("type", original.node_type.clone(), v.node_type.clone()),
            ("description", original.description.clone(), v.description.clone()),
            ("tier", tier(original.tier), tier(v.tier)),
            ("properties", original.properties.clone(), v.properties.clone()),
            ("body", original.body.clone(), v.body.clone()),
        ]
        .into_iter()
        .filter(|(_, a, b)| a != b)
        .map(|(f, a, b)| (f.to_owned(), a, b))
        .collect()
    }

    /// Overwrites the text the form holds, then drops it (lock, close).
    pub fn wipe(self) {
        use zeroize::Zeroize as _;
        let NodeForm { values, body, kind, .. } = self;
        let mut all = vec![values];
        if let Kind::Edit { original } = kind {
            all.push(*original);
        }
        for mut v in all {
            v.name.zeroize();
            v.description.zeroize();
            v.properties.zeroize();
            v.body.zeroize();
        }
        for mut line in body.into_lines() {
            line.zeroize();
        }
    }

    /// Whether the edit moves the node to a lower tier (agents may see
    /// more), or to a higher one (earlier versions are sealed again).
    pub fn tier_move(&self) -> Option<(Tier, Tier)> {
        let Kind::Edit { original } = &self.kind else {
            return None;
        };
        match (original.tier, self.values.tier) {
            (Some(a), Some(b)) if a != b => Some((a, b)),
            _ => None,
        }
    }
}
