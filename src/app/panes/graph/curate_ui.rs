//! The Graph pane's curation keys and dialogs: the node form (new, edit),
//! link (relation, then target), unlink, deprecate with a reason,
//! supersede (pick the successor), archive and restore. Each write is one
//! request to the worker, one commit there; nothing is asked for until the
//! form is valid, and the engine's refusal is shown in place.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use graphex_engine::Level;
use graphex_engine::lookup::matcher::{Matcher, by_rank};
use graphex_engine::model::{Name, NewEdge, Relation, Status, Tier};

use super::curate::Write;
use super::dialogs::Purpose;
use super::form::{Field, NodeForm, Values};
use super::rows::{self, Item};
use crate::app::effect::{Effect, Go, go, request};
use crate::app::state::{AppState, Confirmed, Popup};
use crate::app::text_input::edit_line;
use crate::app::worker::Request;

pub use super::dialog_state::PromptThen;

/// The node the curation keys act on: the selected row's, else the centre.
pub fn target(state: &AppState) -> Option<String> {
    let g = &state.graph;
    match rows::selected(g) {
        Some(Item::Node { row, .. }) => Some(row.name.clone()),
        Some(Item::Centre { name, .. }) => Some(name.to_owned()),
        _ => g.place.as_ref().map(|p| p.centre.clone()),
    }
}

/// Refuses (with a message) a change to the open node when it was pulled
/// from another project; the engine refuses it too, this says so at once.
fn read_only(state: &mut AppState, name: &str) -> bool {
    let origin = match &state.graph.shown {
        Some(Ok(n)) if n.inspector.name == name => n.inspector.federated_from.clone(),
        _ => None,
    };
    match origin {
        Some(origin) => {
            state.error(format!(
                "{name} is federated from {origin}: read-only here (change it in {origin}, publish it there, and pull again)"
            ));
            true
        }
        None => false,
    }
}

/// Whether writing is possible now: master level, nothing under way, and
/// not a view of the past.
fn can_write(state: &mut AppState) -> bool {
    if state.graph.place.as_ref().is_some_and(|p| p.as_of.is_some()) {
        state
            .error("this is a view of the past: press @ and leave it empty to come back to now, then change the graph");
        return false;
    }
    state.needs_master() && state.not_busy()
}

fn max_tier(state: &AppState) -> Tier {
    if state.level == Some(Level::Human) {
        Tier::HumanOnly
    } else {
        Tier::AgentRestricted
    }
}

/// Asks for the types and relations in use (the pickers' choices).
fn ask_vocabulary(state: &mut AppState, fx: &mut Vec<Effect>) {
    let generation = state.next_generation();
    state.graph.vocabulary_generation = generation;
    request(fx, Request::Vocabulary { generation });
}

pub fn new_node(state: &mut AppState, fx: &mut Vec<Effect>) {
    if !can_write(state) {
        return;
    }
    ask_vocabulary(state, fx);
    let mut form = NodeForm::new(max_tier(state));
    if let Some((types, _)) = &state.graph.vocabulary {
        form.types = types.iter().map(|(t, _)| t.clone()).collect();
    }
    state.popups.push(Popup::NodeForm(Box::new(form)));
}

/// `ctrl-n` in the supersede picker: the new-node form, named as typed,
/// of the old node's type; once written, the new node supersedes `old`
/// (the reason is asked then, as for a successor chosen in the picker).
pub fn new_successor(state: &mut AppState, old: String, name: String, fx: &mut Vec<Effect>) {
    new_node(state, fx);
    let old_type = state
        .graph
        .shown
        .as_ref()
        .and_then(|s| s.as_ref().ok())
        .filter(|n| n.inspector.name == old)
        .map(|n| n.inspector.node_type.clone());
    if let Some(Popup::NodeForm(f)) = state.popups.last_mut() {
        f.values.name = name;
        if let Some(t) = old_type {
            f.values.node_type = t;
        }
        f.focus = super::form::Field::Description;
        f.supersedes = Some(old);
    }
    check_name(state, fx);
}

/// The node a curation key acts on, when this session may change it (the
/// master level, a node open, not federated); else why not, said.
fn editable_target(state: &mut AppState) -> Option<String> {
    if !can_write(state) {
        return None;
    }
    let Some(name) = target(state) else {
        state.error("no node open: press / to jump to one");
        return None;
    };
    (!read_only(state, &name)).then_some(name)
}

pub fn edit_node(state: &mut AppState, fx: &mut Vec<Effect>) {
    let Some(name) = editable_target(state) else {
        return;
    };
    ask_vocabulary(state, fx);
    state.info(format!("reading {name}…"));
    request(fx, Request::EditValues { name });
}

/// The worker's current values of a node: the edit form opens on them.
pub fn edit_values(state: &mut AppState, name: &str, result: Result<Box<Values>, String>) {
    match result {
        Ok(values) => {
            let mut form = NodeForm::edit(*values, max_tier(state));
            if let Some((types, _)) = &state.graph.vocabulary {
                form.types = types.iter().map(|(t, _)| t.clone()).collect();
            }
            state.message = None;
            state.popups.push(Popup::NodeForm(Box::new(form)));
        }
        Err(e) => state.error(format!("cannot edit {name}: {e}")),
    }
}

pub fn link(state: &mut AppState, fx: &mut Vec<Effect>) {
    let Some(from) = editable_target(state) else {
        return;
    };
    ask_vocabulary(state, fx);
    state.popups.push(Popup::Relation {
        from,
        input: String::new(),
        selected: 0,
        incoming: false,
    });
}

/// The relations the picker offers for what is typed, with the matched
/// positions: those in use that the one matcher finds (best first, then
/// the most used), all of them most used first when nothing is typed.
pub fn relation_rows(state: &AppState, input: &str) -> Vec<(String, usize, Vec<usize>)> {
    let Some((_, rels)) = state.graph.vocabulary.as_ref() else {
        return Vec::new();
    };
    let m = Matcher::new(input);
    let mut rows: Vec<(i64, String, usize, Vec<usize>)> = rels
        .iter()
        .filter_map(|(r, n)| m.hit(r).map(|h| (h.score, r.clone(), *n, h.indices)))
        .collect();
    if !m.is_empty() {
        rows.sort_by(|a, b| {
            b.0.cmp(&a.0)
                .then(b.2.cmp(&a.2))
                .then_with(|| by_rank((a.0, &a.1), (b.0, &b.1)))
        });
    }
    rows.into_iter().map(|(_, r, n, i)| (r, n, i)).collect()
}

pub fn unlink(state: &mut AppState) {
    if !can_write(state) {
        return;
    }
    let Some(Item::Node { row, .. }) = rows::selected(&state.graph) else {
        state.error("select a neighbour: unlink removes the edge that reached it");
        return;
    };
    let (from, to) = row.edge.clone();
    let relation = row.relation.clone();
    state.popups.push(Popup::Confirm {
        text: format!("Remove the edge {from} {relation} {to}? (one commit; u undoes it)"),
        then: Confirmed::Write(Box::new(Write::Unlink { from, relation, to })),
    });
}

pub fn lifecycle(state: &mut AppState, to: Status, fx: &mut Vec<Effect>) {
    let Some(name) = editable_target(state) else {
        return;
    };
    match to {
        Status::Deprecated => state.popups.push(Popup::Prompt {
            title: format!("Deprecate {name}"),
            text: "Why? Agents read the reason with the node.".into(),
            input: String::new(),
            error: None,
            then: PromptThen::Deprecate { name },
        }),
        _ => {
            let w = Write::Status { name, to, reason: None };
            state.busy = Some(w.doing());
            request(fx, Request::Write(Box::new(w)));
        }
    }
}

pub fn supersede(state: &mut AppState) {
    let Some(old) = editable_target(state) else {
        return;
    };
    let dialog = super::dialogs::jump_dialog(&state.graph, Purpose::SupersededBy { old });
    state.popups.push(Popup::Jump(dialog));
}

/// The jump's choice, for a purpose other than opening the node.
pub fn chosen(state: &mut AppState, purpose: Purpose, name: String, fx: &mut Vec<Effect>) {
    match purpose {
        Purpose::Open => super::update::open(state, &name, fx),
        Purpose::Project => go(fx, Go::Project(crate::app::subject::Subject::Node { name, depth: 2 })),
        Purpose::LinkTo {
            from,
            relation,
            incoming,
        } => {
            let (a, b) = if incoming { (&name, &from) } else { (&from, &name) };
            let edge = (|| -> graphex_engine::Result<NewEdge> {
                Ok(NewEdge::new(Name::new(a)?, Relation::new(&relation)?, Name::new(b)?))
            })();
            match edge {
                Ok(e) => write(state, Write::Link(Box::new(e)), fx),
                Err(e) => state.error(format!("link: {e}")),
            }
        }
        Purpose::SupersededBy { old } if old == name => state.error("a node cannot supersede itself"),
        Purpose::SupersededBy { old } => state.popups.push(Popup::Prompt {
            title: format!("{name} supersedes {old}"),
            text: format!("Why? (optional; {old} is deprecated with this reason)"),
            input: String::new(),
            error: None,
            then: PromptThen::Supersede { old, new: name },
        }),
    }
}

/// Sends a write (one at a time).
pub fn write(state: &mut AppState, w: Write, fx: &mut Vec<Effect>) {
    if !state.not_busy() {
        return;
    }
    state.busy = Some(w.doing());
    request(fx, Request::Write(Box::new(w)));
}

/// Keys for the curation dialogs on top of the stack.
pub fn key(state: &mut AppState, k: KeyEvent, fx: &mut Vec<Effect>) {
    match state.popups.last_mut() {
        Some(Popup::NodeForm(_)) => form_key(state, k, fx),
        Some(Popup::Relation {
            from,
            input,
            selected,
            incoming,
        }) => match k.code {
            KeyCode::Esc => {
                state.popups.pop();
            }
            KeyCode::Up => *selected = selected.saturating_sub(1),
            KeyCode::Down => *selected += 1,
            // The edge's direction: from the selected node, or to it.
            KeyCode::Tab | KeyCode::BackTab => *incoming = !*incoming,
            KeyCode::Enter => {
                let (from, typed, sel, incoming) = (from.clone(), input.trim().to_owned(), *selected, *incoming);
                let rows = relation_rows(state, &typed);
                let relation = rows
                    .get(sel.min(rows.len().saturating_sub(1)))
                    .map(|(r, _, _)| r.clone())
                    .filter(|r| *r == typed || !rows.iter().any(|(x, _, _)| *x == typed))
                    .unwrap_or(typed);
                if let Err(e) = Relation::new(&relation) {
                    state.error(format!("relation: {e}"));
                    return;
                }
                state.popups.pop();
                let purpose = Purpose::LinkTo {
                    from,
                    relation,
                    incoming,
                };
                let dialog = super::dialogs::jump_dialog(&state.graph, purpose);
                state.popups.push(Popup::Jump(dialog));
            }
            _ => {
                if edit_line(input, &k) {
                    *selected = 0;
                }
            }
        },
        Some(Popup::Prompt { input, then, error, .. }) => match k.code {
            KeyCode::Esc => {
                state.popups.pop();
            }
            KeyCode::Enter => {
                let reason = input.trim().to_owned();
                let w = match then {
                    PromptThen::Deprecate { .. } if reason.is_empty() => {
                        *error = Some("a reason is required: agents read it with the node".into());
                        return;
                    }
                    PromptThen::Deprecate { name } => Write::Status {
                        name: name.clone(),
                        to: Status::Deprecated,
                        reason: Some(reason),
                    },
                    PromptThen::Supersede { old, new } => Write::Supersede {
                        old: old.clone(),
                        new: new.clone(),
                        reason: (!reason.is_empty()).then_some(reason),
                    },
                    PromptThen::SupersedeNew { old, node } => Write::SupersedeNew {
                        old: old.clone(),
                        node: node.clone(),
                        reason: (!reason.is_empty()).then_some(reason),
                    },
                };
                // The prompt stays open until the write is done: refused or
                // flagged, its text is still there to change.
                *error = None;
                write(state, w, fx);
            }
            _ => {
                if edit_line(input, &k) {
                    *error = None;
                }
            }
        },
        _ => super::curator::key(state, k, fx),
    }
}

fn form_key(state: &mut AppState, k: KeyEvent, fx: &mut Vec<Effect>) {
    let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
    let Some(Popup::NodeForm(f)) = state.popups.last_mut() else {
        return;
    };
    if f.saving {
        return;
    }
    match k.code {
        KeyCode::Esc if f.review.is_some() => f.review = None,
        KeyCode::Esc => {
            if f.modified() {
                state.popups.push(Popup::Confirm {
                    text: "Discard this form? Nothing has been written.".into(),
                    then: Confirmed::DiscardForm,
                });
            } else {
                state.popups.pop();
            }
        }
        KeyCode::Char('s') if ctrl => save(state, fx),
        KeyCode::Tab | KeyCode::BackTab => {
            let i = Field::ALL.iter().position(|x| *x == f.focus).unwrap_or(0);
            let n = Field::ALL.len();
            let back = k.code == KeyCode::BackTab;
            let mut j = if back { (i + n - 1) % n } else { (i + 1) % n };
            // An edit keeps the node's name.
            if f.is_edit() && Field::ALL[j] == Field::Name {
                j = if back { (j + n - 1) % n } else { (j + 1) % n };
            }
            f.focus = Field::ALL[j];
        }
        KeyCode::Left | KeyCode::Right if matches!(f.focus, Field::Type | Field::Tier) => {
            f.cycle(k.code == KeyCode::Right);
            f.review = None;
        }
        _ => {
            f.review = None;
            f.error = None;
            let changed = match f.focus {
                Field::Body => {
                    f.body.input(k);
                    false
                }
                Field::Type => edit_line(&mut f.values.node_type, &k),
                Field::Name if !f.is_edit() => edit_line(&mut f.values.name, &k),
                Field::Description => edit_line(&mut f.values.description, &k),
                Field::Properties => edit_line(&mut f.values.properties, &k),
                Field::Name | Field::Tier => false,
            };
            if changed && f.focus == Field::Name {
                check_name(state, fx);
            }
        }
    }
}

/// Asks the worker whether the name typed is free.
fn check_name(state: &mut AppState, fx: &mut Vec<Effect>) {
    let generation = state.next_generation();
    if let Some(Popup::NodeForm(f)) = state.popups.last_mut() {
        f.generation = generation;
        f.name_check = None;
        let name = f.values.name.trim().to_owned();
        if !name.is_empty() {
            request(fx, Request::CheckName { generation, name });
        }
    }
}

/// ctrl-s: a new node is written when valid; an edit shows its review
/// first (the field diff, and what a tier change means), then is written
/// on a second ctrl-s.
fn save(state: &mut AppState, fx: &mut Vec<Effect>) {
    let generation = state.next_generation();
    let Some(Popup::NodeForm(f)) = state.popups.last_mut() else {
        return;
    };
    let w = if f.is_edit() {
        let patch = match f.patch() {
            Ok(p) if p.is_empty() => {
                f.error = Some("nothing changed".into());
                return;
            }
            Ok(p) => p,
            Err(e) => {
                f.error = Some(e);
                return;
            }
        };
        if f.review.is_none() {
            let mut review: Vec<String> = Vec::new();
            if let Some((from, to)) = f.tier_move() {
                if to < from {
                    review.push(format!(
                        "The tier goes down from {from} to {to}: agents allowed {to} will read this node."
                    ));
                } else {
                    review.push(format!(
                        "The tier goes up from {from} to {to}: agents below {to} stop reading this node."
                    ));
                }
                // Either way, what each agent tier would receive around it.
                f.generation = generation;
                request(
                    fx,
                    Request::Exposure {
                        generation,
                        name: f.values.name.clone(),
                        tier: to,
                    },
                );
                if to > from {
                    review.push(format!(
                        "This cannot be undone: every earlier version is sealed again under the {to} key at once, \
                         and `u` will not lower it back (lowering it later is a change of its own, reviewed like this one)."
                    ));
                }
                review.push(CHECKING.into());
            }
            review.push("ctrl-s again saves; esc goes back to the form.".into());
            f.review = Some(review);
            return;
        }
        Write::Update {
            name: f.values.name.clone(),
            patch: Box::new(patch),
        }
    } else {
        match (f.new_node(), f.supersedes.clone()) {
            // A successor: its supersede's reason first, then both at once.
            (Ok(n), Some(old)) => {
                let name = n.name.to_string();
                state.popups.push(Popup::Prompt {
                    title: format!("{name} supersedes {old}"),
                    text: format!(
                        "Why? (optional; {old} is deprecated with this reason). {name} and the supersede are \
                         written together; esc goes back to the form."
                    ),
                    input: String::new(),
                    error: None,
                    then: PromptThen::SupersedeNew { old, node: Box::new(n) },
                });
                return;
            }
            (Ok(n), None) => Write::Add(Box::new(n)),
            (Err(e), _) => {
                f.error = Some(e);
                return;
            }
        }
    };
    f.saving = true;
    if !state.not_busy() {
        if let Some(Popup::NodeForm(f)) = state.popups.last_mut() {
            f.saving = false;
        }
        return;
    }
    state.busy = Some(w.doing());
    request(fx, Request::Write(Box::new(w)));
}

/// The worker's answer on a name.
pub fn name_checked(state: &mut AppState, generation: u64, result: Result<(), String>) {
    if let Some(Popup::NodeForm(f)) = state.popups.last_mut()
        && f.generation == generation
    {
        f.name_check = Some(result);
    }
}

/// The review's promise of a what-if, until its answer comes.
const CHECKING: &str = "Checking what changes…";

/// What a lower tier would expose, into the edit's review.
pub fn exposure(state: &mut AppState, generation: u64, result: Result<Vec<String>, String>) {
    if let Some(Popup::NodeForm(f)) = state.popups.last_mut()
        && f.generation == generation
        && let Some(review) = f.review.as_mut()
    {
        // The answer replaces the promise of one, and follows it.
        let Some(promise) = review.iter().position(|l| l == CHECKING) else {
            return;
        };
        review[promise] = "What changes:".into();
        let at = promise + 1;
        match result {
            Ok(lines) => {
                for (i, l) in lines.into_iter().enumerate() {
                    review.insert(at + i, format!("  {l}"));
                }
            }
            Err(e) => review.insert(at, format!("  (no preview: {e})")),
        }
    }
}

pub fn vocabulary(state: &mut AppState, generation: u64, types: Vec<(String, usize)>, relations: Vec<(String, usize)>) {
    if generation != state.graph.vocabulary_generation {
        return;
    }
    if let Some(Popup::NodeForm(f)) = state.popups.last_mut() {
        f.types = types.iter().map(|(t, _)| t.clone()).collect();
    }
    state.graph.vocabulary = Some((types, relations));
}

/// A write was made: the form closes and the pane shows the result.
pub fn written(state: &mut AppState, text: String, open: Option<String>, fx: &mut Vec<Effect>) {
    state.busy = None;
    let mut supersedes = None;
    // The reason prompt that sent it closes; a successor's form with it
    // (its supersede is made already).
    let mut successor = false;
    if let Some(Popup::Prompt { then, .. }) = state.popups.last() {
        successor = matches!(then, PromptThen::SupersedeNew { .. });
        state.popups.pop();
    }
    if let Some(Popup::NodeForm(_)) = state.popups.last()
        && let Some(Popup::NodeForm(mut f)) = state.popups.pop()
    {
        supersedes = f.supersedes.take();
        f.wipe();
    }
    if successor {
        supersedes = None;
    }
    state.info(text);
    if let Some(name) = open {
        super::update::open(state, &name, fx);
        // A successor made from the supersede picker: on to its reason.
        if let Some(old) = supersedes {
            chosen(state, Purpose::SupersededBy { old }, name, fx);
        }
    }
}

/// A write was refused: said in the form when one is open.
pub fn write_failed(state: &mut AppState, text: String) {
    state.busy = None;
    match state.popups.last_mut() {
        Some(Popup::NodeForm(f)) => {
            f.saving = false;
            f.review = None;
            f.error = Some(format!("not saved: {text}"));
        }
        Some(Popup::Prompt { error, .. }) => *error = Some(format!("not saved: {text}")),
        _ => state.error(text),
    }
}

/// A write held back because its text names more secret nodes: the
/// findings are shown, and `y` saves it as it is (the form or the reason
/// prompt stays open behind, with its text, so `n` goes back to it to
/// rephrase).
pub fn write_flagged(state: &mut AppState, write: Box<Write>, flags: &[String]) {
    state.busy = None;
    match state.popups.last_mut() {
        Some(Popup::NodeForm(f)) => {
            f.saving = false;
            f.error = Some(format!("not saved yet: {}", flags.join("; ")));
        }
        Some(Popup::Prompt { error, .. }) => *error = Some(format!("not saved yet: {}", flags.join("; "))),
        _ => {}
    }
    state.popups.push(Popup::Confirm {
        text: format!(
            "Save anyway? {}. y saves it as it is, n goes back to change it.",
            flags.join("; ")
        ),
        then: Confirmed::Write(Box::new(Write::Confirmed(write))),
    });
}
