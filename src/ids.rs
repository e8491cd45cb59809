//! Identity of a request's owner (account and region) and generation of ids.
//!
//! Every piece of service state lives under a [`Scope`] (account id + region), taken from each
//! request's SigV4 credential (`crate::protocol::route`). Random ids (UUIDs, hex ids, name
//! suffixes) come from one [`IdGen`], seedable with `CUMULO_SEED` so runs can be repeated.
//! [`Endpoint`] is where clients reach this emulator (the base of queue and template URLs):
//! it lives here, below every service, so none of them imports the composition root.

use std::sync::{Arc, Mutex};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

/// The account used when a request's access key is not a 12-digit account id.
pub const DEFAULT_ACCOUNT: &str = "000000000000";
/// The region used when a request names none.
pub const DEFAULT_REGION: &str = "us-east-1";

/// An (account, region) pair: the partition key of all service state.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Scope {
    /// 12-digit AWS account id.
    pub account: String,
    /// Region name, e.g. `us-east-1`.
    pub region: String,
}

impl Scope {
    /// A scope from its parts.
    pub fn new(account: impl Into<String>, region: impl Into<String>) -> Scope {
        Scope {
            account: account.into(),
            region: region.into(),
        }
    }

    /// `000000000000` / `us-east-1`.
    pub fn default_scope() -> Scope {
        Scope::new(DEFAULT_ACCOUNT, DEFAULT_REGION)
    }

    /// The account for an access key id: the key itself when it is 12 digits (LocalStack's
    /// convention), else [`DEFAULT_ACCOUNT`].
    pub fn account_for_access_key(access_key: &str) -> String {
        if access_key.len() == 12 && access_key.bytes().all(|b| b.is_ascii_digit()) {
            access_key.to_string()
        } else {
            DEFAULT_ACCOUNT.to_string()
        }
    }

    /// `arn:aws:<service>:<region>:<account>:<resource>`.
    pub fn arn(&self, service: &str, resource: &str) -> String {
        format!(
            "arn:aws:{service}:{}:{}:{resource}",
            self.region, self.account
        )
    }

    /// `arn:aws:<service>::<account>:<resource>` for global services (IAM).
    pub fn global_arn(&self, service: &str, resource: &str) -> String {
        format!("arn:aws:{service}::{}:{resource}", self.account)
    }
}

/// The source of random ids. Clone it freely; clones share one generator.
#[derive(Clone)]
pub struct IdGen {
    rng: Arc<Mutex<StdRng>>,
}

impl std::fmt::Debug for IdGen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("IdGen")
    }
}

impl Default for IdGen {
    fn default() -> Self {
        IdGen {
            rng: Arc::new(Mutex::new(StdRng::from_os_rng())),
        }
    }
}

const ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

impl IdGen {
    /// A generator whose sequence is fixed by `seed`.
    pub fn seeded(seed: u64) -> IdGen {
        IdGen {
            rng: Arc::new(Mutex::new(StdRng::seed_from_u64(seed))),
        }
    }

    fn with<T>(&self, f: impl FnOnce(&mut StdRng) -> T) -> T {
        let mut rng = crate::sync::lock(&self.rng);
        f(&mut rng)
    }

    /// A random (version 4) UUID, lower-case hyphenated.
    pub fn uuid(&self) -> String {
        let bytes: [u8; 16] = self.with(|r| r.random());
        uuid::Builder::from_random_bytes(bytes)
            .into_uuid()
            .to_string()
    }

    /// `n` lower-case hex characters.
    pub fn hex(&self, n: usize) -> String {
        self.with(|r| {
            (0..n)
                .map(|_| char::from(b"0123456789abcdef"[r.random_range(0..16)]))
                .collect()
        })
    }

    /// `n` characters of `[A-Za-z0-9]`.
    pub fn alnum(&self, n: usize) -> String {
        self.with(|r| {
            (0..n)
                .map(|_| char::from(ALNUM[r.random_range(0..ALNUM.len())]))
                .collect()
        })
    }

    /// `n` characters of `[A-Z0-9]` (CloudFormation's generated-name suffixes, IAM ids).
    pub fn upper_alnum(&self, n: usize) -> String {
        const UPPER: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
        self.with(|r| {
            (0..n)
                .map(|_| char::from(UPPER[r.random_range(0..UPPER.len())]))
                .collect()
        })
    }
}

/// The base URL clients reach Cumulo at (`http://127.0.0.1:4566`), known once the listener is
/// bound; queue URLs, S3 template URLs and SNS unsubscribe URLs are built on it.
#[derive(Clone, Debug)]
pub struct Endpoint {
    url: Arc<std::sync::OnceLock<String>>,
}

impl Default for Endpoint {
    fn default() -> Self {
        Endpoint {
            url: Arc::new(std::sync::OnceLock::new()),
        }
    }
}

impl Endpoint {
    /// Records the bound address (first call wins). A wildcard address (`0.0.0.0`, `::`) is
    /// recorded as `localhost` with its port: queue URLs must be addresses a client can use.
    pub fn set(&self, addr: std::net::SocketAddr) {
        let url = if addr.ip().is_unspecified() {
            format!("http://localhost:{}", addr.port())
        } else {
            format!("http://{addr}")
        };
        let _ = self.url.set(url);
    }

    /// `http://<host>:<port>` of the listener, or `http://localhost:4566` before it is bound.
    pub fn url(&self) -> &str {
        self.url
            .get()
            .map(String::as_str)
            .unwrap_or("http://localhost:4566")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn twelve_digit_access_keys_name_the_account() {
        assert_eq!(
            Scope::account_for_access_key("123456789012"),
            "123456789012"
        );
        assert_eq!(Scope::account_for_access_key("test"), DEFAULT_ACCOUNT);
        assert_eq!(
            Scope::account_for_access_key("12345678901a"),
            DEFAULT_ACCOUNT
        );
    }

    #[test]
    fn seeded_generators_repeat() {
        let (a, b) = (IdGen::seeded(7), IdGen::seeded(7));
        assert_eq!(a.uuid(), b.uuid());
        assert_eq!(a.hex(16).len(), 16);
        assert_eq!(a.upper_alnum(13).len(), 13);
    }

    #[test]
    fn a_wildcard_listener_is_reached_through_localhost() {
        for (bound, url) in [
            ("0.0.0.0:4570", "http://localhost:4570"),
            ("[::]:4566", "http://localhost:4566"),
            ("127.0.0.1:4566", "http://127.0.0.1:4566"),
            ("192.168.1.20:80", "http://192.168.1.20:80"),
        ] {
            let endpoint = Endpoint::default();
            endpoint.set(bound.parse().unwrap());
            assert_eq!(endpoint.url(), url, "{bound}");
        }
    }
}
