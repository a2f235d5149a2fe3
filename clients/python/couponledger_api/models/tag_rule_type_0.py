from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="TagRuleType0")



@_attrs_define
class TagRuleType0:
    """ 
        Attributes:
            all_ (list[str]):
     """

    all_: list[str]





    def to_dict(self) -> dict[str, Any]:
        all_ = self.all_




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "all": all_,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        all_ = cast(list[str], d.pop("all"))


        tag_rule_type_0 = cls(
            all_=all_,
        )

        return tag_rule_type_0

