//! The mesh's messages as they travel: serde types, one a message. Every
//! field of a peer's is a [`Field`], read as its type or kept unread, so
//! that one field a peer got wrong drops that field (or that element of
//! a list), as the reader decides, not the whole message. The bounds
//! (lengths, counts, ranges) are applied after parsing, by `messages`.
//! A message's object is read only from a JSON object ([`Obj`]): serde
//! would also read a struct from the list of its fields, in their order
//! here, which no host sends.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// A field of a peer's message: missing (or `null`), read as `T`, or of
/// another type, kept as it came.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum Field<T> {
    /// Missing, or `null`.
    #[default]
    Absent,
    /// Read as `T`.
    Read(T),
    /// There, but not a `T`.
    Unread(Value),
}

impl<T> Field<T> {
    /// The value when it read as `T`.
    pub fn read(self) -> Option<T> {
        match self {
            Field::Read(t) => Some(t),
            _ => None,
        }
    }

    /// [`Field::read`] of a reference.
    pub fn as_read(&self) -> Option<&T> {
        match self {
            Field::Read(t) => Some(t),
            _ => None,
        }
    }
}

impl<T> From<Option<T>> for Field<T> {
    fn from(o: Option<T>) -> Field<T> {
        o.map_or(Field::Absent, Field::Read)
    }
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for Field<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match Value::deserialize(d)? {
            Value::Null => Field::Absent,
            v => match T::deserialize(&v) {
                Ok(t) => Field::Read(t),
                Err(_) => Field::Unread(v),
            },
        })
    }
}

impl<T: Serialize> Serialize for Field<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Field::Absent => s.serialize_none(),
            Field::Read(t) => t.serialize(s),
            Field::Unread(v) => v.serialize(s),
        }
    }
}

/// A struct read only from a JSON object, a key given twice taking its
/// last value (as serde_json's own map does): never from a list of its
/// fields, which serde's derive would read in their declared order.
#[derive(Debug, Default)]
pub struct Obj<T>(pub T);

impl<'de, T: DeserializeOwned> Deserialize<'de> for Obj<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let map = serde_json::Map::<String, Value>::deserialize(d)?;
        T::deserialize(Value::Object(map))
            .map(Obj)
            .map_err(serde::de::Error::custom)
    }
}

impl<T: Serialize> Serialize for Obj<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

/// A list whose elements are each read or not.
pub type List<T> = Field<Vec<Field<T>>>;

/// The elements of `list` that read as `T`, at most `max` of the first
/// `max` (an element that did not read counts toward them).
pub fn elements<T>(list: List<T>, max: usize) -> impl Iterator<Item = T> {
    list.read()
        .unwrap_or_default()
        .into_iter()
        .take(max)
        .filter_map(Field::read)
}

/// `list` as a message's field.
pub fn listed<T>(list: impl IntoIterator<Item = T>) -> List<T> {
    Field::Read(list.into_iter().map(Field::Read).collect())
}

/// A host's `hello`.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Hello {
    /// Its rank.
    pub rank: Field<u64>,
    /// Its host name.
    pub name: Field<String>,
    /// Its RDMA address.
    pub ip: Field<String>,
    /// The netdev under its RDMA device.
    pub netdev: Field<String>,
    /// That netdev's MTU.
    pub mtu: Field<u64>,
    /// The GID type the examples use there.
    pub gid_type: Field<String>,
    /// The subnet of its RDMA address.
    pub subnet: Field<String>,
    /// Its doctor's findings.
    pub findings: List<String>,
    /// Why it cannot take part.
    pub cannot_run: Field<String>,
    /// Its rail ports.
    pub ports: List<Obj<Port>>,
}

/// A rail port of a `hello`.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Port {
    /// The device.
    pub dev: Field<String>,
    /// Its port number.
    pub port: Field<u32>,
    /// The netdev it serves.
    pub netdev: Field<String>,
    /// The netdev's IPv4 address.
    pub addr: Field<String>,
    /// The address's prefix length.
    pub prefix: Field<u8>,
    /// The link rate, if sysfs gives it.
    pub rate: Field<String>,
}

/// The coordinator's `plan`.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Plan {
    /// How long one round may take, in seconds.
    pub round_secs: Field<u64>,
    /// How many rounds there are.
    pub rounds: Field<u64>,
}

/// One rail of a round's `pair`.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Assignment {
    /// The round.
    pub round: Field<u64>,
    /// `server` or `client`.
    pub role: Field<String>,
    /// The serving host's RDMA address.
    pub server_ip: Field<String>,
    /// The peer host's RDMA address.
    pub client_ip: Field<String>,
    /// Names the pair's session.
    pub nonce: Field<String>,
    /// The scenarios, in order.
    pub scenarios: List<String>,
    /// The rail.
    pub rail: Field<u64>,
    /// The measurements' QP timeout.
    pub qp_timeout: Field<u64>,
}

/// A round's `pair`: one rail's assignment, or a list of them.
#[derive(Debug, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Assignments {
    /// Several rails, each an element.
    Rails(Vec<Field<Obj<Assignment>>>),
    /// One rail.
    One(Box<Obj<Assignment>>),
}

/// A scenario's result in a `done`: its verdict and what goes with it.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Verdict {
    /// The scenario's name.
    pub scenario: Field<String>,
    /// `pass`, `fail`, `skip`, `port-held` or `not-run`.
    pub verdict: Field<String>,
    /// Why it did not run, for `port-held` and `not-run`.
    pub why: Field<String>,
    /// The judge's failures, or the skip's reason.
    pub detail: Field<String>,
    /// Why a program of it never started, when one did not.
    pub unstarted: Field<String>,
    /// The server side's transcript.
    pub server_log: Field<String>,
    /// The client side's transcript.
    pub client_log: Field<String>,
}

/// One measurement of a host's own side.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Measure {
    /// The measurement's name.
    pub scenario: Field<String>,
    /// Its perftest report.
    pub report: Field<String>,
    /// The receive counters that rose, `[name, rise]` pairs (exactly two
    /// elements each).
    pub received: List<(String, u64)>,
    /// The port's active MTU.
    pub mtu: Field<u64>,
}

/// A host's own side in a `done`.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Side {
    /// Its measurements.
    pub measures: List<Obj<Measure>>,
    /// How long it read its port's counters, in ms.
    pub elapsed_ms: Field<u64>,
}

/// A host's `done`, as an object.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Done {
    /// The scenarios' results.
    pub results: List<Obj<Verdict>>,
    /// The loss counters that rose, `[name, rise]` pairs (exactly two
    /// elements each).
    pub counters: List<(String, u64)>,
    /// Its own side.
    pub side: Field<Obj<Side>>,
}

/// A host's `done`: the object, or a bare list of results.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum DoneOrList {
    /// The results alone.
    List(Vec<Field<Obj<Verdict>>>),
    /// Results, counters and its side.
    Done(Obj<Done>),
}

#[cfg(test)]
mod tests;
