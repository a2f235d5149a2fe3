from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
import datetime






T = TypeVar("T", bound="CheckpointView")



@_attrs_define
class CheckpointView:
    """ 
        Attributes:
            created_at (datetime.datetime):
            first_seq (int):
            head (str): The chain's head at `last_seq`, hex.
            id (int):
            last_seq (int):
            line (str): The checkpoint as `ledger audit checkpoints` prints it.
            max_position (int):
            min_position (int):
     """

    created_at: datetime.datetime
    first_seq: int
    head: str
    id: int
    last_seq: int
    line: str
    max_position: int
    min_position: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        first_seq = self.first_seq

        head = self.head

        id = self.id

        last_seq = self.last_seq

        line = self.line

        max_position = self.max_position

        min_position = self.min_position


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "created_at": created_at,
            "first_seq": first_seq,
            "head": head,
            "id": id,
            "last_seq": last_seq,
            "line": line,
            "max_position": max_position,
            "min_position": min_position,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))




        first_seq = d.pop("first_seq")

        head = d.pop("head")

        id = d.pop("id")

        last_seq = d.pop("last_seq")

        line = d.pop("line")

        max_position = d.pop("max_position")

        min_position = d.pop("min_position")

        checkpoint_view = cls(
            created_at=created_at,
            first_seq=first_seq,
            head=head,
            id=id,
            last_seq=last_seq,
            line=line,
            max_position=max_position,
            min_position=min_position,
        )


        checkpoint_view.additional_properties = d
        return checkpoint_view

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
