//! The clients a session hosts for longer than one command: consoles,
//! whose engine worker runs here, and MCP servers. Each gets the session's
//! key (never human-only) inside this process only. Their requests count
//! as use of the session; an open connection that asks nothing does not
//! keep it from ending for idleness.

use std::path::Path;
use std::time::Instant;

use graphex_engine::{Credentials, Level, Store};

use super::{Client, Flow, Session, same_path};
use crate::app::worker::hosted::{self, Hosted};
use crate::cli::hold::wire::Answer;
use crate::mcp::AgentConfig;
use crate::mcp::hosted::HostedMcp;

/// The most consoles, and the most MCP servers, one session hosts.
pub const MAX_HOSTED: usize = 16;

/// The largest message an MCP client may configure (as `--max-message`).
const MAX_MESSAGE: std::ops::RangeInclusive<usize> = 1024..=256 * 1024 * 1024;

/// What a session hosts.
#[derive(Default)]
pub struct Guests {
    consoles: Vec<Hosted>,
    mcp: Vec<HostedMcp>,
}

impl Guests {
    /// Forgets the ones that have ended.
    pub fn prune(&mut self) {
        self.consoles.retain(|c| !c.finished());
        self.mcp.retain(|m| !m.finished());
    }

    /// When a hosted client last sent a request, if any did.
    pub fn last_request(&self) -> Option<Instant> {
        let consoles = self.consoles.iter().map(Hosted::last_request);
        consoles.chain(self.mcp.iter().map(HostedMcp::last_request)).max()
    }

    /// The consoles and MCP servers still running.
    pub fn counts(&self) -> (usize, usize) {
        (
            self.consoles.iter().filter(|c| !c.finished()).count(),
            self.mcp.iter().filter(|m| !m.finished()).count(),
        )
    }

    /// Cuts every client off and waits for each to stop.
    pub fn end_all(&mut self) {
        for console in self.consoles.drain(..) {
            console.end();
        }
        for server in self.mcp.drain(..) {
            server.end();
        }
    }
}

/// Why a session does not serve `agent` at `level`, if it does not: only a
/// session holding the agent identity alone serves an MCP server (a master
/// session never does: any process of the user could ask it for one); a
/// message cap outside what `graphex mcp` accepts is refused.
pub fn mcp_refusal(agent: &AgentConfig, level: Level) -> Option<String> {
    if !MAX_MESSAGE.contains(&agent.max_message) {
        return Some(format!(
            "a message cap of {} bytes (it must be from {} to {})",
            agent.max_message,
            MAX_MESSAGE.start(),
            MAX_MESSAGE.end()
        ));
    }
    (level > Level::Agent).then(|| {
        format!(
            "this session holds the {level} level, and a master session serves no MCP server: an agent's server \
             holds the agent identity alone (`graphex unlock --level agent` holds just that); a --local server holds \
             its own key"
        )
    })
}

impl Session {
    /// Hosts a console's worker: the console reads and decides with this
    /// session's key (never at the human level: the console asks for that
    /// passphrase itself), which stays here.
    pub(super) fn console(&mut self, mut client: Client, root: &Path) -> Flow {
        let refusal = self.refuses(client.terminal).or_else(|| {
            (self.guests.counts().0 >= MAX_HOSTED).then(|| format!("this session already hosts {MAX_HOSTED} consoles"))
        });
        if let Some(why) = refusal {
            let _ = client.say(&Answer::Declined(why));
            return Flow::Go;
        }
        if let Err(flow) = self.may_host(&mut client, root) {
            return flow;
        }
        if client.say(&Answer::Console).is_err() {
            return Flow::Go;
        }
        let lent = self.store.borrow().lend_key();
        let Client {
            stream,
            to_client,
            from_client,
            ..
        } = client;
        let channel = crate::shared::frames::Channel {
            stream,
            sending: to_client,
            receiving: from_client,
        };
        if let Ok(console) = hosted::host(channel, self.root.clone(), self.lent_creds(), lent) {
            self.guests.consoles.push(console);
        }
        self.last = Instant::now();
        Flow::Go
    }

    /// Serves MCP on the session's key, from a session holding the agent
    /// identity alone (to any process of the owner: it reads what any
    /// holder of that identity reads).
    pub(super) fn mcp(&mut self, mut client: Client, root: &Path, agent: AgentConfig) -> Flow {
        let level = self.store.borrow().level();
        let refusal = mcp_refusal(&agent, level).or_else(|| {
            (self.guests.counts().1 >= MAX_HOSTED)
                .then(|| format!("this session already runs {MAX_HOSTED} MCP servers"))
        });
        if let Some(why) = refusal {
            let _ = client.say(&Answer::Declined(why));
            return Flow::Go;
        }
        if let Err(flow) = self.may_host(&mut client, root) {
            return flow;
        }
        let lent = self.store.borrow().lend_key();
        let opened = || match &lent {
            Some(key) => Store::open_lent(&self.root, key),
            None => Store::open(&self.root, &self.lent_creds()),
        };
        let store = match crate::mcp::open_for_agents(&agent, opened) {
            Ok(store) => store,
            Err(e) => {
                let _ = client.say(&Answer::Declined(format!("{e:#}")));
                return Flow::Go;
            }
        };
        if client.say(&Answer::Mcp).is_err() {
            return Flow::Go;
        }
        if let Ok(server) = crate::mcp::hosted::host(client.stream, store, agent) {
            self.guests.mcp.push(server);
        }
        self.last = Instant::now();
        Flow::Go
    }

    /// Whether this session may host a client of the store at `root` (its
    /// own store, current and verified); if not, the client was told why.
    fn may_host(&mut self, client: &mut Client, root: &Path) -> Result<(), Flow> {
        if !same_path(root, &self.root) {
            let why = format!("this session holds {}", self.root.display());
            let _ = client.say(&Answer::Declined(why));
            return Err(Flow::Go);
        }
        if let Err(e) = self.make_current() {
            let why = format!("the unlock session ended: the store no longer verifies ({e:#})");
            let _ = client.say(&Answer::Declined(why.clone()));
            return Err(Flow::Stop(why));
        }
        Ok(())
    }

    /// The session's key (the master's, or the agent identity), without
    /// human-only: what it lends a console or an MCP server to open the
    /// store with, in this process.
    fn lent_creds(&self) -> Credentials {
        Credentials {
            passphrase: self.creds.passphrase.clone(),
            identity_file: self.creds.identity_file.clone(),
            human_passphrase: None,
            agent_identity_file: self.creds.agent_identity_file.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agent(local: bool, max_message: usize) -> AgentConfig {
        AgentConfig {
            agent: "a".into(),
            trust: 50.0,
            session: "s".into(),
            local,
            public_only: false,
            max_message,
        }
    }

    #[test]
    fn only_an_agent_level_session_serves_mcp_and_the_cap_is_bounded() {
        let cap = crate::mcp::DEFAULT_MAX_MESSAGE;
        assert_eq!(mcp_refusal(&agent(false, cap), Level::Agent), None);
        for local in [false, true] {
            let why = mcp_refusal(&agent(local, cap), Level::Master).expect("a master session serves none");
            assert!(why.contains("--level agent"), "{why}");
            assert!(mcp_refusal(&agent(local, cap), Level::Human).is_some());
        }
        for bad in [0, 1023, usize::MAX] {
            let why = mcp_refusal(&agent(false, bad), Level::Agent).expect("refused");
            assert!(why.contains("message cap"), "{why}");
        }
    }
}
