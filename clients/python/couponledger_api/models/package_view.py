from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.package_status import PackageStatus
from typing import cast
from uuid import UUID
import datetime

if TYPE_CHECKING:
  from ..models.issue_window_view import IssueWindowView
  from ..models.package_item import PackageItem





T = TypeVar("T", bound="PackageView")



@_attrs_define
class PackageView:
    """ 
        Attributes:
            channels (list[UUID]): The channels that may claim it, in id order (empty: none may).
            claimed (int):
            created_at (datetime.datetime):
            issue_window (IssueWindowView): When coupons of the template (or a package) may be claimed.
            items (list[PackageItem]):
            name (str):
            per_user_limit (int):
            sn (str):
            status (PackageStatus): A package's status: created `draft`, then `active` (claimed in its issue
                window) or `stopped` (claims and its codes refused), back and forth.
            total (int):
     """

    channels: list[UUID]
    claimed: int
    created_at: datetime.datetime
    issue_window: IssueWindowView
    items: list[PackageItem]
    name: str
    per_user_limit: int
    sn: str
    status: PackageStatus
    total: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.issue_window_view import IssueWindowView # noqa: PLC0415
        from ..models.package_item import PackageItem # noqa: PLC0415
        channels = []
        for channels_item_data in self.channels:
            channels_item = str(channels_item_data)
            channels.append(channels_item)



        claimed = self.claimed

        created_at = self.created_at.isoformat()

        issue_window = self.issue_window.to_dict()

        items = []
        for items_item_data in self.items:
            items_item = items_item_data.to_dict()
            items.append(items_item)



        name = self.name

        per_user_limit = self.per_user_limit

        sn = self.sn

        status = self.status.value

        total = self.total


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "channels": channels,
            "claimed": claimed,
            "created_at": created_at,
            "issue_window": issue_window,
            "items": items,
            "name": name,
            "per_user_limit": per_user_limit,
            "sn": sn,
            "status": status,
            "total": total,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.issue_window_view import IssueWindowView # noqa: PLC0415
        from ..models.package_item import PackageItem # noqa: PLC0415
        d = dict(src_dict)
        channels = []
        _channels = d.pop("channels")
        for channels_item_data in (_channels):
            channels_item = UUID(channels_item_data)



            channels.append(channels_item)


        claimed = d.pop("claimed")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))




        issue_window = IssueWindowView.from_dict(d.pop("issue_window"))




        items = []
        _items = d.pop("items")
        for items_item_data in (_items):
            items_item = PackageItem.from_dict(items_item_data)



            items.append(items_item)


        name = d.pop("name")

        per_user_limit = d.pop("per_user_limit")

        sn = d.pop("sn")

        status = PackageStatus(d.pop("status"))




        total = d.pop("total")

        package_view = cls(
            channels=channels,
            claimed=claimed,
            created_at=created_at,
            issue_window=issue_window,
            items=items,
            name=name,
            per_user_limit=per_user_limit,
            sn=sn,
            status=status,
            total=total,
        )


        package_view.additional_properties = d
        return package_view

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
