from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
from uuid import UUID

if TYPE_CHECKING:
  from ..models.issue_window_view import IssueWindowView
  from ..models.package_item import PackageItem





T = TypeVar("T", bound="CreatePackage")



@_attrs_define
class CreatePackage:
    """ 
        Attributes:
            issue_window (IssueWindowView): When coupons of the template (or a package) may be claimed.
            items (list[PackageItem]): 1 to 20 items; 1 to 10,000 coupons in all. A claim of more than 100
                runs as a job (202).
            name (str):
            per_user_limit (int):
            total (int):
            channels (list[UUID] | Unset): Channels that may claim it (at most 100 here; more by
                `POST /v1/packages/{sn}/channels`). None: no channel may, until one
                is allowed, as for a template.
     """

    issue_window: IssueWindowView
    items: list[PackageItem]
    name: str
    per_user_limit: int
    total: int
    channels: list[UUID] | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.issue_window_view import IssueWindowView # noqa: PLC0415
        from ..models.package_item import PackageItem # noqa: PLC0415
        issue_window = self.issue_window.to_dict()

        items = []
        for items_item_data in self.items:
            items_item = items_item_data.to_dict()
            items.append(items_item)



        name = self.name

        per_user_limit = self.per_user_limit

        total = self.total

        channels: list[str] | Unset = UNSET
        if not isinstance(self.channels, Unset):
            channels = []
            for channels_item_data in self.channels:
                channels_item = str(channels_item_data)
                channels.append(channels_item)




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "issue_window": issue_window,
            "items": items,
            "name": name,
            "per_user_limit": per_user_limit,
            "total": total,
        })
        if channels is not UNSET:
            field_dict["channels"] = channels

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.issue_window_view import IssueWindowView # noqa: PLC0415
        from ..models.package_item import PackageItem # noqa: PLC0415
        d = dict(src_dict)
        issue_window = IssueWindowView.from_dict(d.pop("issue_window"))




        items = []
        _items = d.pop("items")
        for items_item_data in (_items):
            items_item = PackageItem.from_dict(items_item_data)



            items.append(items_item)


        name = d.pop("name")

        per_user_limit = d.pop("per_user_limit")

        total = d.pop("total")

        _channels = d.pop("channels", UNSET)
        channels: list[UUID] | Unset = UNSET
        if _channels is not UNSET:
            channels = []
            for channels_item_data in _channels:
                channels_item = UUID(channels_item_data)



                channels.append(channels_item)


        create_package = cls(
            issue_window=issue_window,
            items=items,
            name=name,
            per_user_limit=per_user_limit,
            total=total,
            channels=channels,
        )

        return create_package

