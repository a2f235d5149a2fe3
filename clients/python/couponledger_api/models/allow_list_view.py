from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.allow_list_file_view import AllowListFileView





T = TypeVar("T", bound="AllowListView")



@_attrs_define
class AllowListView:
    """ A template's allow-list.

        Attributes:
            enforced (bool): Whether the template's eligibility applies the list to claims,
                redemptions, package claims and bulk issuance.
            files (list[AllowListFileView]): The files that changed it, newest first (at most 20).
            members (int):
            template_sn (str):
            contains (bool | None | Unset): Whether `?user_id=` is on the list (absent unless asked).
     """

    enforced: bool
    files: list[AllowListFileView]
    members: int
    template_sn: str
    contains: bool | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.allow_list_file_view import AllowListFileView # noqa: PLC0415
        enforced = self.enforced

        files = []
        for files_item_data in self.files:
            files_item = files_item_data.to_dict()
            files.append(files_item)



        members = self.members

        template_sn = self.template_sn

        contains: bool | None | Unset
        if isinstance(self.contains, Unset):
            contains = UNSET
        else:
            contains = self.contains


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "enforced": enforced,
            "files": files,
            "members": members,
            "template_sn": template_sn,
        })
        if contains is not UNSET:
            field_dict["contains"] = contains

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.allow_list_file_view import AllowListFileView # noqa: PLC0415
        d = dict(src_dict)
        enforced = d.pop("enforced")

        files = []
        _files = d.pop("files")
        for files_item_data in (_files):
            files_item = AllowListFileView.from_dict(files_item_data)



            files.append(files_item)


        members = d.pop("members")

        template_sn = d.pop("template_sn")

        def _parse_contains(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        contains = _parse_contains(d.pop("contains", UNSET))


        allow_list_view = cls(
            enforced=enforced,
            files=files,
            members=members,
            template_sn=template_sn,
            contains=contains,
        )


        allow_list_view.additional_properties = d
        return allow_list_view

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
