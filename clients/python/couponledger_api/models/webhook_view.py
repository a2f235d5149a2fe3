from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
from uuid import UUID
import datetime

if TYPE_CHECKING:
  from ..models.delivery_counts import DeliveryCounts
  from ..models.replay_range import ReplayRange





T = TypeVar("T", bound="WebhookView")



@_attrs_define
class WebhookView:
    """ An endpoint: where it points, what it gets, how its deliveries stand.

        Attributes:
            created_at (datetime.datetime):
            created_by (str): The operator who made it.
            deliveries (DeliveryCounts):
            enabled (bool):
            event_types (list[str]): `["*"]` or event type names.
            id (UUID):
            retry_hours (int): Hours a delivery is retried before it is `failed`.
            updated_at (datetime.datetime):
            url (str):
            description (None | str | Unset):
            previous_secret_valid_until (datetime.datetime | None | Unset): Until when the secret the last rotation replaced
                still signs too;
                null when none does.
            replay (None | ReplayRange | Unset):
     """

    created_at: datetime.datetime
    created_by: str
    deliveries: DeliveryCounts
    enabled: bool
    event_types: list[str]
    id: UUID
    retry_hours: int
    updated_at: datetime.datetime
    url: str
    description: None | str | Unset = UNSET
    previous_secret_valid_until: datetime.datetime | None | Unset = UNSET
    replay: None | ReplayRange | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.delivery_counts import DeliveryCounts # noqa: PLC0415
        from ..models.replay_range import ReplayRange # noqa: PLC0415
        created_at = self.created_at.isoformat()

        created_by = self.created_by

        deliveries = self.deliveries.to_dict()

        enabled = self.enabled

        event_types = self.event_types



        id = str(self.id)

        retry_hours = self.retry_hours

        updated_at = self.updated_at.isoformat()

        url = self.url

        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        previous_secret_valid_until: None | str | Unset
        if isinstance(self.previous_secret_valid_until, Unset):
            previous_secret_valid_until = UNSET
        elif isinstance(self.previous_secret_valid_until, datetime.datetime):
            previous_secret_valid_until = self.previous_secret_valid_until.isoformat()
        else:
            previous_secret_valid_until = self.previous_secret_valid_until

        replay: dict[str, Any] | None | Unset
        if isinstance(self.replay, Unset):
            replay = UNSET
        elif isinstance(self.replay, ReplayRange):
            replay = self.replay.to_dict()
        else:
            replay = self.replay


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "created_at": created_at,
            "created_by": created_by,
            "deliveries": deliveries,
            "enabled": enabled,
            "event_types": event_types,
            "id": id,
            "retry_hours": retry_hours,
            "updated_at": updated_at,
            "url": url,
        })
        if description is not UNSET:
            field_dict["description"] = description
        if previous_secret_valid_until is not UNSET:
            field_dict["previous_secret_valid_until"] = previous_secret_valid_until
        if replay is not UNSET:
            field_dict["replay"] = replay

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.delivery_counts import DeliveryCounts # noqa: PLC0415
        from ..models.replay_range import ReplayRange # noqa: PLC0415
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))




        created_by = d.pop("created_by")

        deliveries = DeliveryCounts.from_dict(d.pop("deliveries"))




        enabled = d.pop("enabled")

        event_types = cast(list[str], d.pop("event_types"))


        id = UUID(d.pop("id"))




        retry_hours = d.pop("retry_hours")

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))




        url = d.pop("url")

        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))


        def _parse_previous_secret_valid_until(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                previous_secret_valid_until_type_0 = datetime.datetime.fromisoformat(data)



                return previous_secret_valid_until_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        previous_secret_valid_until = _parse_previous_secret_valid_until(d.pop("previous_secret_valid_until", UNSET))


        def _parse_replay(data: object) -> None | ReplayRange | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                replay_type_1 = ReplayRange.from_dict(data)



                return replay_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ReplayRange | Unset, data)

        replay = _parse_replay(d.pop("replay", UNSET))


        webhook_view = cls(
            created_at=created_at,
            created_by=created_by,
            deliveries=deliveries,
            enabled=enabled,
            event_types=event_types,
            id=id,
            retry_hours=retry_hours,
            updated_at=updated_at,
            url=url,
            description=description,
            previous_secret_valid_until=previous_secret_valid_until,
            replay=replay,
        )


        webhook_view.additional_properties = d
        return webhook_view

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
