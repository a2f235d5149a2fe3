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
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        begin_days = self.begin_days

        end_days = self.end_days

        type_ = self.type_.value


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
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


        raw_validity_type_1.additional_properties = d
        return raw_validity_type_1

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
