//! NextToken encoding of the list operations: opaque to clients, but simply the key of the
//! last item returned (`s:<group>/<name>` or `g:<group>` in URL-safe base64), so a page resumes
//! strictly after it however the set changed in between. A token Cumulo did not issue is a
//! ValidationException.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;

use super::error::Error;
use super::store::{ScheduleCursor, INVALID_NEXT_TOKEN};

fn is_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
}

fn decode(token: &str, kind: &str) -> Result<String, Error> {
    let invalid = || Error::Validation(INVALID_NEXT_TOKEN.to_string());
    let bytes = URL_SAFE_NO_PAD.decode(token).map_err(|_| invalid())?;
    let text = String::from_utf8(bytes).map_err(|_| invalid())?;
    text.strip_prefix(kind)
        .map(str::to_string)
        .ok_or_else(invalid)
}

/// The token resuming ListSchedules after `cursor`.
pub(crate) fn encode_schedule_token(cursor: &ScheduleCursor) -> String {
    URL_SAFE_NO_PAD.encode(format!("s:{}/{}", cursor.group, cursor.name))
}

/// The cursor of a ListSchedules token.
pub(crate) fn decode_schedule_token(token: &str) -> Result<ScheduleCursor, Error> {
    let text = decode(token, "s:")?;
    match text.split_once('/') {
        Some((group, name)) if is_name(group) && is_name(name) => Ok(ScheduleCursor {
            group: group.to_string(),
            name: name.to_string(),
        }),
        _ => Err(Error::Validation(INVALID_NEXT_TOKEN.to_string())),
    }
}

/// The token resuming ListScheduleGroups after the group `name`.
pub(crate) fn encode_group_token(name: &str) -> String {
    URL_SAFE_NO_PAD.encode(format!("g:{name}"))
}

/// The group name of a ListScheduleGroups token.
pub(crate) fn decode_group_token(token: &str) -> Result<String, Error> {
    let name = decode(token, "g:")?;
    if is_name(&name) {
        Ok(name)
    } else {
        Err(Error::Validation(INVALID_NEXT_TOKEN.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_round_trip_and_foreign_tokens_are_refused() {
        let c = ScheduleCursor {
            group: "g.1".into(),
            name: "a-b_c".into(),
        };
        assert_eq!(decode_schedule_token(&encode_schedule_token(&c)), Ok(c));
        assert_eq!(
            decode_group_token(&encode_group_token("jobs")),
            Ok("jobs".into())
        );
        let bad = Error::Validation(INVALID_NEXT_TOKEN.into());
        for token in [
            "abc!",
            "",
            &URL_SAFE_NO_PAD.encode("s:no-slash"),
            &URL_SAFE_NO_PAD.encode("s:a/b c"),
            &encode_group_token("jobs"),
        ] {
            assert_eq!(decode_schedule_token(token), Err(bad.clone()), "{token}");
        }
        assert_eq!(
            decode_group_token(&URL_SAFE_NO_PAD.encode("g:")),
            Err(bad.clone())
        );
        assert_eq!(
            decode_group_token(&encode_schedule_token(&ScheduleCursor {
                group: "a".into(),
                name: "b".into()
            })),
            Err(bad)
        );
    }
}
