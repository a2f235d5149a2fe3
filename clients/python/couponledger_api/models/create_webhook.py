from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="CreateWebhook")



@_attrs_define
class CreateWebhook:
    """ 
        Attributes:
            event_types (list[str]): `["*"]` for every event type, or event type names (each known).
            url (str): `https://` and a public host (unless private addresses are allowed);
                at most 2,048 characters.
            description (None | str | Unset):
            retry_hours (int | None | Unset): Hours a delivery is retried before it is `failed` (1 to 168; absent:
                `LEDGER_WEBHOOK_RETRY_HOURS`).
     """

    event_types: list[str]
    url: str
    description: None | str | Unset = UNSET
    retry_hours: int | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        event_types = self.event_types



        url = self.url

        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        retry_hours: int | None | Unset
        if isinstance(self.retry_hours, Unset):
            retry_hours = UNSET
        else:
            retry_hours = self.retry_hours


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "event_types": event_types,
            "url": url,
        })
        if description is not UNSET:
            field_dict["description"] = description
        if retry_hours is not UNSET:
            field_dict["retry_hours"] = retry_hours

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        event_types = cast(list[str], d.pop("event_types"))


        url = d.pop("url")

        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))


        def _parse_retry_hours(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        retry_hours = _parse_retry_hours(d.pop("retry_hours", UNSET))


        create_webhook = cls(
            event_types=event_types,
            url=url,
            description=description,
            retry_hours=retry_hours,
        )

        return create_webhook

