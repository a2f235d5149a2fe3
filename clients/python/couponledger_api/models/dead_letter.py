from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="DeadLetter")



@_attrs_define
class DeadLetter:
    """ One dead letter, as the worker that gave up on it described it.

        Attributes:
            attempts (int | None | Unset):
            consumer (None | str | Unset):
            error (None | str | Unset):
            original_queue (None | str | Unset):
     """

    attempts: int | None | Unset = UNSET
    consumer: None | str | Unset = UNSET
    error: None | str | Unset = UNSET
    original_queue: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        attempts: int | None | Unset
        if isinstance(self.attempts, Unset):
            attempts = UNSET
        else:
            attempts = self.attempts

        consumer: None | str | Unset
        if isinstance(self.consumer, Unset):
            consumer = UNSET
        else:
            consumer = self.consumer

        error: None | str | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        else:
            error = self.error

        original_queue: None | str | Unset
        if isinstance(self.original_queue, Unset):
            original_queue = UNSET
        else:
            original_queue = self.original_queue


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
        })
        if attempts is not UNSET:
            field_dict["attempts"] = attempts
        if consumer is not UNSET:
            field_dict["consumer"] = consumer
        if error is not UNSET:
            field_dict["error"] = error
        if original_queue is not UNSET:
            field_dict["original_queue"] = original_queue

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_attempts(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        attempts = _parse_attempts(d.pop("attempts", UNSET))


        def _parse_consumer(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        consumer = _parse_consumer(d.pop("consumer", UNSET))


        def _parse_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error = _parse_error(d.pop("error", UNSET))


        def _parse_original_queue(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        original_queue = _parse_original_queue(d.pop("original_queue", UNSET))


        dead_letter = cls(
            attempts=attempts,
            consumer=consumer,
            error=error,
            original_queue=original_queue,
        )


        dead_letter.additional_properties = d
        return dead_letter

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
