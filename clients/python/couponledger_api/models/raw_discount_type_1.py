from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.raw_discount_type_1_type import RawDiscountType1Type
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="RawDiscountType1")



@_attrs_define
class RawDiscountType1:
    """ 
        Attributes:
            amount (str):
            step (str):
            type_ (RawDiscountType1Type):
            max_off (None | str | Unset):
     """

    amount: str
    step: str
    type_: RawDiscountType1Type
    max_off: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        amount = self.amount

        step = self.step

        type_ = self.type_.value

        max_off: None | str | Unset
        if isinstance(self.max_off, Unset):
            max_off = UNSET
        else:
            max_off = self.max_off


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "amount": amount,
            "step": step,
            "type": type_,
        })
        if max_off is not UNSET:
            field_dict["max_off"] = max_off

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        amount = d.pop("amount")

        step = d.pop("step")

        type_ = RawDiscountType1Type(d.pop("type"))




        def _parse_max_off(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        max_off = _parse_max_off(d.pop("max_off", UNSET))


        raw_discount_type_1 = cls(
            amount=amount,
            step=step,
            type_=type_,
            max_off=max_off,
        )

        return raw_discount_type_1

