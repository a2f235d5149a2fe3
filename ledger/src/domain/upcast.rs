//! Event versions (docs/design.md, "Event versions"): a stored event keeps
//! the bytes and the `schema_version` it was written with, forever; a
//! reader of this build sees every event at its type's current version.
//! One step per event type and version ([`UPCASTERS`]) turns a payload of
//! version `n` into version `n + 1`; [`to_current`] and
//! [`bytes_to_current`] apply a type's steps in turn. They are called only
//! by the decode of stored events (`LedgerEvent::decode`, `decode_slice`,
//! `check_type`) and by the replay's fold, which reads some payloads as
//! text: no reader matches on versions itself.
//!
//! What leaves the ledger as it was stored (the messages of
//! `coupon.events`, a backfill, the exports, the audit's hash chain) is
//! not upcast: a subscriber gets the stored payload and its version
//! (header `schema_version`, the `schema` file).

use std::borrow::Cow;

use serde_json::Value;

use super::ledger_event::EventType;

/// One step of a type's chain: its payload at version `from`, as version
/// `from + 1` has it. A step only adds or reshapes what the older payload
/// already says (each documents its default); it never reads anything else.
pub struct Upcaster {
    pub event_type: EventType,
    pub from: i16,
    pub step: fn(Value) -> Result<Value, String>,
}

/// Every step, for every type that has more than one version.
pub const UPCASTERS: &[Upcaster] = &[Upcaster {
    event_type: EventType::CouponUsed,
    from: 1,
    step: coupon_used_v1_to_v2,
}];

/// `CouponUsed` v1 (`{coupon_id, order_id}`) to v2, which adds `discount`
/// (what the coupon took off its order, as its lock allocated it). A v1
/// event never recorded it: `null`, "not on the event" (the order's
/// `OrderLocked` allocations still say it).
fn coupon_used_v1_to_v2(mut payload: Value) -> Result<Value, String> {
    let object = payload
        .as_object_mut()
        .ok_or("the v1 payload is not an object")?;
    object.entry("discount").or_insert(Value::Null);
    Ok(payload)
}

fn step(t: EventType, from: i16) -> Option<&'static Upcaster> {
    UPCASTERS
        .iter()
        .find(|u| u.event_type == t && u.from == from)
}

/// Whether this build reads `t` stored at `version`: its current version,
/// or an older one with a step from each version up to the current.
pub fn readable(t: EventType, version: i16) -> bool {
    let current = t.schema_version();
    (1..=current).contains(&version) && (version..current).all(|v| step(t, v).is_some())
}

/// The versions of `t` this build reads, oldest first (the current last).
pub fn readable_versions(t: EventType) -> impl Iterator<Item = i16> {
    (1..=t.schema_version()).filter(move |v| readable(t, *v))
}

/// The payload of `t` stored at `version`, at `t`'s current version:
/// itself (borrowed) when it is current. `version` must be [`readable`].
pub fn to_current(t: EventType, version: i16, payload: &Value) -> Result<Cow<'_, Value>, String> {
    if version == t.schema_version() {
        return Ok(Cow::Borrowed(payload));
    }
    steps(t, version, payload.clone()).map(Cow::Owned)
}

/// [`to_current`] for a payload's JSON text: the text itself when it is
/// current, else the upcast payload's text.
pub fn bytes_to_current(
    t: EventType,
    version: i16,
    payload: &[u8],
) -> Result<Cow<'_, [u8]>, String> {
    if version == t.schema_version() {
        return Ok(Cow::Borrowed(payload));
    }
    let value: Value = serde_json::from_slice(payload).map_err(|e| e.to_string())?;
    let current = steps(t, version, value)?;
    serde_json::to_vec(&current)
        .map(Cow::Owned)
        .map_err(|e| e.to_string())
}

fn steps(t: EventType, version: i16, mut payload: Value) -> Result<Value, String> {
    for from in version..t.schema_version() {
        let upcaster = step(t, from).ok_or_else(|| format!("{t} has no upcast from v{from}"))?;
        payload = (upcaster.step)(payload)?;
    }
    Ok(payload)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_step_leads_to_a_current_version_and_none_is_listed_twice() {
        for (i, u) in UPCASTERS.iter().enumerate() {
            assert!(
                u.from >= 1 && u.from < u.event_type.schema_version(),
                "{}",
                u.event_type
            );
            let twice = UPCASTERS[..i]
                .iter()
                .any(|o| o.event_type == u.event_type && o.from == u.from);
            assert!(!twice, "{} v{} has two upcasters", u.event_type, u.from);
        }
        // Every older version of every type is readable: a version bump
        // without its upcaster fails here.
        for t in EventType::ALL {
            for v in 1..=t.schema_version() {
                assert!(
                    readable(*t, v),
                    "{t} v{v} has no upcast to v{}",
                    t.schema_version()
                );
            }
            assert!(!readable(*t, 0) && !readable(*t, t.schema_version() + 1));
        }
    }

    #[test]
    fn a_coupon_used_v1_gains_a_null_discount_and_keeps_the_rest() {
        let v1 = json!({"coupon_id": "0191e3c4-5b6f-7000-8000-000000000001", "order_id": "o-1"});
        let current = to_current(EventType::CouponUsed, 1, &v1).unwrap();
        let mut expected = v1.clone();
        expected["discount"] = Value::Null;
        assert_eq!(*current, expected);
        let text = serde_json::to_vec(&v1).unwrap();
        let from_text = bytes_to_current(EventType::CouponUsed, 1, &text).unwrap();
        assert_eq!(
            serde_json::from_slice::<Value>(&from_text).unwrap(),
            expected
        );
    }

    #[test]
    fn a_current_payload_is_not_copied() {
        let v2 = json!({"coupon_id": "x", "order_id": "o", "discount": "20.00"});
        assert!(matches!(
            to_current(EventType::CouponUsed, 2, &v2).unwrap(),
            Cow::Borrowed(_)
        ));
        assert!(matches!(
            bytes_to_current(EventType::CouponUsed, 2, b"{}").unwrap(),
            Cow::Borrowed(_)
        ));
    }
}
