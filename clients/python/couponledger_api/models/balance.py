from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.balance_by_status import BalanceByStatus
  from ..models.reflects import Reflects





T = TypeVar("T", bound="Balance")



@_attrs_define
class Balance:
    """ 
        Attributes:
            by_status (BalanceByStatus): Every status (`unused`, `locked`, `used`, `refunded`, `expired`, `void`).
            reflects (Reflects): Where a projection stands: the position of the last event it applied
                and how many events it has been given (0 and 0 before the first).
            user_id (str):
     """

    by_status: BalanceByStatus
    reflects: Reflects
    user_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.balance_by_status import BalanceByStatus # noqa: PLC0415
        from ..models.reflects import Reflects # noqa: PLC0415
        by_status = self.by_status.to_dict()

        reflects = self.reflects.to_dict()

        user_id = self.user_id


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "by_status": by_status,
            "reflects": reflects,
            "user_id": user_id,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.balance_by_status import BalanceByStatus # noqa: PLC0415
        from ..models.reflects import Reflects # noqa: PLC0415
        d = dict(src_dict)
        by_status = BalanceByStatus.from_dict(d.pop("by_status"))




        reflects = Reflects.from_dict(d.pop("reflects"))




        user_id = d.pop("user_id")

        balance = cls(
            by_status=by_status,
            reflects=reflects,
            user_id=user_id,
        )


        balance.additional_properties = d
        return balance

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
