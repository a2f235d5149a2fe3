from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.raw_validity_type_0_type import RawValidityType0Type
from typing import cast
import datetime






T = TypeVar("T", bound="RawValidityType0")



@_attrs_define
class RawValidityType0:
    """ 
        Attributes:
            begin (datetime.datetime):
            end (datetime.datetime):
            type_ (RawValidityType0Type):
     """

    begin: datetime.datetime
    end: datetime.datetime
    type_: RawValidityType0Type





    def to_dict(self) -> dict[str, Any]:
        begin = self.begin.isoformat()

        end = self.end.isoformat()

        type_ = self.type_.value


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "begin": begin,
            "end": end,
            "type": type_,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        begin = datetime.datetime.fromisoformat(d.pop("begin"))




        end = datetime.datetime.fromisoformat(d.pop("end"))




        type_ = RawValidityType0Type(d.pop("type"))




        raw_validity_type_0 = cls(
            begin=begin,
            end=end,
            type_=type_,
        )

        return raw_validity_type_0

