from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
import datetime






T = TypeVar("T", bound="WindowChange")



@_attrs_define
class WindowChange:
    """ A moved issue window: an end left out stays as it is.

        Attributes:
            begin (datetime.datetime | Unset):
            end (datetime.datetime | Unset):
     """

    begin: datetime.datetime | Unset = UNSET
    end: datetime.datetime | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        begin: str | Unset = UNSET
        if not isinstance(self.begin, Unset):
            begin = self.begin.isoformat()

        end: str | Unset = UNSET
        if not isinstance(self.end, Unset):
            end = self.end.isoformat()


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if begin is not UNSET:
            field_dict["begin"] = begin
        if end is not UNSET:
            field_dict["end"] = end

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        _begin = d.pop("begin", UNSET)
        begin: datetime.datetime | Unset
        if isinstance(_begin,  Unset):
            begin = UNSET
        else:
            begin = datetime.datetime.fromisoformat(_begin)




        _end = d.pop("end", UNSET)
        end: datetime.datetime | Unset
        if isinstance(_end,  Unset):
            end = UNSET
        else:
            end = datetime.datetime.fromisoformat(_end)




        window_change = cls(
            begin=begin,
            end=end,
        )

        return window_change

