from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
import datetime






T = TypeVar("T", bound="HistoryBucket")



@_attrs_define
class HistoryBucket:
    """ The coupons issued in one bucket, and what has become of them: the
    status counts are of the same coupons, as they stand now, so they add up
    to `issued`.

        Attributes:
            expired (int): Of those, expired.
            issued (int): Coupons issued in the bucket.
            locked (int): Of those, locked in an order now.
            refunded (int): Of those, refunded (given back by a refund under the `reissue` policy).
            start (datetime.datetime): The bucket's start; it ends where the next one starts (the last at `to`).
            unused (int): Of those, unused now.
            used (int): Of those, used now.
            void (int): Of those, void (voided one by one or with their template).
     """

    expired: int
    issued: int
    locked: int
    refunded: int
    start: datetime.datetime
    unused: int
    used: int
    void: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        expired = self.expired

        issued = self.issued

        locked = self.locked

        refunded = self.refunded

        start = self.start.isoformat()

        unused = self.unused

        used = self.used

        void = self.void


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "expired": expired,
            "issued": issued,
            "locked": locked,
            "refunded": refunded,
            "start": start,
            "unused": unused,
            "used": used,
            "void": void,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        expired = d.pop("expired")

        issued = d.pop("issued")

        locked = d.pop("locked")

        refunded = d.pop("refunded")

        start = datetime.datetime.fromisoformat(d.pop("start"))




        unused = d.pop("unused")

        used = d.pop("used")

        void = d.pop("void")

        history_bucket = cls(
            expired=expired,
            issued=issued,
            locked=locked,
            refunded=refunded,
            start=start,
            unused=unused,
            used=used,
            void=void,
        )


        history_bucket.additional_properties = d
        return history_bucket

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
