from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.budget_day_view import BudgetDayView





T = TypeVar("T", bound="BudgetView")



@_attrs_define
class BudgetView:
    """ A template's budget: what it allows and where it stands.

        Attributes:
            left (str):
            reserved (str):
            spent (str):
            total (str):
            daily (None | str | Unset):
            today (BudgetDayView | None | Unset):
     """

    left: str
    reserved: str
    spent: str
    total: str
    daily: None | str | Unset = UNSET
    today: BudgetDayView | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.budget_day_view import BudgetDayView # noqa: PLC0415
        left = self.left

        reserved = self.reserved

        spent = self.spent

        total = self.total

        daily: None | str | Unset
        if isinstance(self.daily, Unset):
            daily = UNSET
        else:
            daily = self.daily

        today: dict[str, Any] | None | Unset
        if isinstance(self.today, Unset):
            today = UNSET
        elif isinstance(self.today, BudgetDayView):
            today = self.today.to_dict()
        else:
            today = self.today


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "left": left,
            "reserved": reserved,
            "spent": spent,
            "total": total,
        })
        if daily is not UNSET:
            field_dict["daily"] = daily
        if today is not UNSET:
            field_dict["today"] = today

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.budget_day_view import BudgetDayView # noqa: PLC0415
        d = dict(src_dict)
        left = d.pop("left")

        reserved = d.pop("reserved")

        spent = d.pop("spent")

        total = d.pop("total")

        def _parse_daily(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        daily = _parse_daily(d.pop("daily", UNSET))


        def _parse_today(data: object) -> BudgetDayView | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                today_type_1 = BudgetDayView.from_dict(data)



                return today_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(BudgetDayView | None | Unset, data)

        today = _parse_today(d.pop("today", UNSET))


        budget_view = cls(
            left=left,
            reserved=reserved,
            spent=spent,
            total=total,
            daily=daily,
            today=today,
        )


        budget_view.additional_properties = d
        return budget_view

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
