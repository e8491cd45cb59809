//! The Scheduler's state behind one `std::sync::Mutex`, and its invariants:
//!
//! - Every scope (account, region) has the `default` group, implicitly from its first request;
//!   it cannot be deleted.
//! - Schedules live inside their group (`scope → group → name → Arc<Schedule>`, all ordered
//!   maps), so names are unique per group, deleting a group deletes its schedules in the same
//!   critical section (never half-deleted), and listing walks groups then names in order:
//!   a page resumes strictly after the last key returned, so inserts and deletes between pages
//!   never repeat or skip another schedule, and no page scans what came before it.
//! - A stored `Schedule` is never changed in place: updates replace the `Arc` with a new value
//!   carrying a new generation from one counter, so generations are never reused.
//! - Each mutation writes the changed entity to [`Storage`] and sends its [`ScheduleChange`]
//!   to the dispatcher's subscription while the lock is still held, so both see changes in the
//!   order they happened.
//! - Client tokens of successful mutations are remembered for [`TOKEN_TTL_HOURS`] (at most
//!   [`MAX_TOKENS`]): the same token with the same request replays the result; with a
//!   different request it is a ConflictException.
//!
//! Validation happens before the store is called (`super::validate`); the store checks only
//! what needs the state (existence, duplicates, quotas, tokens). No `.await` here.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::ops::Bound;
use std::sync::{Arc, LazyLock, Mutex};

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

use super::error::Error;
use super::model::*;
use super::validate::merge_tag;
use crate::ids::Scope;
use crate::storage::Storage;
use crate::sync::lock;

/// Durable table of schedules, keyed `<account>/<region>/<group>/<name>`.
pub const SCHEDULES_TABLE: &str = "scheduler_schedules";
/// Durable table of groups (with their tags), keyed `<account>/<region>/<name>`.
pub const GROUPS_TABLE: &str = "scheduler_groups";

/// Schedule groups per account and region (AWS's default quota), `default` not counted.
pub const MAX_GROUPS: usize = 500;
/// Schedules per account and region (AWS's default quota).
pub const MAX_SCHEDULES: usize = 1_000_000;
/// How long a client token is remembered.
pub const TOKEN_TTL_HOURS: i64 = 24;
/// Most client tokens remembered at once (the oldest are forgotten first).
pub const MAX_TOKENS: usize = 200_000;

/// Not recorded from AWS; worded after the model's quota name.
pub fn group_quota_exceeded() -> Error {
    Error::ServiceQuotaExceeded(format!(
        "You have reached the quota of {MAX_GROUPS} schedule groups for this account in this Region."
    ))
}

/// Not recorded from AWS.
pub fn schedule_quota_exceeded() -> Error {
    Error::ServiceQuotaExceeded(format!(
        "You have reached the quota of {MAX_SCHEDULES} schedules for this account in this Region."
    ))
}

/// Not recorded from AWS (the service model has no IdempotentParameterMismatch error).
pub fn token_reused(token: &str) -> Error {
    Error::Conflict(format!(
        "The ClientToken {token} was already used with a different request."
    ))
}

/// Not recorded from AWS.
pub const INVALID_NEXT_TOKEN: &str = "The NextToken provided is not valid.";

/// A client token about to be used by a mutation: which (scope, operation, token) and a
/// fingerprint of the rest of the request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TokenUse<'a> {
    /// The token as sent.
    pub token: &'a str,
    /// Hash of (account, region, operation, token).
    pub key: u64,
    /// Hash of the request without its token.
    pub fingerprint: u64,
}

/// What a remembered token says about a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TokenCheck {
    /// Not seen (or forgotten): run the request.
    Fresh,
    /// Seen with this very request: answer its result again.
    Replay,
    /// Seen with another request: ConflictException.
    Mismatch,
}

#[derive(Debug, Default)]
struct Tokens {
    seen: HashMap<u64, (u64, DateTime<Utc>)>,
    /// (expiry, key) in insertion order.
    order: VecDeque<(DateTime<Utc>, u64)>,
}

impl Tokens {
    fn prune(&mut self, now: DateTime<Utc>) {
        while let Some(&(expires, key)) = self.order.front() {
            if expires > now && self.order.len() <= MAX_TOKENS {
                break;
            }
            self.order.pop_front();
            if self.seen.get(&key).is_some_and(|(_, e)| *e == expires) {
                self.seen.remove(&key);
            }
        }
    }

    fn check(&mut self, use_: Option<TokenUse<'_>>, now: DateTime<Utc>) -> TokenCheck {
        let Some(u) = use_ else {
            return TokenCheck::Fresh;
        };
        self.prune(now);
        match self.seen.get(&u.key) {
            Some(&(fp, expires)) if expires > now && fp == u.fingerprint => TokenCheck::Replay,
            Some(&(_, expires)) if expires > now => TokenCheck::Mismatch,
            _ => TokenCheck::Fresh,
        }
    }

    fn record(&mut self, use_: Option<TokenUse<'_>>, now: DateTime<Utc>) {
        if let Some(u) = use_ {
            let expires = now + Duration::hours(TOKEN_TTL_HOURS);
            self.seen.insert(u.key, (u.fingerprint, expires));
            self.order.push_back((expires, u.key));
            self.prune(now);
        }
    }
}

/// A group with its tags and its schedules.
#[derive(Debug, Clone)]
struct GroupEntry {
    group: ScheduleGroup,
    tags: Vec<Tag>,
    schedules: BTreeMap<String, Arc<Schedule>>,
}

/// How a group is written to the durable store.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct StoredGroup {
    group: ScheduleGroup,
    tags: Vec<Tag>,
}

impl GroupEntry {
    fn new(group: ScheduleGroup, tags: Vec<Tag>) -> GroupEntry {
        GroupEntry {
            group,
            tags,
            schedules: BTreeMap::new(),
        }
    }

    fn default_group() -> GroupEntry {
        GroupEntry::new(
            ScheduleGroup {
                name: DEFAULT_GROUP.to_string(),
                state: ScheduleGroupState::Active,
                creation_date: None,
                last_modification_date: None,
            },
            Vec::new(),
        )
    }

    fn stored(&self) -> StoredGroup {
        StoredGroup {
            group: self.group.clone(),
            tags: self.tags.clone(),
        }
    }
}

/// One account's state in one region.
#[derive(Debug, Clone)]
struct ScopeState {
    groups: BTreeMap<String, GroupEntry>,
    n_schedules: usize,
}

impl ScopeState {
    fn new() -> ScopeState {
        let mut groups = BTreeMap::new();
        groups.insert(DEFAULT_GROUP.to_string(), GroupEntry::default_group());
        ScopeState {
            groups,
            n_schedules: 0,
        }
    }
}

/// What a scope looks like before its first write: only the `default` group.
static FRESH: LazyLock<ScopeState> = LazyLock::new(ScopeState::new);

#[derive(Debug, Default)]
struct State {
    scopes: HashMap<Scope, ScopeState>,
    next_generation: u64,
    changes: Option<mpsc::UnboundedSender<ScheduleChange>>,
    tokens: Tokens,
}

impl State {
    fn scope(&self, scope: &Scope) -> &ScopeState {
        self.scopes.get(scope).unwrap_or(&FRESH)
    }

    fn scope_mut(&mut self, scope: &Scope) -> &mut ScopeState {
        self.scopes
            .entry(scope.clone())
            .or_insert_with(ScopeState::new)
    }

    /// `Ok(true)`: answer the remembered result; `Ok(false)`: run the request.
    fn token_gate(
        &mut self,
        token: Option<TokenUse<'_>>,
        now: DateTime<Utc>,
    ) -> Result<bool, Error> {
        match self.tokens.check(token, now) {
            TokenCheck::Fresh => Ok(false),
            TokenCheck::Replay => Ok(true),
            TokenCheck::Mismatch => Err(token_reused(token.map(|t| t.token).unwrap_or(""))),
        }
    }

    fn generation(&mut self) -> u64 {
        self.next_generation += 1;
        self.next_generation
    }

    fn send(&mut self, change: ScheduleChange) {
        if let Some(tx) = &self.changes {
            if tx.send(change).is_err() {
                self.changes = None;
            }
        }
    }
}

fn schedule_row(scope: &Scope, group: &str, name: &str) -> String {
    format!("{}/{}/{group}/{name}", scope.account, scope.region)
}

fn group_row(scope: &Scope, name: &str) -> String {
    format!("{}/{}/{name}", scope.account, scope.region)
}

fn schedule_not_found(name: &str) -> Error {
    Error::ResourceNotFound(format!("Schedule {name} does not exist."))
}

fn group_not_found(name: &str) -> Error {
    Error::ResourceNotFound(format!("Schedule group {name} does not exist."))
}

/// Where a ListSchedules page resumes: strictly after (group, name).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ScheduleCursor {
    pub group: String,
    pub name: String,
}

/// The filters of one ListSchedules page (validated).
#[derive(Clone, Debug)]
pub(crate) struct ScheduleFilter<'a> {
    pub group: Option<&'a str>,
    pub name_prefix: Option<&'a str>,
    pub state: Option<ScheduleState>,
    pub max_results: usize,
    pub after: Option<ScheduleCursor>,
}

/// The store. One per emulator, shared by every clone of the `Scheduler` handle.
pub(crate) struct Store {
    storage: Storage,
    state: Mutex<State>,
    /// Schedules allowed per scope ([`MAX_SCHEDULES`]; lowered by tests).
    max_schedules: usize,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = lock(&self.state);
        f.debug_struct("Store")
            .field("scopes", &state.scopes.len())
            .field(
                "schedules",
                &state.scopes.values().map(|s| s.n_schedules).sum::<usize>(),
            )
            .field("tokens", &state.tokens.seen.len())
            .finish()
    }
}

impl Store {
    /// A store holding what `storage` kept (nothing for in-memory storage).
    pub(crate) fn new(storage: Storage) -> Store {
        let mut state = State::default();
        for (row, stored) in storage.load::<StoredGroup>(GROUPS_TABLE) {
            let mut parts = row.splitn(3, '/');
            let (Some(account), Some(region)) = (parts.next(), parts.next()) else {
                tracing::error!(row, "skipping a stored schedule group with a malformed key");
                continue;
            };
            let scope = Scope::new(account, region);
            let entry = GroupEntry::new(stored.group, stored.tags);
            state
                .scope_mut(&scope)
                .groups
                .insert(entry.group.name.clone(), entry);
        }
        for (row, schedule) in storage.load::<Schedule>(SCHEDULES_TABLE) {
            let mut parts = row.splitn(3, '/');
            let (Some(account), Some(region)) = (parts.next(), parts.next()) else {
                tracing::error!(row, "skipping a stored schedule with a malformed key");
                continue;
            };
            let scope = Scope::new(account, region);
            state.next_generation = state.next_generation.max(schedule.generation);
            let ss = state.scope_mut(&scope);
            let Some(group) = ss.groups.get_mut(&schedule.group_name) else {
                tracing::error!(row, "skipping a stored schedule whose group is gone");
                continue;
            };
            group
                .schedules
                .insert(schedule.name.clone(), Arc::new(schedule));
            ss.n_schedules += 1;
        }
        Store {
            storage,
            state: Mutex::new(state),
            max_schedules: MAX_SCHEDULES,
        }
    }

    /// The same store with another schedule quota (tests of the quota).
    #[cfg(test)]
    pub(crate) fn with_max_schedules(mut self, max: usize) -> Store {
        self.max_schedules = max;
        self
    }

    /// Forgets everything (the storage rows are wiped by `App::reset`).
    pub(crate) fn reset(&self) {
        let mut state = lock(&self.state);
        state.scopes.clear();
        state.tokens = Tokens::default();
        state.send(ScheduleChange::Reset);
    }

    pub(crate) fn subscribe(&self) -> mpsc::UnboundedReceiver<ScheduleChange> {
        let (tx, rx) = mpsc::unbounded_channel();
        lock(&self.state).changes = Some(tx);
        rx
    }

    /// Checks a client token before the request is validated (a replay of an accepted
    /// request answers as before even if time has since made it invalid).
    pub(crate) fn check_token(
        &self,
        token: Option<TokenUse<'_>>,
        now: DateTime<Utc>,
    ) -> Result<bool, Error> {
        lock(&self.state).token_gate(token, now)
    }

    // ---------------------------------------------------------------------- schedules

    /// Stores a new, validated schedule. Returns its ARN.
    pub(crate) fn create_schedule(
        &self,
        scope: &Scope,
        mut schedule: Schedule,
        token: Option<TokenUse<'_>>,
        now: DateTime<Utc>,
    ) -> Result<String, Error> {
        let mut state = lock(&self.state);
        let arn = schedule.arn(scope);
        if state.token_gate(token, now)? {
            return Ok(arn);
        }
        {
            let ss = state.scope(scope);
            let Some(group) = ss.groups.get(&schedule.group_name) else {
                return Err(group_not_found(&schedule.group_name));
            };
            if group.schedules.contains_key(&schedule.name) {
                return Err(Error::Conflict(format!(
                    "Schedule {} already exists.",
                    schedule.name
                )));
            }
            if ss.n_schedules >= self.max_schedules {
                return Err(schedule_quota_exceeded());
            }
        }
        schedule.generation = state.generation();
        schedule.creation_date = now;
        schedule.last_modification_date = now;
        let key = ScheduleKey::new(scope.clone(), &schedule.group_name, &schedule.name);
        let generation = schedule.generation;
        self.storage.put(
            SCHEDULES_TABLE,
            &schedule_row(scope, &key.group, &key.name),
            &schedule,
        );
        let ss = state.scope_mut(scope);
        ss.n_schedules += 1;
        if let Some(group) = ss.groups.get_mut(&key.group) {
            group.schedules.insert(key.name.clone(), Arc::new(schedule));
        }
        state.send(ScheduleChange::Upserted { key, generation });
        state.tokens.record(token, now);
        Ok(arn)
    }

    /// Replaces an existing schedule with `schedule` (validated), keeping its CreationDate.
    pub(crate) fn update_schedule(
        &self,
        scope: &Scope,
        mut schedule: Schedule,
        token: Option<TokenUse<'_>>,
        now: DateTime<Utc>,
    ) -> Result<String, Error> {
        let mut state = lock(&self.state);
        let arn = schedule.arn(scope);
        if state.token_gate(token, now)? {
            return Ok(arn);
        }
        let Some(existing) = state
            .scope(scope)
            .groups
            .get(&schedule.group_name)
            .and_then(|g| g.schedules.get(&schedule.name))
        else {
            return Err(schedule_not_found(&schedule.name));
        };
        schedule.creation_date = existing.creation_date;
        schedule.last_modification_date = now;
        schedule.generation = state.generation();
        let key = ScheduleKey::new(scope.clone(), &schedule.group_name, &schedule.name);
        let generation = schedule.generation;
        self.storage.put(
            SCHEDULES_TABLE,
            &schedule_row(scope, &key.group, &key.name),
            &schedule,
        );
        if let Some(group) = state.scope_mut(scope).groups.get_mut(&key.group) {
            group.schedules.insert(key.name.clone(), Arc::new(schedule));
        }
        state.send(ScheduleChange::Upserted { key, generation });
        state.tokens.record(token, now);
        Ok(arn)
    }

    /// Deletes `name` from `group`.
    pub(crate) fn delete_schedule(
        &self,
        scope: &Scope,
        group: &str,
        name: &str,
        token: Option<TokenUse<'_>>,
        now: DateTime<Utc>,
    ) -> Result<(), Error> {
        let mut state = lock(&self.state);
        if state.token_gate(token, now)? {
            return Ok(());
        }
        let exists = state
            .scope(scope)
            .groups
            .get(group)
            .is_some_and(|g| g.schedules.contains_key(name));
        if !exists {
            return Err(schedule_not_found(name));
        }
        self.remove_schedule(&mut state, scope, group, name);
        state.tokens.record(token, now);
        Ok(())
    }

    /// Removes a schedule known to exist: storage, count, notification.
    fn remove_schedule(&self, state: &mut State, scope: &Scope, group: &str, name: &str) {
        let ss = state.scope_mut(scope);
        let Some(removed) = ss
            .groups
            .get_mut(group)
            .and_then(|g| g.schedules.remove(name))
        else {
            return;
        };
        ss.n_schedules -= 1;
        self.storage
            .delete(SCHEDULES_TABLE, &schedule_row(scope, group, name));
        state.send(ScheduleChange::Deleted {
            key: ScheduleKey::new(scope.clone(), group, name),
            generation: removed.generation,
        });
    }

    /// Deletes the schedule at `key` only if it still has `generation`.
    pub(crate) fn delete_if_generation(&self, key: &ScheduleKey, generation: u64) -> bool {
        let mut state = lock(&self.state);
        let current = state
            .scopes
            .get(&key.scope)
            .and_then(|ss| ss.groups.get(&key.group))
            .and_then(|g| g.schedules.get(&key.name))
            .map(|s| s.generation);
        if current != Some(generation) {
            return false;
        }
        self.remove_schedule(&mut state, &key.scope, &key.group, &key.name);
        true
    }

    /// The schedule `name` in `group`.
    pub(crate) fn get_schedule(
        &self,
        scope: &Scope,
        group: &str,
        name: &str,
    ) -> Result<Arc<Schedule>, Error> {
        let state = lock(&self.state);
        state
            .scope(scope)
            .groups
            .get(group)
            .and_then(|g| g.schedules.get(name))
            .cloned()
            .ok_or_else(|| schedule_not_found(name))
    }

    pub(crate) fn schedule(&self, key: &ScheduleKey) -> Option<Arc<Schedule>> {
        let state = lock(&self.state);
        state
            .scopes
            .get(&key.scope)?
            .groups
            .get(&key.group)?
            .schedules
            .get(&key.name)
            .cloned()
    }

    pub(crate) fn snapshot(&self) -> Vec<(ScheduleKey, Arc<Schedule>)> {
        let state = lock(&self.state);
        let mut scopes: Vec<&Scope> = state.scopes.keys().collect();
        scopes.sort();
        let mut out = Vec::new();
        for scope in scopes {
            for (group_name, group) in &state.scopes[scope].groups {
                for (name, schedule) in &group.schedules {
                    out.push((
                        ScheduleKey::new(scope.clone(), group_name, name),
                        schedule.clone(),
                    ));
                }
            }
        }
        out
    }

    /// One page of ListSchedules, plus where the next page resumes (when there is one).
    pub(crate) fn list_schedules(
        &self,
        scope: &Scope,
        filter: &ScheduleFilter<'_>,
    ) -> Result<(Vec<Arc<Schedule>>, Option<ScheduleCursor>), Error> {
        let state = lock(&self.state);
        let ss = state.scope(scope);
        if let Some(g) = filter.group {
            if !ss.groups.contains_key(g) {
                return Err(group_not_found(g));
            }
        }
        let prefix = filter.name_prefix.unwrap_or("");
        let want = filter.max_results + 1;
        let mut page: Vec<Arc<Schedule>> = Vec::with_capacity(want.min(101));
        let first_group = match (&filter.after, filter.group) {
            (Some(after), Some(g)) if after.group.as_str() > g => return Ok((page, None)),
            (_, Some(g)) => Bound::Included(g.to_string()),
            (Some(after), None) => Bound::Included(after.group.clone()),
            (None, None) => Bound::Unbounded,
        };
        'groups: for (group_name, group) in ss.groups.range((first_group, Bound::Unbounded)) {
            if filter.group.is_some_and(|g| g != group_name) {
                break;
            }
            let lower = match &filter.after {
                Some(after) if after.group == *group_name && after.name.as_str() >= prefix => {
                    Bound::Excluded(after.name.as_str())
                }
                _ => Bound::Included(prefix),
            };
            for (name, schedule) in group.schedules.range::<str, _>((lower, Bound::Unbounded)) {
                if !name.starts_with(prefix) {
                    break;
                }
                if filter.state.is_some_and(|st| st != schedule.state) {
                    continue;
                }
                page.push(schedule.clone());
                if page.len() == want {
                    break 'groups;
                }
            }
        }
        let next = if page.len() == want {
            page.pop();
            page.last().map(|s| ScheduleCursor {
                group: s.group_name.clone(),
                name: s.name.clone(),
            })
        } else {
            None
        };
        Ok((page, next))
    }

    // ---------------------------------------------------------------------- groups

    /// Creates a group with validated `tags`. Returns its ARN.
    pub(crate) fn create_group(
        &self,
        scope: &Scope,
        name: &str,
        tags: Vec<Tag>,
        token: Option<TokenUse<'_>>,
        now: DateTime<Utc>,
    ) -> Result<String, Error> {
        let mut state = lock(&self.state);
        let arn = schedule_group_arn(scope, name);
        if state.token_gate(token, now)? {
            return Ok(arn);
        }
        let ss = state.scope(scope);
        if ss.groups.contains_key(name) {
            return Err(Error::Conflict(format!(
                "Schedule group {name} already exists."
            )));
        }
        if ss.groups.len() > MAX_GROUPS {
            return Err(group_quota_exceeded());
        }
        let entry = GroupEntry::new(
            ScheduleGroup {
                name: name.to_string(),
                state: ScheduleGroupState::Active,
                creation_date: Some(now),
                last_modification_date: Some(now),
            },
            tags,
        );
        self.storage
            .put(GROUPS_TABLE, &group_row(scope, name), &entry.stored());
        state
            .scope_mut(scope)
            .groups
            .insert(name.to_string(), entry);
        state.tokens.record(token, now);
        Ok(arn)
    }

    pub(crate) fn get_group(&self, scope: &Scope, name: &str) -> Result<ScheduleGroup, Error> {
        let state = lock(&self.state);
        state
            .scope(scope)
            .groups
            .get(name)
            .map(|g| g.group.clone())
            .ok_or_else(|| group_not_found(name))
    }

    /// Deletes a group (not `default`; the caller refuses it) and all its schedules.
    pub(crate) fn delete_group(
        &self,
        scope: &Scope,
        name: &str,
        token: Option<TokenUse<'_>>,
        now: DateTime<Utc>,
    ) -> Result<(), Error> {
        let mut state = lock(&self.state);
        if state.token_gate(token, now)? {
            return Ok(());
        }
        let Some(entry) = state.scopes.get_mut(scope).and_then(|ss| {
            let entry = ss.groups.remove(name)?;
            ss.n_schedules -= entry.schedules.len();
            Some(entry)
        }) else {
            return Err(group_not_found(name));
        };
        for (schedule_name, schedule) in &entry.schedules {
            self.storage
                .delete(SCHEDULES_TABLE, &schedule_row(scope, name, schedule_name));
            state.send(ScheduleChange::Deleted {
                key: ScheduleKey::new(scope.clone(), name, schedule_name),
                generation: schedule.generation,
            });
        }
        self.storage.delete(GROUPS_TABLE, &group_row(scope, name));
        state.tokens.record(token, now);
        Ok(())
    }

    /// One page of ListScheduleGroups: `default` first, then by name; resumes after `after`.
    pub(crate) fn list_groups(
        &self,
        scope: &Scope,
        name_prefix: Option<&str>,
        max_results: usize,
        after: Option<&str>,
    ) -> (Vec<ScheduleGroup>, Option<String>) {
        let state = lock(&self.state);
        let ss = state.scope(scope);
        let prefix = name_prefix.unwrap_or("");
        let want = max_results + 1;
        let mut page: Vec<ScheduleGroup> = Vec::new();
        if after.is_none() && DEFAULT_GROUP.starts_with(prefix) {
            if let Some(d) = ss.groups.get(DEFAULT_GROUP) {
                page.push(d.group.clone());
            }
        }
        let lower = match after {
            Some(a) if a != DEFAULT_GROUP && a >= prefix => Bound::Excluded(a),
            _ => Bound::Included(prefix),
        };
        for (name, g) in ss.groups.range::<str, _>((lower, Bound::Unbounded)) {
            if page.len() == want || !name.starts_with(prefix) {
                break;
            }
            if name != DEFAULT_GROUP {
                page.push(g.group.clone());
            }
        }
        let next = if page.len() == want {
            page.pop();
            page.last().map(|g| g.name.clone())
        } else {
            None
        };
        (page, next)
    }

    // ---------------------------------------------------------------------- tags

    fn with_group<T>(
        &self,
        scope: &Scope,
        name: &str,
        f: impl FnOnce(&mut GroupEntry) -> Result<T, Error>,
    ) -> Result<T, Error> {
        let mut state = lock(&self.state);
        // Look first, so that a miss does not create the scope's state.
        if !state.scope(scope).groups.contains_key(name) {
            return Err(group_not_found(name));
        }
        let Some(entry) = state.scope_mut(scope).groups.get_mut(name) else {
            return Err(group_not_found(name));
        };
        let before = entry.tags.clone();
        let out = f(entry)?;
        if entry.tags != before {
            self.storage
                .put(GROUPS_TABLE, &group_row(scope, name), &entry.stored());
        }
        Ok(out)
    }

    /// Adds (or overwrites) validated tags; refuses to exceed 200 tags in all.
    pub(crate) fn tag_group(
        &self,
        scope: &Scope,
        name: &str,
        arn: &str,
        tags: Vec<Tag>,
    ) -> Result<(), Error> {
        self.with_group(scope, name, |entry| {
            let mut merged = entry.tags.clone();
            for tag in tags {
                merge_tag(&mut merged, tag);
            }
            // System tags (`aws:`, set only by CloudFormation) do not count toward the limit.
            if merged.iter().filter(|t| !is_system_tag(&t.key)).count() > 200 {
                return Err(Error::Validation(super::validate::too_many_tags(arn)));
            }
            entry.tags = merged;
            Ok(())
        })
    }

    /// Removes the keys given (absent keys are ignored).
    pub(crate) fn untag_group(
        &self,
        scope: &Scope,
        name: &str,
        keys: &[String],
    ) -> Result<(), Error> {
        self.with_group(scope, name, |entry| {
            entry.tags.retain(|t| !keys.contains(&t.key));
            Ok(())
        })
    }

    pub(crate) fn group_tags(&self, scope: &Scope, name: &str) -> Result<Vec<Tag>, Error> {
        let state = lock(&self.state);
        state
            .scope(scope)
            .groups
            .get(name)
            .map(|g| g.tags.clone())
            .ok_or_else(|| group_not_found(name))
    }
}

/// True for the reserved `aws:` keys only AWS (here: CloudFormation) may set on a group.
fn is_system_tag(key: &str) -> bool {
    key.get(..4).is_some_and(|p| p.eq_ignore_ascii_case("aws:"))
}
