from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="RaiseQuota")



@_attrs_define
class RaiseQuota:
    """ 
        Attributes:
            total (int):
     """

    total: int





    def to_dict(self) -> dict[str, Any]:
        total = self.total


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "total": total,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        total = d.pop("total")

        raise_quota = cls(
            total=total,
        )

        return raise_quota

