//! What federation remembers between runs: per published subgraph its last
//! sequence number, every name it ever published (for tombstones) and
//! which of them only ever left sealed (kept out of plain tombstones), per
//! pulled source the last sequence applied (to refuse an older bundle).
//!
//! Names of published nodes can be of any tier a master reads, so the state
//! is one record in `meta.federation` sealed with AES-256-GCM under a key
//! derived from the master identity (`Purpose::FederationState`): nothing
//! of it is on disk in the clear, and an agent (which holds no master key)
//! can neither read nor forge it. It is not in the master's seal, so an
//! older record put back by hand is not caught here; a pull therefore also
//! takes the highest sequence its timeline entries name (`federation pull
//! <source> #N`, rows under the master's MAC), and an older copy of the
//! publisher's record only makes its next bundle's sequence one its
//! consumers refuse.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use zeroize::Zeroizing;

use crate::crypto::{MasterSeal, Sealer, hex};
use crate::error::{Error, Result};
use crate::store::Store;

const AD: &[u8] = b"graphex/federation-state/v1";
const KEY: &str = "federation";

/// The whole state.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct State {
    pub published: BTreeMap<String, Published>,
    pub pulled: BTreeMap<String, Pulled>,
}

/// One published subgraph.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Published {
    pub sequence: u64,
    /// Every name ever published under this subgraph.
    pub names: BTreeSet<String>,
    /// The names of `names` only ever published in a sealed bundle: a
    /// plain bundle's tombstones leave them out (its text is in the clear).
    /// Absent from a state written before sealed bundles (none was sealed).
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub sealed_only: BTreeSet<String>,
}

/// One pulled source.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Pulled {
    pub sequence: u64,
}

fn seal_of(store: &Store) -> Result<&MasterSeal> {
    store
        .keys()
        .seal()
        .ok_or_else(|| store.keys().needs(crate::keys::Level::Master, "federation"))
}

/// The state as stored (empty when there is none).
pub(crate) fn load(store: &Store) -> Result<State> {
    let seal = seal_of(store)?;
    let Some(text) = crate::store::meta(store.conn(), KEY)? else {
        return Ok(State::default());
    };
    let forged = || {
        Error::integrity(
            "the federation state",
            "it fails authentication (written or altered outside Graphex); nothing done",
        )
    };
    let bytes = crate::crypto::unhex(&text).ok_or_else(forged)?;
    let plain = Zeroizing::new(
        Sealer::new(seal.federation_key())
            .open(AD, &bytes)
            .map_err(|_| forged())?,
    );
    serde_json::from_slice(&plain).map_err(|_| forged())
}

/// Stores `state`, replacing what was there.
pub(crate) fn save(store: &Store, state: &State) -> Result<()> {
    let seal = seal_of(store)?;
    let plain =
        Zeroizing::new(serde_json::to_vec(state).map_err(|e| Error::integrity("the federation state", e.to_string()))?);
    let sealed = Sealer::new(seal.federation_key()).seal(AD, &plain)?;
    store.conn().execute(
        "INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)",
        [KEY, hex(&sealed).as_str()],
    )?;
    Ok(())
}
