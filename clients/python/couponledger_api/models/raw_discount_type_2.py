from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.raw_discount_type_2_type import RawDiscountType2Type
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="RawDiscountType2")



@_attrs_define
class RawDiscountType2:
    """ 
        Attributes:
            rate_off (str):
            type_ (RawDiscountType2Type):
            max_off (None | str | Unset):
            threshold (None | str | Unset):
     """

    rate_off: str
    type_: RawDiscountType2Type
    max_off: None | str | Unset = UNSET
    threshold: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        rate_off = self.rate_off

        type_ = self.type_.value

        max_off: None | str | Unset
        if isinstance(self.max_off, Unset):
            max_off = UNSET
        else:
            max_off = self.max_off

        threshold: None | str | Unset
        if isinstance(self.threshold, Unset):
            threshold = UNSET
        else:
            threshold = self.threshold


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "rate_off": rate_off,
            "type": type_,
        })
        if max_off is not UNSET:
            field_dict["max_off"] = max_off
        if threshold is not UNSET:
            field_dict["threshold"] = threshold

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        rate_off = d.pop("rate_off")

        type_ = RawDiscountType2Type(d.pop("type"))




        def _parse_max_off(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        max_off = _parse_max_off(d.pop("max_off", UNSET))


        def _parse_threshold(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        threshold = _parse_threshold(d.pop("threshold", UNSET))


        raw_discount_type_2 = cls(
            rate_off=rate_off,
            type_=type_,
            max_off=max_off,
            threshold=threshold,
        )

        return raw_discount_type_2

