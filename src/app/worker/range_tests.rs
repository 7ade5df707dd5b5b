//! A revision range for the Projection pane: the worker reads the base from
//! git, names the nodes changed since, and previews a node before and after
//! it, tier by tier; a lock drops the base with the keys.

use graphex_engine::Credentials;
use graphex_engine::model::{NodePatch, Tier};

use super::*;
use crate::app::panes::projection::work::{Spec, Subject};

fn git(dir: &std::path::Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .current_dir(dir)
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@e",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_range_shows_a_changed_node_before_and_after_tier_by_tier() {
    let dir = tempfile::tempdir().unwrap();
    crate::shared::demo::demo_copy(dir.path());
    git(dir.path(), &["init", "-q", "-b", "main"]);
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-q", "-m", "demo"]);
    let creds = Credentials {
        passphrase: Some(crate::shared::demo::DEMO_PASSPHRASE.into()),
        ..Credentials::default()
    };
    {
        let mut s = graphex_engine::Store::open(dir.path(), &creds).unwrap();
        s.update_node(
            "audit-logger",
            &NodePatch {
                tier: Some(Tier::Public),
                description: Some("Writes audit records, now for everyone".into()),
                ..NodePatch::default()
            },
        )
        .unwrap();
    }
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let mut w = Worker::new(dir.path().to_path_buf(), creds, tx);
    w.open();
    w.handle(Request::OpenRange {
        rev: "HEAD".into(),
        label: "HEAD".into(),
    });
    let replies: Vec<Reply> = std::iter::from_fn(|| rx.try_recv().ok()).collect();
    let changed = replies
        .iter()
        .find_map(|r| match r {
            Reply::RangeOpened { result, .. } => Some(result.clone()),
            _ => None,
        })
        .expect("the range answered")
        .unwrap();
    assert_eq!(changed, ["audit-logger"]);
    w.handle(Request::Preview {
        generation: 1,
        spec: Spec {
            subject: Subject::Range {
                centre: "audit-logger".into(),
                label: "HEAD".into(),
            },
            agent: "console-preview".into(),
            budget: 8000,
        },
    });
    let view = std::iter::from_fn(|| rx.try_recv().ok())
        .find_map(|r| match r {
            Reply::Previewed { result, .. } => Some(*result),
            _ => None,
        })
        .expect("a preview")
        .unwrap();
    // Public could not see it before the range, and does now.
    let public = &view.tiers[0];
    assert_eq!(public.before.as_ref().map(|b| b.0.as_str()), Some(""), "{public:?}");
    assert!(public.text.contains("now for everyone"), "{public:?}");
    // Agent-readable saw the old words before and the new ones after.
    let readable = &view.tiers[1];
    let (before, _) = readable.before.clone().unwrap();
    assert!(!before.contains("now for everyone") && readable.text.contains("now for everyone"));
    // Locked: the base goes with the keys.
    w.handle(Request::Lock);
    assert!(w.range.is_none());
}
