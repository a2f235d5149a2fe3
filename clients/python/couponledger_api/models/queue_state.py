from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="QueueState")



@_attrs_define
class QueueState:
    """ One contract queue as the management API reports it now.

        Attributes:
            consumers (int):
            max_length (int): The queue's bound (`x-max-length`).
            messages (int): Ready + unacknowledged.
            queue (str):
            ready (int):
            unacknowledged (int):
     """

    consumers: int
    max_length: int
    messages: int
    queue: str
    ready: int
    unacknowledged: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        consumers = self.consumers

        max_length = self.max_length

        messages = self.messages

        queue = self.queue

        ready = self.ready

        unacknowledged = self.unacknowledged


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "consumers": consumers,
            "max_length": max_length,
            "messages": messages,
            "queue": queue,
            "ready": ready,
            "unacknowledged": unacknowledged,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        consumers = d.pop("consumers")

        max_length = d.pop("max_length")

        messages = d.pop("messages")

        queue = d.pop("queue")

        ready = d.pop("ready")

        unacknowledged = d.pop("unacknowledged")

        queue_state = cls(
            consumers=consumers,
            max_length=max_length,
            messages=messages,
            queue=queue,
            ready=ready,
            unacknowledged=unacknowledged,
        )


        queue_state.additional_properties = d
        return queue_state

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
