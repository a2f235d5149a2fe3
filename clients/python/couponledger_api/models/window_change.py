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
            begin (datetime.datetime | None | Unset):
            end (datetime.datetime | None | Unset):
     """

    begin: datetime.datetime | None | Unset = UNSET
    end: datetime.datetime | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        begin: None | str | Unset
        if isinstance(self.begin, Unset):
            begin = UNSET
        elif isinstance(self.begin, datetime.datetime):
            begin = self.begin.isoformat()
        else:
            begin = self.begin

        end: None | str | Unset
        if isinstance(self.end, Unset):
            end = UNSET
        elif isinstance(self.end, datetime.datetime):
            end = self.end.isoformat()
        else:
            end = self.end


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
        def _parse_begin(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                begin_type_0 = datetime.datetime.fromisoformat(data)



                return begin_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        begin = _parse_begin(d.pop("begin", UNSET))


        def _parse_end(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                end_type_0 = datetime.datetime.fromisoformat(data)



                return end_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        end = _parse_end(d.pop("end", UNSET))


        window_change = cls(
            begin=begin,
            end=end,
        )

        return window_change

