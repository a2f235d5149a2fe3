from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="Replay")



@_attrs_define
class Replay:
    """ 
        Attributes:
            from_position (int): Every event from this position on (to the log's head now) is sent
                again, delivered ones included.
     """

    from_position: int





    def to_dict(self) -> dict[str, Any]:
        from_position = self.from_position


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "from_position": from_position,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        from_position = d.pop("from_position")

        replay = cls(
            from_position=from_position,
        )

        return replay

