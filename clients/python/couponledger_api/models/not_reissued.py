from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from uuid import UUID






T = TypeVar("T", bound="NotReissued")



@_attrs_define
class NotReissued:
    """ A `reissue` coupon the refund did not replace, and why.

        Attributes:
            coupon_id (UUID):
            reason (str): `expired`: its validity ended before the refund.
     """

    coupon_id: UUID
    reason: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        coupon_id = str(self.coupon_id)

        reason = self.reason


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "coupon_id": coupon_id,
            "reason": reason,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        coupon_id = UUID(d.pop("coupon_id"))




        reason = d.pop("reason")

        not_reissued = cls(
            coupon_id=coupon_id,
            reason=reason,
        )


        not_reissued.additional_properties = d
        return not_reissued

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
