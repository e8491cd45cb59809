//! The access-key file of `CUMULO_AUTH_KEYS`: one key a line, three fields separated by
//! spaces or tabs — access key id, secret access key, 12-digit account id — with `#` comments
//! and blank lines ignored:
//!
//! ```text
//! # access key id        secret access key                          account
//! AKIACUMULOEXAMPLE01    wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY   123456789012
//! ```
//!
//! Parsing only: no I/O beyond what the caller read, nothing about requests.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::config::{AccessKey, Auth};

/// Why a key file was refused: the line (1-based) and what is wrong with it.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("line {line}: {problem}")]
pub struct KeyFileError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong.
    pub problem: String,
}

/// Parses a key file's text into [`Auth::SigV4`]. Errors: a line without exactly three
/// fields, an access key id outside AWS's 16–128 word characters, an account id that is not
/// 12 digits, a key listed twice, or a file without any key.
pub fn parse(text: &str) -> Result<Auth, KeyFileError> {
    let mut keys = BTreeMap::new();
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let content = raw.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        let fail = |problem: &str| KeyFileError {
            line,
            problem: problem.to_string(),
        };
        let fields: Vec<&str> = content.split_whitespace().collect();
        let [id, secret, account] = fields.as_slice() else {
            return Err(fail(
                "expected three fields: access key id, secret access key, account id",
            ));
        };
        let id_ok = (16..=128).contains(&id.len())
            && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
        if !id_ok {
            return Err(fail(
                "an access key id is 16 to 128 letters, digits or underscores",
            ));
        }
        if account.len() != 12 || !account.bytes().all(|b| b.is_ascii_digit()) {
            return Err(fail("an account id is 12 digits"));
        }
        let key = AccessKey {
            secret_access_key: (*secret).to_string(),
            account_id: (*account).to_string(),
        };
        if keys.insert((*id).to_string(), key).is_some() {
            return Err(fail("this access key id is listed twice"));
        }
    }
    if keys.is_empty() {
        return Err(KeyFileError {
            line: 0,
            problem: "the file lists no access key".into(),
        });
    }
    Ok(Auth::SigV4(Arc::new(keys)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_keys_and_skips_comments() {
        let auth = parse(
            "# id secret account\n\nAKIACUMULOEXAMPLE01 secret/one 123456789012\n\tAKIACUMULOEXAMPLE02\tsecret2  210987654321 # second\n",
        )
        .unwrap();
        let Auth::SigV4(keys) = auth else {
            panic!("sigv4")
        };
        assert_eq!(keys.len(), 2);
        assert_eq!(keys["AKIACUMULOEXAMPLE01"].secret_access_key, "secret/one");
        assert_eq!(keys["AKIACUMULOEXAMPLE02"].account_id, "210987654321");
    }

    #[test]
    fn refuses_what_it_cannot_use() {
        for (text, line, problem) in [
            ("AKIACUMULOEXAMPLE01 s", 1, "expected three fields"),
            ("short s 123456789012", 1, "16 to 128"),
            ("AKIACUMULOEXAMPLE01 s 1234", 1, "12 digits"),
            (
                "AKIACUMULOEXAMPLE01 s 123456789012\nAKIACUMULOEXAMPLE01 t 123456789012",
                2,
                "twice",
            ),
            ("# nothing\n", 0, "no access key"),
        ] {
            let err = parse(text).unwrap_err();
            assert_eq!(err.line, line, "{text}");
            assert!(err.problem.contains(problem), "{text}: {err}");
        }
    }
}
