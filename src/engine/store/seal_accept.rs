//! What `seal --accept KIND=DIGEST` names. Accepting a kind of difference
//! puts what the store holds of it now under the new seal, so a person must
//! have seen exactly that: each difference carries a digest of the store's
//! present content of its kind (and of the trusted seal it differs from),
//! printed beside it. An acceptance whose digest is not the one the store
//! gives now (a change after it was shown, or none shown at all) is refused.

use rusqlite::Connection;

use super::manifest::Sum;
use super::seal::SealTagger;
use super::seal_repair::{DiffKind, decisions_sum};
use super::seal_statement::StatementId;
use super::{policy, saved, schema, seal_timeline, tally};
use crate::config::Config;
use crate::error::{Error, Result};

/// How many hex digits name an acceptance: 64 bits, as an approval's.
const DIGEST_HEX: usize = 16;

/// One kind of difference a person accepts, named by the digest shown
/// with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Acceptance {
    pub kind: DiffKind,
    pub digest: String,
}

impl Acceptance {
    /// Parses `KIND=DIGEST` (`--accept`); `KIND` alone has no digest and is
    /// refused when sealing.
    pub fn parse(text: &str) -> Option<Acceptance> {
        let (kind, digest) = text.split_once('=').unwrap_or((text, ""));
        Some(Acceptance {
            kind: super::seal_repair::diff_kind(kind.trim())?,
            digest: digest.trim().to_ascii_lowercase(),
        })
    }
}

fn sum_bytes(out: &mut Vec<u8>, s: &Sum) {
    out.extend_from_slice(&s.count.to_le_bytes());
    out.extend_from_slice(&s.acc);
}

/// What the store holds now of `kind`; `settings` is what sealing would
/// leave in force.
pub(super) fn fingerprint(
    conn: &Connection,
    tagger: &SealTagger,
    kind: DiffKind,
    settings: &Config,
) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    match kind {
        DiffKind::Commits => out.extend_from_slice(&schema::commit_seq(conn)?.to_le_bytes()),
        DiffKind::Rows => sum_bytes(&mut out, &tally::seal_rows(conn, tagger, &tally::never)?.0),
        DiffKind::Decisions => sum_bytes(&mut out, &decisions_sum(conn, tagger)?),
        DiffKind::Audit => {
            let (last, hash) = super::audit_head(conn)?;
            out.extend_from_slice(&last.to_le_bytes());
            out.extend_from_slice(hash.as_bytes());
        }
        DiffKind::Settings => out.extend_from_slice(&settings.digest()?),
        DiffKind::Queries => sum_bytes(&mut out, &saved::tally(conn, tagger)?),
        DiffKind::Timeline => sum_bytes(&mut out, &seal_timeline::tally(conn, tagger, u64::MAX)?),
        DiffKind::NoReference => {
            // With nothing to compare with, all of it is accepted at once.
            for k in DiffKind::ALL.into_iter().filter(|k| *k != DiffKind::NoReference) {
                out.extend_from_slice(k.as_str().as_bytes());
                out.extend_from_slice(&fingerprint(conn, tagger, k, settings)?);
            }
        }
    }
    Ok(out)
}

/// The digest of accepting `kind` with this `fingerprint`, after the trusted
/// seal `follows` (none when there is no reference): a MAC under the
/// master's seal key, so only `graphex seal` itself can show one (nobody
/// without the key can hand a person a digest to paste).
pub(super) fn digest(
    key: &crate::crypto::SymmetricKey,
    kind: DiffKind,
    follows: Option<&StatementId>,
    fingerprint: &[u8],
) -> String {
    use hmac::{KeyInit, Mac};
    let mut m = <hmac::Hmac<sha2::Sha256> as KeyInit>::new_from_slice(key.expose())
        .unwrap_or_else(|_| unreachable!("HMAC accepts any key length"));
    m.update(b"graphex/seal-accept/v1\0");
    m.update(kind.as_str().as_bytes());
    m.update(&[0]);
    if let Some(id) = follows {
        m.update(id);
    }
    m.update(&[0]);
    m.update(fingerprint);
    crate::crypto::hex(&m.finalize().into_bytes())[..DIGEST_HEX].to_owned()
}

/// What sealing would leave in force: the approved settings, or, when none
/// were ever approved, the file's (when it can be used). `None` for the
/// file means the defaults.
pub(super) fn settings_after(conn: &Connection, file: Option<Config>) -> Result<(Config, bool)> {
    if policy::is_set(conn)? {
        return Ok((policy::approved(conn)?, false));
    }
    match file.filter(|c| c.projection_settings().is_ok()) {
        Some(c) => Ok((c, true)),
        None => Ok((Config::default(), false)),
    }
}

/// The kinds accepted, each checked against the digest the store gives
/// now; an acceptance of a kind that does not differ is ignored.
pub(super) fn checked(
    differences: &[super::seal_repair::Difference],
    accepted: &[Acceptance],
) -> Result<Vec<DiffKind>> {
    let mut kinds = Vec::new();
    for a in accepted {
        let Some(d) = differences.iter().find(|d| d.kind == a.kind) else {
            continue;
        };
        if a.digest != d.digest {
            let why = if a.digest.is_empty() {
                format!(
                    "accepting it needs the digest printed beside it, after you read what it puts under the seal: \
                     --accept {}={}",
                    a.kind.as_str(),
                    d.digest
                )
            } else {
                "it is not what the store holds now (it changed since it was shown): run `graphex seal` again and \
                 read it"
                    .to_owned()
            };
            return Err(Error::invalid(
                "--accept",
                format!("{}={}", a.kind.as_str(), a.digest),
                why,
            ));
        }
        kinds.push(a.kind);
    }
    Ok(kinds)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_acceptance_parses_with_or_without_its_digest() {
        assert_eq!(
            Acceptance::parse("settings=ABCD"),
            Some(Acceptance {
                kind: DiffKind::Settings,
                digest: "abcd".into()
            })
        );
        assert_eq!(Acceptance::parse("rows").map(|a| a.digest), Some(String::new()));
        assert_eq!(Acceptance::parse("everything=1"), None);
        let key = crate::crypto::SymmetricKey::from_bytes([7; 32]);
        let d = digest(&key, DiffKind::Rows, None, b"x");
        assert_eq!(d.len(), DIGEST_HEX);
        assert_ne!(d, digest(&key, DiffKind::Rows, None, b"y"));
        assert_ne!(d, digest(&key, DiffKind::Rows, Some(&[1; 32]), b"x"));
        assert_ne!(d, digest(&key, DiffKind::Audit, None, b"x"));
        let other = crate::crypto::SymmetricKey::from_bytes([8; 32]);
        assert_ne!(d, digest(&other, DiffKind::Rows, None, b"x"), "no key, no digest");
    }
}
