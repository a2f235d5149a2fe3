from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="RawBudget")



@_attrs_define
class RawBudget:
    """ A budget as a request gives it: amounts written as strings.

        Attributes:
            total (str):
            daily (None | str | Unset):
     """

    total: str
    daily: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        total = self.total

        daily: None | str | Unset
        if isinstance(self.daily, Unset):
            daily = UNSET
        else:
            daily = self.daily


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "total": total,
        })
        if daily is not UNSET:
            field_dict["daily"] = daily

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        total = d.pop("total")

        def _parse_daily(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        daily = _parse_daily(d.pop("daily", UNSET))


        raw_budget = cls(
            total=total,
            daily=daily,
        )

        return raw_budget

