from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.raw_discount_type_0_type import RawDiscountType0Type






T = TypeVar("T", bound="RawDiscountType0")



@_attrs_define
class RawDiscountType0:
    """ 
        Attributes:
            amount (str):
            threshold (str):
            type_ (RawDiscountType0Type):
     """

    amount: str
    threshold: str
    type_: RawDiscountType0Type





    def to_dict(self) -> dict[str, Any]:
        amount = self.amount

        threshold = self.threshold

        type_ = self.type_.value


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "amount": amount,
            "threshold": threshold,
            "type": type_,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        amount = d.pop("amount")

        threshold = d.pop("threshold")

        type_ = RawDiscountType0Type(d.pop("type"))




        raw_discount_type_0 = cls(
            amount=amount,
            threshold=threshold,
            type_=type_,
        )

        return raw_discount_type_0

