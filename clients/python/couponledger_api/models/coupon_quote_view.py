from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
from uuid import UUID






T = TypeVar("T", bound="CouponQuoteView")



@_attrs_define
class CouponQuoteView:
    """ One coupon alone: its discount, or why it does not apply.

        Attributes:
            coupon_id (UUID):
            discount (str):
            usable (bool):
            reason (None | str | Unset): Set when not usable: `currency_mismatch`, `not_yet_effective`,
                `expired`, `out_of_scope`, `no_line_in_scope`, `below_threshold`,
                `nothing_to_discount`.
            reason_message (None | str | Unset):
     """

    coupon_id: UUID
    discount: str
    usable: bool
    reason: None | str | Unset = UNSET
    reason_message: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        coupon_id = str(self.coupon_id)

        discount = self.discount

        usable = self.usable

        reason: None | str | Unset
        if isinstance(self.reason, Unset):
            reason = UNSET
        else:
            reason = self.reason

        reason_message: None | str | Unset
        if isinstance(self.reason_message, Unset):
            reason_message = UNSET
        else:
            reason_message = self.reason_message


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "coupon_id": coupon_id,
            "discount": discount,
            "usable": usable,
        })
        if reason is not UNSET:
            field_dict["reason"] = reason
        if reason_message is not UNSET:
            field_dict["reason_message"] = reason_message

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        coupon_id = UUID(d.pop("coupon_id"))




        discount = d.pop("discount")

        usable = d.pop("usable")

        def _parse_reason(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reason = _parse_reason(d.pop("reason", UNSET))


        def _parse_reason_message(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reason_message = _parse_reason_message(d.pop("reason_message", UNSET))


        coupon_quote_view = cls(
            coupon_id=coupon_id,
            discount=discount,
            usable=usable,
            reason=reason,
            reason_message=reason_message,
        )


        coupon_quote_view.additional_properties = d
        return coupon_quote_view

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
