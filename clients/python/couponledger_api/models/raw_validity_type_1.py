from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.raw_validity_type_1_type import RawValidityType1Type






T = TypeVar("T", bound="RawValidityType1")



@_attrs_define
class RawValidityType1:
    """ 
        Attributes:
            begin_days (int):
            end_days (int):
            type_ (RawValidityType1Type):
     """

    begin_days: int
    end_days: int
    type_: RawValidityType1Type





    def to_dict(self) -> dict[str, Any]:
        begin_days = self.begin_days

        end_days = self.end_days

        type_ = self.type_.value


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "begin_days": begin_days,
            "end_days": end_days,
            "type": type_,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        begin_days = d.pop("begin_days")

        end_days = d.pop("end_days")

        type_ = RawValidityType1Type(d.pop("type"))




        raw_validity_type_1 = cls(
            begin_days=begin_days,
            end_days=end_days,
            type_=type_,
        )

        return raw_validity_type_1

