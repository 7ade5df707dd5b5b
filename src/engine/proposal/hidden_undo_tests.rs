//! What a level cannot see limits what it can decide and undo: a reason
//! naming a more secret node is refused, and the master undoes an accept
//! only when no edge it cannot read could touch what the accept added.

use super::tests::{graph, propose, retry_queue};
use crate::Level;
use crate::model::{Name, Tier};
use crate::proposal::AcceptOptions;
use crate::proposal::Undone;
use crate::store::tests::open_at;

#[test]
fn reasons_and_undos_respect_what_cannot_be_seen() {
    let (_dir, root) = graph();
    let id = propose(&mut open_at(&root, Level::Agent), retry_queue());
    let mut h = open_at(&root, Level::Human);
    let err = h.reject(&id, "overlaps with Payroll work").unwrap_err().to_string();
    assert!(err.contains("names payroll (human-only)"), "{err}");
    let uses = |from: &str, to: &str| {
        crate::model::NewEdge::new(
            Name::new(from).unwrap(),
            crate::model::Relation::new("uses").unwrap(),
            Name::new(to).unwrap(),
        )
    };
    h.link(uses("payroll", "api-gateway")).unwrap();
    let (_, p) = h.proposal(id.short()).unwrap();
    h.accept(&id, &p, &AcceptOptions::default()).unwrap();
    // The human-only edge was written before the node existed: it cannot
    // touch it, and the master may undo the accept (and is told nothing
    // in advance).
    assert_eq!(open_at(&root, Level::Master).undo_blocked(), None);
    assert!(matches!(
        open_at(&root, Level::Master).undo().unwrap(),
        Undone::Decision { .. }
    ));
    let mut h = open_at(&root, Level::Human);
    let (_, p) = h.proposal(id.short()).unwrap();
    h.accept(&id, &p, &AcceptOptions::default()).unwrap();
    // A rotation re-seals the human-only edges after the accept: the
    // master can no longer tell, and refuses.
    let passphrase = age::secrecy::SecretString::from(crate::store::tests::HUMAN);
    h.rotate_key(Tier::HumanOnly, Some(&passphrase), crate::keys::KdfCost(Some(4)))
        .unwrap();
    // Said up front, before any undo is tried, in the words undo uses.
    let ahead = open_at(&root, Level::Master).undo_blocked().expect("said up front");
    let err = open_at(&root, Level::Master).undo().unwrap_err().to_string();
    assert!(
        err.contains("needs the human level") && err.contains("written since it was added"),
        "{err}"
    );
    assert!(err.contains(&ahead), "{err} / {ahead}");
    h.link(uses("retry-queue", "payroll")).unwrap();
    // The newest change is a human-only edge: not the master's to undo.
    let err = open_at(&root, Level::Master).undo().unwrap_err().to_string();
    assert!(err.contains("not readable at this level"), "{err}");
    // The human level undoes the link, then the accept.
    assert!(matches!(h.undo().unwrap(), Undone::Change { action, .. } if action == "link"));
    assert!(matches!(h.undo().unwrap(), Undone::Decision { .. }));
    assert!(h.summary("retry-queue").is_err());
}
