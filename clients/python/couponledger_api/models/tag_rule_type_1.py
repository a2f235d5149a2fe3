from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="TagRuleType1")



@_attrs_define
class TagRuleType1:
    """ 
        Attributes:
            any_ (list[str]):
     """

    any_: list[str]





    def to_dict(self) -> dict[str, Any]:
        any_ = self.any_




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "any": any_,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        any_ = cast(list[str], d.pop("any"))


        tag_rule_type_1 = cls(
            any_=any_,
        )

        return tag_rule_type_1

