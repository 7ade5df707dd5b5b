//! The scan behind the manifest check: every node and edge row of the
//! index read once (from the covering tier indexes), tagged per group, by
//! the master's seal, or into the readable rows' set hash, as the session
//! can. The edge half can run on a thread of its own (see `Part`).

use rusqlite::Connection;

use super::manifest::{Group, RowToken, Sum, Tagger, stored_digest, tagger_of, tampered, token};
use super::seal::SealTagger;
use super::verified::{RowKind, VerifiedNodes};
use super::{blob, row_edge_id, row_node_id, row_tier, row_version};
use crate::crypto::LtHash;
use crate::error::{Error, Result};

/// Asked now and then by a long scan: true stops it with
/// [`Error::Stopped`] (an idle session's check, when a client knocks).
pub(crate) type Stop<'a> = dyn Fn() -> bool + 'a;

/// Never stops.
pub(crate) fn never() -> bool {
    false
}

/// Rows a scan reads between two questions to its [`Stop`] (fewer in
/// tests, so a small store is asked too).
const ASK_EVERY: u32 = if cfg!(test) { 16 } else { 1 << 16 };

/// Counts a scan's rows and asks its [`Stop`] every [`ASK_EVERY`].
pub(crate) struct Asking<'a> {
    stop: &'a Stop<'a>,
    rows: u32,
}

impl<'a> Asking<'a> {
    pub(crate) fn new(stop: &'a Stop<'a>) -> Self {
        Self { stop, rows: 0 }
    }

    /// One more row read; an error once asked to stop.
    pub(crate) fn row(&mut self) -> Result<()> {
        self.rows = self.rows.wrapping_add(1);
        if self.rows.is_multiple_of(ASK_EVERY) && (self.stop)() {
            return Err(Error::Stopped);
        }
        Ok(())
    }
}

/// Every node row as the manifest sees it: from the rows (v10), or from the
/// covering tier index of a store still at v9.
/// Every node row (see `blob_name`).
fn node_rows() -> String {
    format!(
        "SELECT id, tier, version, {}, digest, name_token FROM nodes",
        super::blob_name::BLOB_NAME
    )
}
/// Every edge row as the manifest sees it (read as [`node_rows`]).
const EDGE_ROWS: &str = "SELECT id, tier, seq, digest, token FROM edges";

/// The count and XOR of tags of every row in `groups`, noting each
/// node row's tag and the edge rows per tier in `verified`; with `seal`,
/// also the master-keyed tags of every row of every tier.
pub(super) fn tally(
    conn: &Connection,
    groups: &[(Group, Tagger)],
    seal: Option<&SealTagger>,
    readable: Option<&mut LtHash>,
    verified: &mut VerifiedNodes,
    part: Part,
) -> Result<([Sum; 3], Sum)> {
    tally_asking(conn, groups, seal, readable, verified, part, &mut Asking::new(&never))
}

/// [`tally`], asking `asking` as it reads the rows.
fn tally_asking(
    conn: &Connection,
    groups: &[(Group, Tagger)],
    seal: Option<&SealTagger>,
    mut readable: Option<&mut LtHash>,
    verified: &mut VerifiedNodes,
    part: Part,
    asking: &mut Asking<'_>,
) -> Result<([Sum; 3], Sum)> {
    let mut sums = [Sum::default(); 3];
    let mut sealed = Sum::default();
    let edge_rows = match part {
        Part::Nodes => None,
        Part::All | Part::Edges => Some(EDGE_ROWS),
    };
    if let Some(query) = edge_rows {
        let mut stmt = conn.prepare(query)?;
        let grouped = super::schema::grouped(conn)?;
        tally_edges(
            (&mut stmt, grouped),
            groups,
            seal,
            readable.as_deref_mut(),
            verified,
            (&mut sums, &mut sealed),
            asking,
        )?;
    }
    if !matches!(part, Part::Nodes | Part::All) {
        return Ok((sums, sealed));
    }
    let count: i64 = conn.query_row("SELECT COUNT(*) FROM nodes", [], |r| r.get(0))?;
    verified.nodes.reserve(usize::try_from(count).unwrap_or(0));
    let mut nodes = conn.prepare(&node_rows())?;
    let mut rows = nodes.query([])?;
    while let Some(r) = rows.next()? {
        asking.row()?;
        let tier = row_tier(r.get(1)?)?;
        let group = tagger_of(groups, tier);
        if group.is_none() && seal.is_none() {
            continue;
        }
        let id = row_node_id(blob(r, 0)?)?;
        let version = row_version(r.get(2)?)?;
        let name = r
            .get_ref(3)?
            .as_str()
            .map_err(|_| Error::integrity("index row", "a blob name is not text"))?;
        // Tags hash fixed-length fields only: a blob name is a SHA-256. (The
        // seal's tags decode it, and a malformed one matches nothing.)
        if seal.is_none() && !super::objects::is_blob_name(name) {
            return Err(tampered(Group::of(tier), "a blob name is not a SHA-256"));
        }
        let digest = stored_digest(r.get_ref(4)?);
        if let Some(lt) = readable.as_deref_mut()
            && Group::of(tier) == Group::Readable
        {
            let element = super::seal::node_element(&id, tier, version, name, &digest);
            lt.add(&element, 1);
            verified.load_element(RowKind::Node, *id.as_bytes(), element);
        }
        if let Some(s) = seal {
            // The master's tag covers what the group's would, and more:
            // one tag a row, the groups only counted.
            let tag = s.node(&id, tier, version, name, &digest, token(r, 5)?);
            sealed.add(&tag, 1);
            sums[Group::of(tier).index()].count += 1;
            verified.load_node(id, tier, version, tag);
        } else if let Some((g, t)) = group {
            let tag = t.node(&id, tier, version, name, &digest);
            sums[g.index()].add(&tag, 1);
            verified.load_node(id, tier, version, tag);
        }
    }
    Ok((sums, sealed))
}

/// Which rows a tally reads: the two halves run on two threads at open.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Part {
    Nodes,
    Edges,
    All,
}

/// The edge half of [`tally`], adding into `sums` and `sealed`.
/// `grouped`: the rows are edge groups (v11), each tagged with its tokens.
fn tally_edges(
    (edges, grouped): (&mut rusqlite::Statement<'_>, bool),
    groups: &[(Group, Tagger)],
    seal: Option<&SealTagger>,
    mut readable: Option<&mut LtHash>,
    verified: &mut VerifiedNodes,
    (sums, sealed): (&mut [Sum; 3], &mut Sum),
    asking: &mut Asking<'_>,
) -> Result<()> {
    let mut rows = edges.query([])?;
    while let Some(r) = rows.next()? {
        asking.row()?;
        let tier = row_tier(r.get(1)?)?;
        let group = tagger_of(groups, tier);
        if group.is_none() && seal.is_none() {
            continue;
        }
        let id = row_edge_id(blob(r, 0)?)?;
        let seq = row_version(r.get(2)?)?;
        let digest = stored_digest(r.get_ref(3)?);
        let tokens = token(r, 4)?;
        // A group's tokens are in each of its tags, so the edges it counts
        // by them are vouched for.
        let (token, held) = if grouped {
            (RowToken::group(tokens), super::edge_groups::held(tokens))
        } else {
            (RowToken::of(tokens), 1)
        };
        let group_token = grouped.then_some(&token);
        if let Some(lt) = readable.as_deref_mut()
            && Group::of(tier) == Group::Readable
        {
            let element = super::seal::edge_element(&id, tier, seq, &digest, group_token);
            lt.add(&element, 1);
            verified.load_element(RowKind::Edge, *id.as_bytes(), element);
        }
        if let Some(s) = seal {
            let tag = s.edge_row(&id, tier, seq, &digest, &token, grouped);
            sealed.add(&tag, 1);
            sums[Group::of(tier).index()].count += 1;
            verified.load_edge(id, tier, tag, held);
        } else if let Some((g, t)) = group {
            let tag = t.edge(&id, tier, seq, &digest, group_token);
            sums[g.index()].add(&tag, 1);
            verified.load_edge(id, tier, tag, held);
        }
    }
    Ok(())
}

/// The master-keyed tags of every row and the set hash of the readable
/// rows, for a seal built from scratch.
pub(super) fn seal_rows(conn: &Connection, seal: &SealTagger, stop: &Stop<'_>) -> Result<(Sum, LtHash)> {
    let mut lt = LtHash::default();
    let (_, sum) = tally_asking(
        conn,
        &[],
        Some(seal),
        Some(&mut lt),
        &mut VerifiedNodes::new(),
        Part::All,
        &mut Asking::new(stop),
    )?;
    Ok((sum, lt))
}
