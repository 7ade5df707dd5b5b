//! The key counts in docs/console.md, measured on the real worker: keys in, the
//! worker's answers back, as the console runs them (only the terminal is
//! left out). Each count is an assertion, so a change that costs a user
//! keys fails here.

use std::collections::VecDeque;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use graphex_engine::age_secret::SecretString;
use graphex_engine::project::TrustPolicy;
use graphex_engine::proposal::{Source, Submission, submit};
use graphex_engine::{Credentials, KdfCost, NewNode, Store, Tier};

use super::*;
use crate::app::keymap::Keymap;
use crate::app::state::{AppState, Popup};
use crate::app::update::{Effect, Msg, update};

/// A console and its worker, run in step.
struct Live {
    w: Worker,
    rx: tokio::sync::mpsc::UnboundedReceiver<Reply>,
    s: AppState,
    keys: usize,
}

impl Live {
    fn new(root: &std::path::Path, creds: Credentials) -> Self {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let mut live = Live {
            w: Worker::new(root.to_path_buf(), creds, tx),
            rx,
            s: AppState::new(Keymap::load(&[]).unwrap(), root.display().to_string()),
            keys: 0,
        };
        live.s.size = (120, 36);
        live.w.open();
        live.drain(VecDeque::new());
        live
    }

    /// Applies `queue` and every reply it leads to, in order.
    fn drain(&mut self, mut queue: VecDeque<Msg>) {
        loop {
            while let Ok(r) = self.rx.try_recv() {
                queue.push_back(Msg::Reply(r));
            }
            let Some(m) = queue.pop_front() else { return };
            for fx in update(&mut self.s, m) {
                if let Effect::Request(r) = fx {
                    self.w.handle(r);
                }
            }
        }
    }

    fn press(&mut self, c: char) {
        self.keys += 1;
        let mods = if c.is_ascii_uppercase() {
            KeyModifiers::SHIFT
        } else {
            KeyModifiers::NONE
        };
        self.drain(VecDeque::from([Msg::Key(KeyEvent::new(KeyCode::Char(c), mods))]));
    }

    fn screen(&self) -> String {
        let mut t = ratatui::Terminal::new(ratatui::backend::TestBackend::new(self.s.size.0, self.s.size.1)).unwrap();
        t.draw(|f| crate::app::view::draw(f, &self.s, &crate::widgets::ToneStyles::default()))
            .unwrap();
        t.backend().to_string()
    }
}

fn propose(store: &mut Store, name: &str, change: serde_json::Value) {
    let doc = serde_json::json!({"agent": "claude-code", "trust": 90, "session": "triage",
        "rationale": format!("about {name}"), "changes": [change]});
    submit(
        store,
        &TrustPolicy::default(),
        Submission::from_json(doc.to_string().as_bytes()).unwrap(),
        Source::Cli,
    )
    .unwrap();
}

/// Twenty proposals, three of them flagged (a credential, a lowered tier,
/// a near-duplicate name): every one decided, in at most 23 keys.
#[test]
fn twenty_proposals_three_flagged_are_triaged_in_23_keys() {
    let dir = tempfile::tempdir().unwrap();
    let pass = SecretString::from("p");
    Store::init(dir.path(), &pass, &SecretString::from("h"), KdfCost(Some(4))).unwrap();
    let creds = || Credentials {
        passphrase: Some(SecretString::from("p")),
        ..Credentials::default()
    };
    {
        let mut store = Store::open(dir.path(), &creds()).unwrap();
        for (name, tier) in [("payments-service", Tier::Public), ("ledger", Tier::AgentReadable)] {
            store
                .add_node(NewNode::new(
                    graphex_engine::model::Name::new(name).unwrap(),
                    graphex_engine::model::NodeType::new("service").unwrap(),
                    format!("{name}, as it is"),
                    tier,
                ))
                .unwrap();
        }
        let add = |name: &str, description: &str| {
            serde_json::json!({"op": "add_node", "name": name, "type": "convention",
                "description": description, "tier": "public"})
        };
        // Names far apart, so none is a near-duplicate of another.
        let names = [
            "retry-budget",
            "log-format",
            "utc-timestamps",
            "money-in-cents",
            "idempotency-keys",
            "api-versioning",
            "error-codes",
            "feature-flags",
            "schema-migrations",
            "secret-rotation",
            "cache-ttl",
            "batch-windows",
            "trace-sampling",
            "rate-limits",
            "pagination",
            "locale-rules",
            "dead-letters",
        ];
        for (i, name) in names.iter().enumerate() {
            propose(
                &mut store,
                name,
                add(name, &format!("rule number {i} of the house style")),
            );
        }
        propose(
            &mut store,
            "deploy-token",
            add(
                "deploy-token",
                "use ghp_abcdefghijklmnopqrstuvwxyz0123456789AB to deploy",
            ),
        );
        propose(
            &mut store,
            "ledger",
            serde_json::json!({"op": "update_node", "name": "ledger", "set": {"tier": "public"}}),
        );
        propose(
            &mut store,
            "payment-service",
            add("payment-service", "handles payments"),
        );
    }
    let mut live = Live::new(dir.path(), creds());
    assert_eq!(live.s.queue.items.len(), 20, "{}", live.screen());
    let flagged: Vec<String> = live
        .s
        .queue
        .items
        .iter()
        .filter(|i| i.lints.as_ref().is_some_and(|l| !l.is_empty()))
        .map(|i| format!("{}: {:?}", i.summary(), i.lints))
        .collect();
    assert_eq!(flagged.len(), 3, "{flagged:#?}");
    let mut confirmations = 0;
    while !live.s.queue.items.is_empty() && live.keys < 40 {
        live.press('a');
        if matches!(live.s.popups.last(), Some(Popup::Confirm { .. })) {
            confirmations += 1;
            live.press('y');
        }
    }
    assert!(live.s.queue.items.is_empty(), "all decided: {}", live.screen());
    assert_eq!(confirmations, 3, "each flagged one asked first, and only those");
    assert!(live.keys <= 23, "{} keys", live.keys);
    let decided = Store::open(dir.path(), &creds())
        .unwrap()
        .pending()
        .unwrap()
        .pending
        .len();
    assert_eq!(decided, 0);
}

/// "What does agent-readable see that public does not, around
/// orders-service" from the console's first screen: at most 3 keys.
#[test]
fn the_tier_diff_around_the_demo_centre_takes_3_keys() {
    let dir = tempfile::tempdir().unwrap();
    crate::shared::demo::demo_copy(dir.path());
    let creds = Credentials {
        passphrase: Some(crate::shared::demo::DEMO_PASSPHRASE.into()),
        ..Credentials::default()
    };
    let mut live = Live::new(dir.path(), creds);
    for c in "4d".chars() {
        live.press(c);
    }
    let screen = live.screen();
    assert!(
        screen.contains("What agent-readable receives beyond public"),
        "{screen}"
    );
    assert!(screen.contains("orders-service"), "{screen}");
    assert!(live.keys <= 3, "{} keys", live.keys);
}

/// A small store (the lightest KDF) with `payments-service` and `ledger`,
/// and the proposals `fill` makes; the console and worker over it.
fn small(fill: impl FnOnce(&mut Store)) -> (tempfile::TempDir, Live) {
    let dir = tempfile::tempdir().unwrap();
    Store::init(
        dir.path(),
        &SecretString::from("p"),
        &SecretString::from("h"),
        KdfCost(Some(4)),
    )
    .unwrap();
    {
        let mut store = Store::open(dir.path(), &creds()).unwrap();
        for name in ["payments-service", "ledger"] {
            store
                .add_node(NewNode::new(
                    graphex_engine::model::Name::new(name).unwrap(),
                    graphex_engine::model::NodeType::new("service").unwrap(),
                    format!("{name}, as it is"),
                    Tier::Public,
                ))
                .unwrap();
        }
        fill(&mut store);
    }
    let live = Live::new(dir.path(), creds());
    (dir, live)
}

fn creds() -> Credentials {
    Credentials {
        passphrase: Some(SecretString::from("p")),
        ..Credentials::default()
    }
}

/// "Merge a near-duplicate": from the first screen, the flagged proposal,
/// its merge shown for review (the update against the existing node, the
/// lints), accepted: at most 4 keys, and no near-duplicate node is made.
#[test]
fn merging_a_near_duplicate_takes_4_keys() {
    let (dir, mut live) = small(|store| {
        propose(
            store,
            "cache-ttl",
            serde_json::json!({"op": "add_node", "name": "cache-ttl", "type": "convention", "tier": "public",
                "description": "caches expire after an hour"}),
        );
        propose(
            store,
            "payment-service",
            serde_json::json!({"op": "add_node", "name": "payment-service", "type": "service", "tier": "public",
                "description": "takes card payments for orders",
                "suggested_edges": [["payment-service", "depends-on", "ledger"]]}),
        );
    });
    assert_eq!(live.s.queue.items.len(), 2);
    live.press(']');
    live.press('m');
    let Some(Popup::Merge(m)) = live.s.popups.last() else {
        panic!("no merge shown: {}", live.screen())
    };
    assert_eq!(
        (m.added.as_str(), m.existing.as_str()),
        ("payment-service", "payments-service")
    );
    let shot = live.screen();
    assert!(shot.contains("Merge into payments-service"), "{shot}");
    assert!(
        shot.contains("takes card payments for orders"),
        "the update's new value: {shot}"
    );
    assert!(shot.contains("Lints: none"), "{shot}");
    live.press('a');
    assert!(live.keys <= 4, "{} keys", live.keys);
    assert_eq!(live.s.queue.items.len(), 1, "{}", live.screen());
    let store = Store::open(dir.path(), &creds()).unwrap();
    assert!(store.node("payment-service").is_err(), "no near-duplicate was made");
    let n = store.node("payments-service").unwrap();
    assert_eq!(n.description, "takes card payments for orders");
    let c = store.catalog();
    let (from, to) = (
        c.by_name("payments-service").unwrap().id,
        c.by_name("ledger").unwrap().id,
    );
    assert!(c.outgoing(&from).any(|e| e.to == to), "the edge is the existing node's");
}

/// "Reach a revision that just arrived": the reviewer asked for changes,
/// the agent's revision lands while the console is open: at most 2 keys
/// from wherever the cursor is to its card.
#[test]
fn reaching_a_revision_that_just_arrived_takes_2_keys() {
    let (dir, mut live) = small(|store| {
        for name in ["cache-ttl", "log-format", "rate-limits", "pagination"] {
            propose(
                store,
                name,
                serde_json::json!({"op": "add_node", "name": name, "type": "convention", "tier": "public",
                    "description": format!("the {name} rule")}),
            );
        }
    });
    let asked = live.s.queue.items[1].id.clone();
    {
        let mut store = Store::open(dir.path(), &creds()).unwrap();
        let id = graphex_engine::proposal::ProposalId::try_from(asked.clone()).unwrap();
        store.request_changes(&id, "say which team owns it", None).unwrap();
        let doc = serde_json::json!({"agent": "claude-code", "trust": 90, "session": "triage",
            "rationale": "as asked: the owner is named", "revises": asked,
            "changes": [{"op": "add_node", "name": "log-format", "type": "convention", "tier": "public",
                "description": "the log-format rule", "properties": {"owner": "platform"}}]});
        submit(
            &mut store,
            &TrustPolicy::default(),
            Submission::from_json(doc.to_string().as_bytes()).unwrap(),
            Source::Cli,
        )
        .unwrap();
    }
    // The cursor at the end of the queue when the revision arrives.
    live.press('G');
    live.keys = 0;
    live.w.handle(Request::LoadQueue);
    live.drain(VecDeque::new());
    let said = live.s.message.as_ref().map(|m| m.0.clone()).unwrap_or_default();
    assert!(said.contains("revision arrived"), "{said}");
    while live.s.queue.current().is_some_and(|i| i.revision.is_none()) && live.keys < 10 {
        live.press(']');
    }
    assert_eq!(
        live.s.queue.current().and_then(|i| i.revision),
        Some((2, false)),
        "{}",
        live.screen()
    );
    assert!(live.keys <= 2, "{} keys", live.keys);
}
