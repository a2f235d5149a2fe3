from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.package_view import PackageView





T = TypeVar("T", bound="PackagePage")



@_attrs_define
class PackagePage:
    """ 
        Attributes:
            limit (int):
            offset (int):
            packages (list[PackageView]):
            total (int): Packages matching the query in all.
     """

    limit: int
    offset: int
    packages: list[PackageView]
    total: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.package_view import PackageView # noqa: PLC0415
        limit = self.limit

        offset = self.offset

        packages = []
        for packages_item_data in self.packages:
            packages_item = packages_item_data.to_dict()
            packages.append(packages_item)



        total = self.total


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "limit": limit,
            "offset": offset,
            "packages": packages,
            "total": total,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.package_view import PackageView # noqa: PLC0415
        d = dict(src_dict)
        limit = d.pop("limit")

        offset = d.pop("offset")

        packages = []
        _packages = d.pop("packages")
        for packages_item_data in (_packages):
            packages_item = PackageView.from_dict(packages_item_data)



            packages.append(packages_item)


        total = d.pop("total")

        package_page = cls(
            limit=limit,
            offset=offset,
            packages=packages,
            total=total,
        )


        package_page.additional_properties = d
        return package_page

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
