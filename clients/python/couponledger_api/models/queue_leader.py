from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="QueueLeader")



@_attrs_define
class QueueLeader:
    """ 
        Attributes:
            queue (str):
            leader (None | str | Unset):
            members (list[str] | Unset):
     """

    queue: str
    leader: None | str | Unset = UNSET
    members: list[str] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        queue = self.queue

        leader: None | str | Unset
        if isinstance(self.leader, Unset):
            leader = UNSET
        else:
            leader = self.leader

        members: list[str] | Unset = UNSET
        if not isinstance(self.members, Unset):
            members = self.members




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "queue": queue,
        })
        if leader is not UNSET:
            field_dict["leader"] = leader
        if members is not UNSET:
            field_dict["members"] = members

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        queue = d.pop("queue")

        def _parse_leader(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        leader = _parse_leader(d.pop("leader", UNSET))


        members = cast(list[str], d.pop("members", UNSET))


        queue_leader = cls(
            queue=queue,
            leader=leader,
            members=members,
        )


        queue_leader.additional_properties = d
        return queue_leader

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
