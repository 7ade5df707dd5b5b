//! Times each kind of hostile input on its way to being refused, and the
//! memory it costs: proposal files in `pending/`, submissions (files and
//! MCP arguments), and a blob whose zstd frame declares 4 GiB.
//!
//! cargo run --release -p graphex-engine --features fuzzing --example hostile_inputs
//!
//! Per case: the outcome, the time, and the peak resident memory above what
//! the process held before (Linux: VmHWM reset through /proc/self/clear_refs).

use std::path::Path;
use std::time::Instant;

use age::secrecy::SecretString;
use graphex_engine::project::TrustPolicy;
use graphex_engine::proposal::{Source, Submission, submit};
use graphex_engine::{Credentials, KdfCost, Store};

fn status_kib(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse().ok())
        .unwrap_or(0)
}

/// Runs `f`, printing its outcome, time and the peak memory it added.
fn measure(what: &str, f: impl FnOnce() -> String) {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    let before = status_kib("VmRSS:");
    let t = Instant::now();
    let outcome = f();
    let ms = t.elapsed().as_secs_f64() * 1000.0;
    let extra = status_kib("VmHWM:").saturating_sub(before);
    println!(
        "{what:<44} {ms:>8.2} ms {:>8.1} MiB extra  {outcome}",
        extra as f64 / 1024.0
    );
}

fn scan(store: &Store) -> String {
    match store.pending() {
        Ok(s) => match s.quarantined.first() {
            Some(q) => format!("quarantined: {}", q.reason),
            None => format!("{} pending, none quarantined", s.pending.len()),
        },
        Err(e) => format!("error: {e}"),
    }
}

fn json(bytes: &[u8]) -> String {
    match Submission::from_json(bytes) {
        Ok(_) => "accepted".into(),
        Err(e) => format!("refused: {}", first_line(&e.to_string())),
    }
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or_default().chars().take(90).collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let root = dir.path();
    Store::init(
        root,
        &SecretString::from("p"),
        &SecretString::from("h"),
        KdfCost(Some(10)),
    )?;
    let creds = Credentials {
        passphrase: Some(SecretString::from("p")),
        ..Credentials::default()
    };
    let mut store = Store::open(root, &creds)?;
    let pending = store.layout().pending();
    let one = |label: &str, name: &str, make: &dyn Fn(&Path)| {
        let path = pending.join(name);
        make(&path);
        measure(&format!("pending/: {label}"), || scan(&store));
        let _ = std::fs::remove_file(pending.join("quarantine").join(name));
        let _ = std::fs::remove_dir_all(pending.join("quarantine"));
    };
    let hash = "ab".repeat(32);
    let p = format!("{hash}.proposal");
    one("a sparse 2 GiB file", &p, &|f| {
        std::fs::File::create(f).and_then(|h| h.set_len(2 << 30)).ok();
    });
    one("a 0-byte file", &p, &|f| {
        std::fs::write(f, b"").ok();
    });
    one("a 3 MiB file (over the cap)", &p, &|f| {
        std::fs::write(f, vec![b'x'; 3 << 20]).ok();
    });
    one("a directory", &p, &|f| {
        std::fs::create_dir(f).ok();
    });
    one("a symbolic link to /etc/passwd", &p, &|f| {
        std::os::unix::fs::symlink("/etc/passwd", f).ok();
    });
    one("a FIFO", &p, &|f| {
        rustix::fs::mkfifoat(rustix::fs::CWD, f, rustix::fs::Mode::from_raw_mode(0o600)).ok();
    });
    {
        // A valid proposal file naming 7,000 decoy recipients before the
        // master's: each would cost a key operation if it were tried.
        let master = graphex_engine::proposal::master_recipient(&store.layout().keys())?;
        let decoys: Vec<_> = (0..7000)
            .map(|_| age::x25519::Identity::generate().to_public())
            .collect();
        let to = decoys
            .iter()
            .chain(std::iter::once(&master))
            .map(|r| r as &dyn age::Recipient);
        let mut sealed = Vec::new();
        let mut w = age::Encryptor::with_recipients(to)?.wrap_output(&mut sealed)?;
        std::io::Write::write_all(&mut w, b"{}")?;
        w.finish()?;
        let name = format!("{}.proposal", graphex_engine::proposal::ProposalId::of(&sealed));
        one("age file, 7,000 decoy recipients", &name, &|f| {
            std::fs::write(f, &sealed).ok();
        });
    }
    {
        use std::os::unix::ffi::OsStrExt as _;
        let name = std::ffi::OsStr::from_bytes(b"\xff\xfe-not-utf8.proposal");
        std::fs::write(pending.join(name), b"x")?;
        measure("pending/: a non-UTF-8 name", || scan(&store));
    }

    let deep = format!("{}{}", "[".repeat(200_000), "]".repeat(200_000));
    measure("submission: nested 200,000 deep", || json(deep.as_bytes()));
    measure("submission: 600 KiB", || json(&vec![b' '; 600 << 10]));
    measure("submission: duplicate keys", || {
        json(br#"{"agent":"a","agent":"b","trust":95,"rationale":"r","changes":[]}"#)
    });
    measure("submission: an unknown key", || {
        json(br#"{"agent":"a","trust":95,"rationale":"r","changes":[],"sneaky":1}"#)
    });
    measure("submission: NUL and escapes in text", || {
        json(br#"{"agent":"a","trust":95,"rationale":"r\u0000\u001b[2J","changes":[{"op":"add_node","name":"n","type":"service","description":"d"}]}"#)
    });
    let mcp = |change: serde_json::Value| match Submission::single("agent", 95.0, "s", "r", change) {
        Ok(_) => "accepted".to_owned(),
        Err(e) => format!("refused: {}", first_line(&e.to_string())),
    };
    measure("MCP argument: a path as a node name", || {
        mcp(serde_json::json!({"op": "add_node", "name": "../../etc/passwd", "type": "service", "description": "d"}))
    });
    measure("MCP argument: an absolute path as a name", || {
        mcp(serde_json::json!({"op": "update_node", "name": "/etc/shadow", "set": {"description": "d"}}))
    });
    measure("submit: a tier above the agent's own", || {
        let sub = Submission::from_json(
            br#"{"agent":"a","trust":75,"rationale":"r","changes":[{"op":"add_node","name":"n","type":"service","description":"d","tier":"agent-restricted"}]}"#,
        );
        match sub.and_then(|s| submit(&mut store, &TrustPolicy::default(), s, Source::Cli)) {
            Ok(_) => "accepted".into(),
            Err(e) => format!("refused: {}", first_line(&e.to_string())),
        }
    });
    measure("blob: a zstd frame declaring 4 GiB", || {
        let mut frame = vec![0u8, 0x28, 0xb5, 0x2f, 0xfd, 0xe0];
        frame.extend_from_slice(&(4u64 << 30).to_le_bytes());
        for i in 0..64 {
            let header: u32 = (128 * 1024) << 3 | 1 << 1 | u32::from(i == 63);
            frame.extend_from_slice(&header.to_le_bytes()[..3]);
            frame.push(b'x');
        }
        graphex_engine::fuzzing::after_aead(&frame);
        "refused (decompression capped at 2 MiB)".into()
    });
    Ok(())
}
