from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.create_webhook_event_types_type_0_item import CreateWebhookEventTypesType0Item
from ..models.create_webhook_event_types_type_1_item import CreateWebhookEventTypesType1Item
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="CreateWebhook")



@_attrs_define
class CreateWebhook:
    """ 
        Attributes:
            event_types (list[CreateWebhookEventTypesType0Item] | list[CreateWebhookEventTypesType1Item]):
            url (str): `https://` and a public host (unless private addresses are allowed);
                at most 2,048 characters.
            description (None | str | Unset):
            retry_hours (int | None | Unset): Hours a delivery is retried before it is `failed` (1 to 168; absent:
                `LEDGER_WEBHOOK_RETRY_HOURS`).
     """

    event_types: list[CreateWebhookEventTypesType0Item] | list[CreateWebhookEventTypesType1Item]
    url: str
    description: None | str | Unset = UNSET
    retry_hours: int | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        event_types: list[str]
        if isinstance(self.event_types, list):
            event_types = []
            for event_types_type_0_item_data in self.event_types:
                event_types_type_0_item = event_types_type_0_item_data.value
                event_types.append(event_types_type_0_item)


        else:
            event_types = []
            for event_types_type_1_item_data in self.event_types:
                event_types_type_1_item = event_types_type_1_item_data.value
                event_types.append(event_types_type_1_item)




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
        def _parse_event_types(data: object) -> list[CreateWebhookEventTypesType0Item] | list[CreateWebhookEventTypesType1Item]:
            try:
                if not isinstance(data, list):
                    raise TypeError()
                event_types_type_0 = []
                _event_types_type_0 = data
                for event_types_type_0_item_data in (_event_types_type_0):
                    event_types_type_0_item = CreateWebhookEventTypesType0Item(event_types_type_0_item_data)



                    event_types_type_0.append(event_types_type_0_item)

                return event_types_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, list):
                raise TypeError()
            event_types_type_1 = []
            _event_types_type_1 = data
            for event_types_type_1_item_data in (_event_types_type_1):
                event_types_type_1_item = CreateWebhookEventTypesType1Item(event_types_type_1_item_data)



                event_types_type_1.append(event_types_type_1_item)

            return event_types_type_1

        event_types = _parse_event_types(d.pop("event_types"))


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

