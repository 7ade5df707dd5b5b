//! `[graphex.federation]`: which subgraphs this project publishes and which
//! other projects' subgraphs it pulls, validated strictly.
//!
//! ```toml
//! [graphex.federation]
//! project = "webapp"            # this project's name as a publisher
//! sources = [
//!   { project = "org-conventions", subgraph = "glossary", access = "read-only",
//!     path = "../org-conventions/.gpp/graphex/federation/out/glossary.bundle",
//!     key = "<the publisher's key, from `graphex federation key`>" },
//!   { project = "platform", subgraph = "runbooks", access = "read-only",
//!     git = "git@example.com:platform/knowledge.git",   # a URL or a remote's name
//!     key = "<…>" },                                    # ref = "refs/graphex/federation/runbooks"
//! ]
//! publish = [
//!   { subgraph = "order-domain", nodes = ["orders-*", "billing-*"] },
//! ]
//! ```
//!
//! Like every setting, these are in force only once the master approved
//! them (`graphex config approve`): an agent that edits the file cannot add
//! a source, swap a pinned key or widen what is published.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use crate::crypto::SealVerifier;
use crate::error::{Error, Result};

/// The longest project or subgraph name.
pub const MAX_LABEL_LEN: usize = 64;
/// The most patterns one published subgraph may have.
pub const MAX_PATTERNS: usize = 64;

/// `[graphex.federation]`
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct FederationConfig {
    /// This project's name in the bundles it publishes (needed to publish).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    /// Subgraphs of other projects pulled here, read-only.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<SourceConfig>,
    /// Subgraphs this project publishes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub publish: Vec<PublishConfig>,
}

/// One pulled subgraph.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SourceConfig {
    /// The publishing project's name (as in its bundles).
    pub project: String,
    /// The published subgraph's name.
    pub subgraph: String,
    /// Only `read-only`: federation flows one way.
    pub access: String,
    /// Where the bundle is: a file path, relative to the repository root
    /// (the directory holding `.gpp/`) unless absolute. Either this or `git`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Or a git remote publishing it: a URL, or the name of a remote of this
    /// repository. Git fetches it (its transport, its credentials).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git: Option<String>,
    /// With `git`: the ref holding the bundles, by default
    /// [`federation_ref`] of the subgraph.
    #[serde(default, rename = "ref", skip_serializing_if = "Option::is_none")]
    pub git_ref: Option<String>,
    /// The publisher's Ed25519 public key, hex (64 characters) or base64
    /// (44), as `graphex federation key` prints it in the source project.
    pub key: String,
}

/// Where a source's bundle comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// A file, as configured (relative to the repository root unless absolute).
    Path(String),
    /// The newest commit of `reference` on the git remote `remote`.
    Git { remote: String, reference: String },
}

/// The ref a subgraph's bundles are committed on, by default:
/// `refs/graphex/federation/SUBGRAPH` (its own history, never a branch).
pub fn federation_ref(subgraph: &str) -> String {
    format!("refs/graphex/federation/{subgraph}")
}

/// The file a federation commit holds: `SUBGRAPH.bundle`.
pub fn bundle_file(subgraph: &str) -> String {
    format!("{subgraph}.bundle")
}

impl SourceConfig {
    /// Where the bundle is (the settings were validated: exactly one of
    /// `path` and `git`).
    pub fn location(&self) -> Location {
        match (&self.path, &self.git) {
            (_, Some(remote)) => Location::Git {
                remote: remote.clone(),
                reference: self.git_ref.clone().unwrap_or_else(|| federation_ref(&self.subgraph)),
            },
            (Some(path), None) => Location::Path(path.clone()),
            (None, None) => Location::Path(String::new()),
        }
    }

    /// `project/subgraph`: how the source is named in messages, tags and
    /// on the command line.
    pub fn label(&self) -> String {
        format!("{}/{}", self.project, self.subgraph)
    }

    /// The pinned key (validated when the configuration was parsed).
    pub fn pinned_key(&self) -> Result<SealVerifier> {
        parse_key(&self.key).ok_or_else(|| {
            Error::invalid(
                "federation key",
                self.key.clone(),
                "not an Ed25519 public key (64 hex or 44 base64 characters)",
            )
        })
    }
}

/// One published subgraph.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PublishConfig {
    pub subgraph: String,
    /// Node name patterns: `*` matches any run, `?` one character.
    pub nodes: Vec<String>,
    /// The consumers' age recipients (`age1…`, what `graphex federation
    /// key` prints in each consumer project): the bundle is sealed to them
    /// and may then carry agent-readable and agent-restricted nodes.
    /// Without any, the bundle is plain text and carries public nodes only
    /// (nothing but public content is ever in the clear on disk).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub to: Vec<String>,
}

impl PublishConfig {
    /// The consumers' recipients, parsed (checked by `validate`).
    pub fn recipients(&self) -> Result<Vec<age::x25519::Recipient>> {
        self.to
            .iter()
            .map(|r| {
                r.trim().parse::<age::x25519::Recipient>().map_err(|_| {
                    Error::invalid(
                        "federation setting",
                        format!("publish {:?}: to = {r:?}", self.subgraph),
                        "not an age recipient (age1…, from `graphex federation key` in the consumer project)",
                    )
                })
            })
            .collect()
    }

    /// The most secret tier this subgraph's bundles carry: agent-restricted
    /// when sealed to its consumers, public in plain text.
    pub fn ceiling(&self) -> crate::model::Tier {
        if self.to.is_empty() {
            crate::model::Tier::Public
        } else {
            crate::model::Tier::AgentRestricted
        }
    }

    /// Whether the node `name` is in this subgraph.
    pub fn includes(&self, name: &str) -> bool {
        self.nodes
            .iter()
            .any(|p| crate::query::glob_match(p.as_bytes(), name.as_bytes()))
    }
}

impl FederationConfig {
    /// True when nothing is configured (the canonical settings then leave
    /// the section out, so stores approved before federation keep their digest).
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }

    /// Every rule the file must follow; the first problem, named.
    pub fn validate(&self) -> Result<()> {
        let bad = |value: String, reason: String| Error::invalid("federation setting", value, reason);
        if let Some(p) = &self.project {
            check_label("project", p).map_err(|r| bad(p.clone(), r))?;
        }
        let mut seen = HashSet::new();
        for (i, s) in self.sources.iter().enumerate() {
            let at = format!("sources[{i}]");
            check_label("project", &s.project).map_err(|r| bad(format!("{at}.project"), r))?;
            check_label("subgraph", &s.subgraph).map_err(|r| bad(format!("{at}.subgraph"), r))?;
            if s.access != "read-only" {
                return Err(bad(
                    format!("{at}.access = {:?}", s.access),
                    "only \"read-only\" is supported: pulled nodes are never edited here".into(),
                ));
            }
            match (&s.path, &s.git) {
                (Some(_), Some(_)) => {
                    return Err(bad(
                        at.clone(),
                        "both `path` and `git`: a source's bundle comes from one place".into(),
                    ));
                }
                (None, None) => {
                    return Err(bad(
                        at.clone(),
                        "no `path` nor `git`: say where the source publishes its bundle".into(),
                    ));
                }
                (Some(p), None) if p.trim().is_empty() => {
                    return Err(bad(
                        format!("{at}.path"),
                        "empty: give the path of the bundle the source publishes".into(),
                    ));
                }
                (Some(_), None) if s.git_ref.is_some() => {
                    return Err(bad(
                        format!("{at}.ref"),
                        "a ref is only for a `git` source; a `path` source names its file".into(),
                    ));
                }
                (None, Some(remote)) => check_remote(remote).map_err(|r| bad(format!("{at}.git = {remote:?}"), r))?,
                _ => {}
            }
            if let Some(r) = &s.git_ref {
                check_ref(r).map_err(|why| bad(format!("{at}.ref = {r:?}"), why))?;
            }
            if parse_key(&s.key).is_none() {
                return Err(bad(
                    format!("{at}.key"),
                    "not an Ed25519 public key (64 hex or 44 base64 characters, from `graphex federation key` \
                     in the source project)"
                        .into(),
                ));
            }
            if !seen.insert(s.label()) {
                return Err(bad(
                    format!("{at} ({})", s.label()),
                    "this source is listed twice".into(),
                ));
            }
        }
        let mut seen = HashSet::new();
        for (i, p) in self.publish.iter().enumerate() {
            let at = format!("publish[{i}]");
            check_label("subgraph", &p.subgraph).map_err(|r| bad(format!("{at}.subgraph"), r))?;
            if !seen.insert(p.subgraph.as_str()) {
                return Err(bad(
                    format!("{at}.subgraph = {:?}", p.subgraph),
                    "this subgraph is published twice".into(),
                ));
            }
            if p.nodes.is_empty() {
                return Err(bad(
                    format!("{at}.nodes"),
                    "empty: give at least one node name pattern".into(),
                ));
            }
            if p.nodes.len() > MAX_PATTERNS {
                return Err(bad(format!("{at}.nodes"), format!("at most {MAX_PATTERNS} patterns")));
            }
            for pattern in &p.nodes {
                check_glob(pattern).map_err(|r| bad(format!("{at}.nodes: {pattern:?}"), r))?;
            }
            p.recipients()?;
            if p.to.iter().collect::<HashSet<_>>().len() != p.to.len() {
                return Err(bad(format!("{at}.to"), "a recipient is listed twice".into()));
            }
        }
        if !self.publish.is_empty() && self.project.is_none() {
            return Err(bad(
                "project".into(),
                "missing: publishing needs this project's name (`project = \"...\"` in [graphex.federation])".into(),
            ));
        }
        Ok(())
    }

    /// The source named `label` (`project/subgraph`, or a subgraph name
    /// that only one source has).
    pub fn source(&self, label: &str) -> Result<&SourceConfig> {
        let found: Vec<&SourceConfig> = self
            .sources
            .iter()
            .filter(|s| s.label() == label || s.subgraph == label)
            .collect();
        match found.as_slice() {
            [one] => Ok(one),
            [] => Err(Error::NotFound(format!(
                "federation source {label} (the approved sources: {})",
                list(self.sources.iter().map(SourceConfig::label))
            ))),
            _ => Err(Error::invalid(
                "federation source",
                label,
                "several sources publish a subgraph of this name; give project/subgraph",
            )),
        }
    }

    /// The published subgraph `name`.
    pub fn published(&self, name: &str) -> Result<&PublishConfig> {
        self.publish.iter().find(|p| p.subgraph == name).ok_or_else(|| {
            Error::NotFound(format!(
                "published subgraph {name} (the approved ones: {})",
                list(self.publish.iter().map(|p| p.subgraph.clone()))
            ))
        })
    }
}

fn list(items: impl Iterator<Item = String>) -> String {
    let v: Vec<String> = items.collect();
    if v.is_empty() { "none".into() } else { v.join(", ") }
}

/// A project or subgraph name: the rules of node names, at most
/// [`MAX_LABEL_LEN`] characters, no `/` (it separates the two).
fn check_label(what: &str, s: &str) -> std::result::Result<(), String> {
    if s.is_empty() {
        return Err(format!("the {what} name is empty"));
    }
    if s.len() > MAX_LABEL_LEN {
        return Err(format!("a {what} name has at most {MAX_LABEL_LEN} characters"));
    }
    if let Some(c) = s.chars().find(|c| !is_name_char(*c)) {
        return Err(format!(
            "character {c:?} is not allowed in a {what} name (use a-z, 0-9, '-', '_', '.')"
        ));
    }
    Ok(())
}

/// A git remote: a URL or a remote's name, never read as an option.
fn check_remote(remote: &str) -> std::result::Result<(), String> {
    if remote.trim().is_empty() {
        return Err("empty: give a URL or the name of a remote of this repository".into());
    }
    if remote.starts_with('-') {
        return Err("it starts with '-', which git would read as an option".into());
    }
    if remote.chars().any(char::is_control) {
        return Err("it holds a control character".into());
    }
    Ok(())
}

/// A full ref name git accepts (`refs/…`), of plain characters only.
fn check_ref(r: &str) -> std::result::Result<(), String> {
    let plain = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/');
    if !r.starts_with("refs/") {
        return Err("a ref is a full name starting with refs/ (as refs/graphex/federation/SUBGRAPH)".into());
    }
    if let Some(c) = r.chars().find(|c| !plain(*c)) {
        return Err(format!(
            "character {c:?} is not allowed (use letters, digits, '-', '_', '.', '/')"
        ));
    }
    let bad_part = r
        .split('/')
        .any(|part| part.is_empty() || part.starts_with('.') || part.ends_with(".lock"));
    if bad_part || r.contains("..") || r.ends_with('/') {
        return Err(
            "not a valid ref name (an empty part, `..`, or a part starting with '.' or ending in .lock)".into(),
        );
    }
    Ok(())
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '_' | '.')
}

/// A node name pattern: name characters, `*` and `?`, and not empty.
fn check_glob(p: &str) -> std::result::Result<(), String> {
    if p.is_empty() {
        return Err("an empty pattern matches no node".into());
    }
    if let Some(c) = p.chars().find(|c| !is_name_char(*c) && !matches!(c, '*' | '?')) {
        return Err(format!(
            "character {c:?} can never match a node name (patterns use name characters, `*` and `?`)"
        ));
    }
    Ok(())
}

/// Parses a pinned key: 64 hex characters, or standard base64 of 32 bytes.
pub fn parse_key(text: &str) -> Option<SealVerifier> {
    let text = text.trim();
    if text.len() == 64 {
        return SealVerifier::from_hex(text);
    }
    let bytes = base64_32(text)?;
    SealVerifier::from_hex(&crate::crypto::hex(&bytes))
}

/// Standard (padded or not) base64 of exactly 32 bytes.
fn base64_32(text: &str) -> Option<[u8; 32]> {
    let digits = text.trim_end_matches('=');
    if digits.len() != 43 || text.len() > 44 {
        return None;
    }
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let mut out = Vec::with_capacity(33);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in digits.bytes() {
        acc = (acc << 6) | value(c)?;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push(((acc >> bits) & 0xff) as u8);
        }
    }
    // 43 digits carry 258 bits: the last 2 must be zero (canonical form).
    if acc & ((1 << bits) - 1) != 0 {
        return None;
    }
    out.try_into().ok()
}

/// `bytes` (32) as standard padded base64, as `federation key` also prints.
pub fn base64_of(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(DIGITS[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}
