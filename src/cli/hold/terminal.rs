//! Which terminal a process runs in, as a master session tells its own from
//! another's (as sudo binds a ticket to a terminal): the kernel's session id
//! of the process, its leader's start time (a pid reused after the leader
//! ended is no match) and the controlling terminal. A client's process id
//! comes from the kernel (`SO_PEERCRED`), so a client cannot claim another
//! terminal.

use serde::{Deserialize, Serialize};

/// The terminal (kernel session) a process belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Terminal {
    /// The session id (the leader's process id).
    pub sid: i32,
    /// The leader's start time, in clock ticks after boot.
    pub leader_start: u64,
    /// The controlling terminal's device number (0: none).
    pub tty: u64,
}

/// The fields of a `/proc/PID/stat` line after the command name, which may
/// hold spaces and parentheses (so they are counted after its last `)`).
fn fields(stat: &str) -> Option<Vec<&str>> {
    let (_, rest) = stat.rsplit_once(')')?;
    Some(rest.split_whitespace().collect())
}

/// The session id and terminal of a stat line; `None` when absent or 0 (a
/// leader outside this pid namespace).
fn session_and_tty(stat: &str) -> Option<(i32, u64)> {
    let f = fields(stat)?;
    let sid: i32 = f.get(3)?.parse().ok()?;
    let tty: i64 = f.get(4)?.parse().ok()?;
    (sid > 0).then_some((sid, u64::try_from(tty).unwrap_or(0)))
}

/// The start time of a stat line.
fn start_time(stat: &str) -> Option<u64> {
    fields(stat)?.get(19)?.parse().ok()
}

fn stat_of(pid: i32) -> Option<String> {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()
}

impl Terminal {
    /// The terminal of process `pid`; `None` when it cannot be told (the
    /// process or its session leader is gone, or lives outside this pid
    /// namespace).
    pub fn of(pid: i32) -> Option<Terminal> {
        let (sid, tty) = session_and_tty(&stat_of(pid)?)?;
        let leader_start = start_time(&stat_of(sid)?)?;
        Some(Terminal { sid, leader_start, tty })
    }

    /// This process's terminal.
    pub fn own() -> Option<Terminal> {
        Terminal::of(i32::try_from(std::process::id()).ok()?)
    }

    /// How a person knows it: the terminal's device, else the session.
    pub fn describe(&self) -> String {
        if self.tty == 0 {
            return format!("session {} (no terminal)", self.sid);
        }
        // Linux's device number: major in bits 8-19, minor in 0-7 and 20-31.
        let major = (self.tty >> 8) & 0xfff;
        let minor = (self.tty & 0xff) | ((self.tty >> 12) & 0xfff00);
        match major {
            136..=143 => format!("/dev/pts/{}", (major - 136) * 256 + minor),
            4 if minor < 64 => format!("/dev/tty{minor}"),
            _ => format!("terminal {major}:{minor} (session {})", self.sid),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_read_after_the_command_name() {
        let line = "4242 (a (b) c) S 1 4242 4100 34819 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 777 0";
        assert_eq!(session_and_tty(line), Some((4100, 34819)));
        assert_eq!(start_time(line), Some(777));
        // A leader outside this pid namespace reads as 0: nothing to bind to.
        assert_eq!(session_and_tty("9 (sh) S 0 1 0 0 -1"), None);
        assert_eq!(session_and_tty("garbage"), None);
    }

    /// Runs `script` as the leader of a new session (`setsid`); the script
    /// prints pids, one per line, which are read back.
    fn in_new_session(script: &str, lines: usize) -> (std::process::Child, Vec<i32>) {
        let mut child = std::process::Command::new("setsid")
            .args(["sh", "-c", script])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("setsid sh");
        let mut out = std::io::BufReader::new(child.stdout.take().expect("stdout"));
        let pids = (0..lines)
            .map(|_| {
                let mut line = String::new();
                std::io::BufRead::read_line(&mut out, &mut line).expect("a pid");
                line.trim().parse().expect("a pid")
            })
            .collect();
        (child, pids)
    }

    fn end(mut child: std::process::Child, pids: &[i32]) {
        for &pid in pids {
            if let Some(pid) = rustix::process::Pid::from_raw(pid) {
                let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
            }
        }
        let _ = child.wait();
    }

    #[test]
    fn a_process_is_in_its_leader_s_terminal_and_a_new_session_is_another() {
        // Two sessions of their own (this test's own may have a leader it
        // cannot see, as in a container): a leader and a process it starts
        // share a terminal; the other session is another.
        let (a, a_pids) = in_new_session("sleep 30 & echo $!; echo $$; exec sleep 30", 2);
        let (b, b_pids) = in_new_session("echo $$; exec sleep 30", 1);
        let (member, leader, other) = (
            Terminal::of(a_pids[0]),
            Terminal::of(a_pids[1]),
            Terminal::of(b_pids[0]),
        );
        end(a, &a_pids);
        end(b, &b_pids);
        let leader = leader.expect("the shell leads a session of its own");
        assert_eq!(leader.sid, a_pids[1]);
        assert_eq!(
            member,
            Some(leader),
            "a process started by the leader is in its terminal"
        );
        let other = other.expect("the other shell leads a session too");
        assert_eq!(other.sid, b_pids[0]);
        assert_ne!(other, leader);
        // Where this process's leader is visible, it is told the same way.
        if let Some(own) = Terminal::own() {
            assert_eq!(Terminal::of(i32::try_from(std::process::id()).expect("pid")), Some(own));
            assert_ne!(own, leader);
        }
        assert_eq!(
            Terminal {
                tty: 34816 + 3,
                ..leader
            }
            .describe(),
            "/dev/pts/3"
        );
    }
}
