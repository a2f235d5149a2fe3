from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.change_webhook_event_types_type_0_item import ChangeWebhookEventTypesType0Item
from ..models.change_webhook_event_types_type_1_item import ChangeWebhookEventTypesType1Item
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="ChangeWebhook")



@_attrs_define
class ChangeWebhook:
    """ A change: each field given replaces the stored one (`description`
    null clears it).

        Attributes:
            description (None | str | Unset):
            event_types (list[ChangeWebhookEventTypesType0Item] | list[ChangeWebhookEventTypesType1Item] | None | Unset):
            retry_hours (int | None | Unset):
            url (None | str | Unset):
     """

    description: None | str | Unset = UNSET
    event_types: list[ChangeWebhookEventTypesType0Item] | list[ChangeWebhookEventTypesType1Item] | None | Unset = UNSET
    retry_hours: int | None | Unset = UNSET
    url: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        event_types: list[str] | None | Unset
        if isinstance(self.event_types, Unset):
            event_types = UNSET
        elif isinstance(self.event_types, list):
            event_types = []
            for event_types_type_0_item_data in self.event_types:
                event_types_type_0_item = event_types_type_0_item_data.value
                event_types.append(event_types_type_0_item)


        elif isinstance(self.event_types, list):
            event_types = []
            for event_types_type_1_item_data in self.event_types:
                event_types_type_1_item = event_types_type_1_item_data.value
                event_types.append(event_types_type_1_item)


        else:
            event_types = self.event_types

        retry_hours: int | None | Unset
        if isinstance(self.retry_hours, Unset):
            retry_hours = UNSET
        else:
            retry_hours = self.retry_hours

        url: None | str | Unset
        if isinstance(self.url, Unset):
            url = UNSET
        else:
            url = self.url


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if description is not UNSET:
            field_dict["description"] = description
        if event_types is not UNSET:
            field_dict["event_types"] = event_types
        if retry_hours is not UNSET:
            field_dict["retry_hours"] = retry_hours
        if url is not UNSET:
            field_dict["url"] = url

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))


        def _parse_event_types(data: object) -> list[ChangeWebhookEventTypesType0Item] | list[ChangeWebhookEventTypesType1Item] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                event_types_type_0 = []
                _event_types_type_0 = data
                for event_types_type_0_item_data in (_event_types_type_0):
                    event_types_type_0_item = ChangeWebhookEventTypesType0Item(event_types_type_0_item_data)



                    event_types_type_0.append(event_types_type_0_item)

                return event_types_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, list):
                    raise TypeError()
                event_types_type_1 = []
                _event_types_type_1 = data
                for event_types_type_1_item_data in (_event_types_type_1):
                    event_types_type_1_item = ChangeWebhookEventTypesType1Item(event_types_type_1_item_data)



                    event_types_type_1.append(event_types_type_1_item)

                return event_types_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ChangeWebhookEventTypesType0Item] | list[ChangeWebhookEventTypesType1Item] | None | Unset, data)

        event_types = _parse_event_types(d.pop("event_types", UNSET))


        def _parse_retry_hours(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        retry_hours = _parse_retry_hours(d.pop("retry_hours", UNSET))


        def _parse_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        url = _parse_url(d.pop("url", UNSET))


        change_webhook = cls(
            description=description,
            event_types=event_types,
            retry_hours=retry_hours,
            url=url,
        )

        return change_webhook

