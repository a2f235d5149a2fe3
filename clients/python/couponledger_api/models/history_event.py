from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
from uuid import UUID
import datetime

if TYPE_CHECKING:
  from ..models.event_metadata import EventMetadata
  from ..models.history_event_payload import HistoryEventPayload





T = TypeVar("T", bound="HistoryEvent")



@_attrs_define
class HistoryEvent:
    """ One event of a coupon's or a template's history.

        Attributes:
            event_id (UUID):
            event_type (str):
            metadata (EventMetadata): Who made a change and in answer to what (docs/design.md §4 `metadata`); the
                shape of the stored metadata, for the document.
                Only its schema is used: the metadata is served as stored.
            occurred_at (datetime.datetime):
            payload (HistoryEventPayload): The event's own fields, by `event_type` (its JSON Schema is
                `schemas/<event_type>.v<schema_version>.json`).
            position (int):
            schema_version (int):
            stream_version (int):
     """

    event_id: UUID
    event_type: str
    metadata: EventMetadata
    occurred_at: datetime.datetime
    payload: HistoryEventPayload
    position: int
    schema_version: int
    stream_version: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.event_metadata import EventMetadata # noqa: PLC0415
        from ..models.history_event_payload import HistoryEventPayload # noqa: PLC0415
        event_id = str(self.event_id)

        event_type = self.event_type

        metadata = self.metadata.to_dict()

        occurred_at = self.occurred_at.isoformat()

        payload = self.payload.to_dict()

        position = self.position

        schema_version = self.schema_version

        stream_version = self.stream_version


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "event_id": event_id,
            "event_type": event_type,
            "metadata": metadata,
            "occurred_at": occurred_at,
            "payload": payload,
            "position": position,
            "schema_version": schema_version,
            "stream_version": stream_version,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.event_metadata import EventMetadata # noqa: PLC0415
        from ..models.history_event_payload import HistoryEventPayload # noqa: PLC0415
        d = dict(src_dict)
        event_id = UUID(d.pop("event_id"))




        event_type = d.pop("event_type")

        metadata = EventMetadata.from_dict(d.pop("metadata"))




        occurred_at = datetime.datetime.fromisoformat(d.pop("occurred_at"))




        payload = HistoryEventPayload.from_dict(d.pop("payload"))




        position = d.pop("position")

        schema_version = d.pop("schema_version")

        stream_version = d.pop("stream_version")

        history_event = cls(
            event_id=event_id,
            event_type=event_type,
            metadata=metadata,
            occurred_at=occurred_at,
            payload=payload,
            position=position,
            schema_version=schema_version,
            stream_version=stream_version,
        )


        history_event.additional_properties = d
        return history_event

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
