from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
import datetime






T = TypeVar("T", bound="BudgetDayView")



@_attrs_define
class BudgetDayView:
    """ One business day of a budget with a daily cap.

        Attributes:
            day (datetime.date):
            left (str):
            reserved (str):
            spent (str):
     """

    day: datetime.date
    left: str
    reserved: str
    spent: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        day = self.day.isoformat()

        left = self.left

        reserved = self.reserved

        spent = self.spent


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "day": day,
            "left": left,
            "reserved": reserved,
            "spent": spent,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        day = datetime.date.fromisoformat(d.pop("day"))




        left = d.pop("left")

        reserved = d.pop("reserved")

        spent = d.pop("spent")

        budget_day_view = cls(
            day=day,
            left=left,
            reserved=reserved,
            spent=spent,
        )


        budget_day_view.additional_properties = d
        return budget_day_view

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
