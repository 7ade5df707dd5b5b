//! The bundle file: one published subgraph, signed by its publisher.
//!
//! ```json
//! {"format":"graphex-federation-bundle","version":1,
//!  "key":"<publisher key, hex>","payload":"<the bundle as JSON text>",
//!  "signature":"<Ed25519 over DOMAIN || payload, hex>"}
//! ```
//!
//! The payload is kept as the exact text that was signed (no
//! canonicalisation to get wrong). With consumers' recipients configured
//! (`to`), it is first sealed to them (age, hex) and `"sealed": true`: only
//! such a bundle may carry nodes or edges above public (a plain one is text
//! in the clear on disk, where nothing but public content may be). It holds the publisher's project and
//! subgraph names, a sequence number that grows with each publish, the
//! nodes (every field of their current version, tiers kept, never
//! human-only), the edges among them, and tombstones: names published
//! before and published no more. A consumer checks the signature against
//! the key it pinned *before* reading the payload, then that the bundle is
//! the source it asked for and not older than what it pulled last.

use serde::{Deserialize, Serialize};

use crate::crypto::{MasterSeal, SealVerifier, hex};
use crate::error::{Error, Result};
use crate::interchange::{ExportEdge, MAX_INPUT_BYTES, NodeRecord};
use crate::model::{Name, Tier};

/// The `format` of a bundle file.
pub const BUNDLE_FORMAT: &str = "graphex-federation-bundle";
/// The bundle format version this program writes and reads.
pub const BUNDLE_VERSION: u32 = 1;
/// What the signature covers before the payload: no other signed message
/// of Graphex starts with it.
const DOMAIN: &[u8] = b"graphex/federation-bundle/v1\0";

/// A published subgraph.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bundle {
    pub project: String,
    pub subgraph: String,
    /// Grows by one with each publish of this subgraph.
    pub sequence: u64,
    /// When it was published (RFC 3339).
    pub published_at: String,
    /// Sorted by name.
    pub nodes: Vec<NodeRecord>,
    /// Only between published nodes; sorted.
    pub edges: Vec<ExportEdge>,
    /// Names published before and not now (sorted): a consumer archives them.
    pub tombstones: Vec<Name>,
}

impl Bundle {
    /// `project/subgraph`.
    pub fn label(&self) -> String {
        format!("{}/{}", self.project, self.subgraph)
    }

    /// The signed file's text; with `to`, the payload is sealed (age) to
    /// those recipients first and the signature covers the sealed text.
    pub fn sign(&self, seal: &MasterSeal, to: &[age::x25519::Recipient]) -> Result<String> {
        let mut payload =
            serde_json::to_string(self).map_err(|e| Error::integrity("a federation bundle", e.to_string()))?;
        let sealed = !to.is_empty();
        if sealed {
            let refs: Vec<&age::x25519::Recipient> = to.iter().collect();
            payload = hex(&crate::keys::files::seal_to(&refs, payload.as_bytes())?);
        }
        let signature = seal.sign_bundle(&[DOMAIN, payload.as_bytes()].concat());
        let env = Envelope {
            format: BUNDLE_FORMAT.into(),
            version: BUNDLE_VERSION,
            key: seal.publisher().to_hex(),
            sealed,
            payload,
            signature: hex(&signature),
        };
        serde_json::to_string_pretty(&env)
            .map(|t| t + "\n")
            .map_err(|e| Error::integrity("a federation bundle", e.to_string()))
    }

    /// Reads a bundle file's bytes, refusing it unless `pinned` signed it
    /// as it is; `file` names it in errors. Nothing of the payload is read
    /// before the signature verifies. A sealed bundle is opened with
    /// `identity` (the consumer's master identity).
    pub fn open(
        file: &str,
        bytes: &[u8],
        pinned: &SealVerifier,
        identity: Option<&age::x25519::Identity>,
    ) -> Result<Bundle> {
        let bad = |reason: String| Error::Document {
            path: file.to_owned(),
            reason,
        };
        if bytes.len() as u64 > MAX_INPUT_BYTES {
            return Err(bad(format!(
                "{} bytes; at most {MAX_INPUT_BYTES} are read",
                bytes.len()
            )));
        }
        let env: Envelope =
            serde_json::from_slice(bytes).map_err(|e| bad(format!("not a Graphex federation bundle: {e}")))?;
        if env.format != BUNDLE_FORMAT {
            return Err(bad(format!("\"format\" is {:?}, not {BUNDLE_FORMAT:?}", env.format)));
        }
        if env.version != BUNDLE_VERSION {
            return Err(bad(format!(
                "bundle format version {}; this program reads version {BUNDLE_VERSION}",
                env.version
            )));
        }
        if env.key.trim() != pinned.to_hex() {
            return Err(Error::integrity(
                file,
                format!(
                    "signed by the key {}, not the pinned key {}: the bundle comes from another publisher \
                     (or the source changed its key: pin the new one and approve it); nothing written",
                    crate::hygiene::visible_text(&env.key.chars().take(80).collect::<String>()),
                    pinned.to_hex()
                ),
            ));
        }
        let signature = crate::crypto::unhex(&env.signature).unwrap_or_default();
        if !pinned.verifies(&[DOMAIN, env.payload.as_bytes()].concat(), &signature) {
            return Err(Error::integrity(
                file,
                "the signature does not verify with the pinned key: the bundle was altered after it was \
                 published; nothing written",
            ));
        }
        let plain = if env.sealed {
            let identity = identity.ok_or_else(|| {
                Error::invalid(
                    "federation bundle",
                    file.to_owned(),
                    "it is sealed to its consumers: opening it needs the master identity",
                )
            })?;
            let sealed =
                crate::crypto::unhex(&env.payload).ok_or_else(|| bad("its sealed payload is not hex".into()))?;
            crate::keys::files::open_with(
                std::path::Path::new(file),
                &sealed,
                identity,
                "this project's master identity",
            )
            .map_err(|e| {
                Error::integrity(
                    file,
                    format!(
                        "it is not sealed to this project ({e}): ask the publisher to add this project's \
                             recipient (`graphex federation key`) to its `to`; nothing written"
                    ),
                )
            })?
            .to_vec()
        } else {
            env.payload.into_bytes()
        };
        let bundle: Bundle =
            serde_json::from_slice(&plain).map_err(|e| bad(format!("the signed payload is malformed: {e}")))?;
        bundle.check(file, env.sealed)?;
        Ok(bundle)
    }

    /// Rules a signed bundle must still follow (a publisher on another
    /// version, or a bug, must not get a human-only node in).
    fn check(&self, file: &str, sealed: bool) -> Result<()> {
        let bad = |reason: String| Error::Document {
            path: file.to_owned(),
            reason,
        };
        // Plain text is in the clear on disk: public content only.
        if !sealed && let Some(n) = self.nodes.iter().find(|n| n.tier > Tier::Public) {
            return Err(bad(format!(
                "it holds the {} node {} in plain text; only public nodes travel unsealed, others only in a \
                 bundle sealed to its consumers",
                n.tier, n.name
            )));
        }
        if !sealed && let Some(e) = self.edges.iter().find(|e| e.tier > Tier::Public) {
            return Err(bad(format!(
                "it holds the {} edge {} -> {} -> {} in plain text; only public edges travel unsealed, others \
                 only in a bundle sealed to its consumers",
                e.tier, e.from, e.relation, e.to
            )));
        }
        if let Some(n) = self.nodes.iter().find(|n| n.tier == Tier::HumanOnly) {
            return Err(bad(format!(
                "it holds the human-only node {}, which never leaves a project",
                n.name
            )));
        }
        let names: std::collections::HashSet<&Name> = self.nodes.iter().map(|n| &n.name).collect();
        if names.len() != self.nodes.len() {
            return Err(bad("a node name appears twice".into()));
        }
        if let Some(e) = self
            .edges
            .iter()
            .find(|e| !names.contains(&e.from) || !names.contains(&e.to))
        {
            return Err(bad(format!(
                "the edge {} -> {} -> {} leaves the published nodes",
                e.from, e.relation, e.to
            )));
        }
        if let Some(t) = self.tombstones.iter().find(|t| names.contains(t)) {
            return Err(bad(format!("{t} is both published and a tombstone")));
        }
        Ok(())
    }
}

/// The file around the signed payload.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Envelope {
    format: String,
    version: u32,
    key: String,
    /// The payload is age ciphertext (hex) sealed to the consumers.
    #[serde(default)]
    sealed: bool,
    payload: String,
    signature: String,
}
