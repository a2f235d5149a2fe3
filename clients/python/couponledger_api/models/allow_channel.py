from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from uuid import UUID






T = TypeVar("T", bound="AllowChannel")



@_attrs_define
class AllowChannel:
    """ 
        Attributes:
            channel_id (UUID):
     """

    channel_id: UUID





    def to_dict(self) -> dict[str, Any]:
        channel_id = str(self.channel_id)


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "channel_id": channel_id,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        channel_id = UUID(d.pop("channel_id"))




        allow_channel = cls(
            channel_id=channel_id,
        )

        return allow_channel

