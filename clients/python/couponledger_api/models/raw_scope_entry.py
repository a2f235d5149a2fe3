from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="RawScopeEntry")



@_attrs_define
class RawScopeEntry:
    """ One `use_scope` entry as it arrives: `{"kind": "category", "values": [...]}`.

        Attributes:
            kind (str): `product` (a line's sku), `category`, `shop` (a line's shop_id),
                `region` or `user_tag` (the order's).
            values (list[str]):
     """

    kind: str
    values: list[str]





    def to_dict(self) -> dict[str, Any]:
        kind = self.kind

        values = self.values




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "kind": kind,
            "values": values,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        kind = d.pop("kind")

        values = cast(list[str], d.pop("values"))


        raw_scope_entry = cls(
            kind=kind,
            values=values,
        )

        return raw_scope_entry

