from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
from uuid import UUID






T = TypeVar("T", bound="EventMetadata")



@_attrs_define
class EventMetadata:
    """ Who made a change and in answer to what (docs/design.md §4 `metadata`); the
    shape of the stored metadata, for the document.
    Only its schema is used: the metadata is served as stored.

        Attributes:
            actor (str): `admin`, `service`, `channel:<id>`, `system:<worker>`.
            correlation_id (str):
            causation_id (None | str | Unset):
            channel_id (None | Unset | UUID):
            idempotency_key (None | str | Unset):
            operator (None | str | Unset): The operator whose request it answers (docs/design.md §7
                "Operators"): on an admin route's events and an issuance job's coupons.
     """

    actor: str
    correlation_id: str
    causation_id: None | str | Unset = UNSET
    channel_id: None | Unset | UUID = UNSET
    idempotency_key: None | str | Unset = UNSET
    operator: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        actor = self.actor

        correlation_id = self.correlation_id

        causation_id: None | str | Unset
        if isinstance(self.causation_id, Unset):
            causation_id = UNSET
        else:
            causation_id = self.causation_id

        channel_id: None | str | Unset
        if isinstance(self.channel_id, Unset):
            channel_id = UNSET
        elif isinstance(self.channel_id, UUID):
            channel_id = str(self.channel_id)
        else:
            channel_id = self.channel_id

        idempotency_key: None | str | Unset
        if isinstance(self.idempotency_key, Unset):
            idempotency_key = UNSET
        else:
            idempotency_key = self.idempotency_key

        operator: None | str | Unset
        if isinstance(self.operator, Unset):
            operator = UNSET
        else:
            operator = self.operator


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "actor": actor,
            "correlation_id": correlation_id,
        })
        if causation_id is not UNSET:
            field_dict["causation_id"] = causation_id
        if channel_id is not UNSET:
            field_dict["channel_id"] = channel_id
        if idempotency_key is not UNSET:
            field_dict["idempotency_key"] = idempotency_key
        if operator is not UNSET:
            field_dict["operator"] = operator

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        actor = d.pop("actor")

        correlation_id = d.pop("correlation_id")

        def _parse_causation_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        causation_id = _parse_causation_id(d.pop("causation_id", UNSET))


        def _parse_channel_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                channel_id_type_0 = UUID(data)



                return channel_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        channel_id = _parse_channel_id(d.pop("channel_id", UNSET))


        def _parse_idempotency_key(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        idempotency_key = _parse_idempotency_key(d.pop("idempotency_key", UNSET))


        def _parse_operator(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        operator = _parse_operator(d.pop("operator", UNSET))


        event_metadata = cls(
            actor=actor,
            correlation_id=correlation_id,
            causation_id=causation_id,
            channel_id=channel_id,
            idempotency_key=idempotency_key,
            operator=operator,
        )


        event_metadata.additional_properties = d
        return event_metadata

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
