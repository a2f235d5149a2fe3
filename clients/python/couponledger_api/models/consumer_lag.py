from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="ConsumerLag")



@_attrs_define
class ConsumerLag:
    """ One consumer's distance from the log's head.

        Attributes:
            consumer (str): `relay:<route>` (e.g. `relay:coupon.events.balances`) or a
                projection's name.
            events_behind (int): Events after the last one it handled (at most 1,000,000).
            seconds_behind (float): Age of the oldest event it has not handled (0 when caught up).
     """

    consumer: str
    events_behind: int
    seconds_behind: float
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        consumer = self.consumer

        events_behind = self.events_behind

        seconds_behind = self.seconds_behind


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "consumer": consumer,
            "events_behind": events_behind,
            "seconds_behind": seconds_behind,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        consumer = d.pop("consumer")

        events_behind = d.pop("events_behind")

        seconds_behind = d.pop("seconds_behind")

        consumer_lag = cls(
            consumer=consumer,
            events_behind=events_behind,
            seconds_behind=seconds_behind,
        )


        consumer_lag.additional_properties = d
        return consumer_lag

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
