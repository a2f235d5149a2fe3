from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="PackageItem")



@_attrs_define
class PackageItem:
    """ One item of a package: `count` coupons of a template.

        Attributes:
            count (int):
            template_sn (str):
     """

    count: int
    template_sn: str





    def to_dict(self) -> dict[str, Any]:
        count = self.count

        template_sn = self.template_sn


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "count": count,
            "template_sn": template_sn,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        count = d.pop("count")

        template_sn = d.pop("template_sn")

        package_item = cls(
            count=count,
            template_sn=template_sn,
        )

        return package_item

