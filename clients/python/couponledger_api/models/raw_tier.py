from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="RawTier")



@_attrs_define
class RawTier:
    """ One tier of a raw ladder.

        Attributes:
            amount (str):
            threshold (str):
     """

    amount: str
    threshold: str





    def to_dict(self) -> dict[str, Any]:
        amount = self.amount

        threshold = self.threshold


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "amount": amount,
            "threshold": threshold,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        amount = d.pop("amount")

        threshold = d.pop("threshold")

        raw_tier = cls(
            amount=amount,
            threshold=threshold,
        )

        return raw_tier

