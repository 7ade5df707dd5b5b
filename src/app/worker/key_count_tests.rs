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
