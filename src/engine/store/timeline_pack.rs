//! A commit's timeline rows as stored (schema v10): consecutive rows that
//! say the same but for the node (or the edge) they name are one stored
//! row, whose `node_id` (or `edge_id`) holds their ids one after the other,
//! 16 bytes each, at least two and at most [`MAX_IDS`]. An import of 100,000
//! nodes and 500,000 edges is then 148 rows where it was 600,000, each with
//! its own MAC (48.6 MB of rows and 33 MB of indexes, 9.9 MB packed).
//!
//! Packing changes how rows are stored, not what they say: every reader of
//! rows (undo, as-of, history, the timeline, a session's refresh, `doctor`,
//! the merge driver's lineage) reads the rows a stored row stands for
//! ([`unpack`]), and the row MACs and the seal's tags cover the stored rows
//! (a packed row's ids are one length-prefixed field of its MAC and its
//! tag, so no id can be added, dropped or moved without failing both). A
//! store at v9 is never packed (an older graphex reads it).

use super::rowmac::TimelineRow;
use crate::error::{Error, Result};

/// The most ids one stored row packs (64 KiB of ids).
pub(crate) const MAX_IDS: usize = 4096;

/// The length of one id.
const ID: usize = 16;

/// Which of a row's two id fields names what it changed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Field {
    Node,
    Edge,
}

/// The field a row could be packed by: it names exactly one node or one
/// edge, by a single id.
fn field_of(row: &TimelineRow) -> Option<Field> {
    match (&row.node, &row.edge) {
        (Some(n), None) if n.len() == ID => Some(Field::Node),
        (None, Some(e)) if e.len() == ID => Some(Field::Edge),
        _ => None,
    }
}

/// Whether two rows say the same but for the id they name.
fn same_but_id(a: &TimelineRow, b: &TimelineRow) -> bool {
    a.at == b.at
        && a.actor == b.actor
        && a.action == b.action
        && a.before == b.before
        && a.after == b.after
        && a.proposal == b.proposal
        && a.commit == b.commit
}

/// Stored rows being made from one commit's rows, in order.
#[derive(Default)]
struct Packer {
    out: Vec<TimelineRow>,
    /// The run being packed: its first row (its id field holds every id
    /// so far, [`ID`] bytes each) and which field that is.
    run: Option<(TimelineRow, Field)>,
}

impl Packer {
    /// Adds the commit's next row.
    fn push(&mut self, row: TimelineRow) {
        let field = field_of(&row);
        if let (Some((first, f)), Some(field)) = (&mut self.run, field)
            && *f == field
            && same_but_id(first, &row)
        {
            let (ids, id) = match field {
                Field::Node => (&mut first.node, &row.node),
                Field::Edge => (&mut first.edge, &row.edge),
            };
            if let (Some(ids), Some(id)) = (ids, id)
                && ids.len() < MAX_IDS * ID
            {
                ids.extend_from_slice(id);
                return;
            }
        }
        self.flush();
        match field {
            Some(f) => self.run = Some((row, f)),
            None => self.out.push(row),
        }
    }

    fn flush(&mut self) {
        if let Some((row, _)) = self.run.take() {
            self.out.push(row);
        }
    }

    /// The stored rows, in order.
    fn finish(mut self) -> Vec<TimelineRow> {
        self.flush();
        self.out
    }
}

/// One commit's rows as they are stored.
pub(crate) fn pack(rows: impl IntoIterator<Item = TimelineRow>) -> Vec<TimelineRow> {
    let mut p = Packer::default();
    for r in rows {
        p.push(r);
    }
    p.finish()
}

/// Whether a stored row's id field packs several ids.
pub(crate) fn packed(field: Option<&[u8]>) -> bool {
    field.is_some_and(|b| b.len() > ID)
}

/// The ids a stored row's id field names: itself, or the ids it packs.
/// Refuses a field that is neither one id nor a whole number of them, or
/// packs more than [`MAX_IDS`] (read before any MAC is checked, and below
/// the master level never checked: its size is bounded here).
pub(crate) fn ids(field: &[u8]) -> Result<std::slice::ChunksExact<'_, u8>> {
    if field.len() < ID || !field.len().is_multiple_of(ID) || field.len() > MAX_IDS * ID {
        return Err(Error::integrity(
            "a timeline row",
            format!(
                "it names {} bytes of ids, not a whole number of 16-byte ids up to {MAX_IDS}: written outside \
                 Graphex",
                field.len()
            ),
        ));
    }
    Ok(field.chunks_exact(ID))
}

/// The node and the edge one row names (either may be absent).
pub(crate) type Named = (Option<Vec<u8>>, Option<Vec<u8>>);

/// The node and edge each row a stored row stands for names, in order,
/// from the stored row's two id fields.
pub(crate) fn named(node: Option<Vec<u8>>, edge: Option<Vec<u8>>) -> Result<Vec<Named>> {
    let one = |b: &[u8]| Some(b.to_vec());
    match (node, edge) {
        (Some(n), None) if packed(Some(&n)) => Ok(ids(&n)?.map(|id| (one(id), None)).collect()),
        (None, Some(e)) if packed(Some(&e)) => Ok(ids(&e)?.map(|id| (None, one(id))).collect()),
        (n, e) if packed(n.as_deref()) || packed(e.as_deref()) => Err(Error::integrity(
            "a timeline row",
            "it packs ids and names another: written outside Graphex",
        )),
        (n, e) => Ok(vec![(n, e)]),
    }
}

/// Appends to `out` the rows stored row `row` stands for, in order.
pub(crate) fn unpack(row: TimelineRow, out: &mut Vec<TimelineRow>) -> Result<()> {
    if !packed(row.node.as_deref()) && !packed(row.edge.as_deref()) {
        out.push(row);
        return Ok(());
    }
    let template = TimelineRow {
        node: None,
        edge: None,
        ..row.clone()
    };
    for (node, edge) in named(row.node, row.edge)? {
        out.push(TimelineRow {
            node,
            edge,
            ..template.clone()
        });
    }
    Ok(())
}

/// The rows stored rows stand for, in order.
pub(crate) fn unpack_all(rows: impl IntoIterator<Item = TimelineRow>) -> Result<Vec<TimelineRow>> {
    let mut out = Vec::new();
    for r in rows {
        unpack(r, &mut out)?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(action: &str, node: Option<u8>, edge: Option<u8>, after: Option<i64>) -> TimelineRow {
        TimelineRow {
            at: 7,
            actor: "human".into(),
            action: action.into(),
            node: node.map(|b| vec![b; ID]),
            edge: edge.map(|b| vec![b; ID]),
            before: None,
            after,
            proposal: None,
            commit: Some(3),
        }
    }

    #[test]
    fn runs_of_the_same_change_pack_and_unpack_to_the_same_rows() {
        let rows = vec![
            row("add", Some(1), None, Some(1)),
            row("add", Some(2), None, Some(1)),
            row("add", Some(3), None, Some(1)),
            row("update", Some(4), None, Some(2)),
            row("link", None, Some(5), None),
            row("link", None, Some(6), None),
            row("add", Some(7), None, Some(1)),
            row("undo", None, None, None),
        ];
        let stored = pack(rows.clone());
        assert_eq!(stored.len(), 5, "three adds, an update, two links, an add, an undo");
        assert_eq!(stored[0].node.as_ref().map(Vec::len), Some(3 * ID));
        assert_eq!(stored[1], rows[3], "a run of one is stored as it is");
        assert_eq!(stored[2].edge.as_ref().map(Vec::len), Some(2 * ID));
        assert_eq!(unpack_all(stored).unwrap(), rows);
    }

    #[test]
    fn a_run_differing_in_any_field_but_the_id_is_cut() {
        let mut other = row("add", Some(2), None, Some(1));
        other.proposal = Some("p".into());
        let rows = vec![
            row("add", Some(1), None, Some(1)),
            other,
            row("add", Some(3), None, Some(2)),
        ];
        let stored = pack(rows.clone());
        assert_eq!(stored, rows);
    }

    #[test]
    fn a_long_run_is_cut_every_max_ids() {
        let rows: Vec<TimelineRow> = (0..MAX_IDS * 2 + 3)
            .map(|i| {
                let mut r = row("link", None, Some(0), None);
                r.edge = Some((i as u128).to_le_bytes().to_vec());
                r
            })
            .collect();
        let stored = pack(rows.clone());
        let lens: Vec<usize> = stored.iter().map(|r| r.edge.as_ref().unwrap().len() / ID).collect();
        assert_eq!(lens, [MAX_IDS, MAX_IDS, 3]);
        assert_eq!(unpack_all(stored).unwrap(), rows);
    }

    #[test]
    fn a_malformed_packed_row_is_refused() {
        let mut bad = row("add", Some(1), None, Some(1));
        bad.node = Some(vec![1; ID * 2 + 3]);
        assert!(unpack_all([bad]).is_err());
        let mut both = row("add", Some(1), Some(2), Some(1));
        both.node = Some(vec![1; ID * 2]);
        assert!(unpack_all([both]).is_err());
        let mut huge = row("add", Some(1), None, Some(1));
        huge.node = Some(vec![1; ID * (MAX_IDS + 1)]);
        assert!(
            unpack_all([huge.clone()]).is_err(),
            "never more ids than a writer packs"
        );
        assert!(named(huge.node, None).is_err());
    }
}
