from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.channel_status import ChannelStatus
from ..types import UNSET, Unset
from typing import cast
from uuid import UUID
import datetime






T = TypeVar("T", bound="ChannelView")



@_attrs_define
class ChannelView:
    """ A channel, without its secret: its status and the age of its secrets.

        Attributes:
            created_at (datetime.datetime):
            id (UUID):
            name (str):
            secret_created_at (datetime.datetime): When the current secret was made (at creation, or the last rotation).
            status (ChannelStatus): `active` (its signed requests are served) or `disabled` (they are
                refused, 403 `channel_disabled`), back and forth.
            previous_secret_valid_until (datetime.datetime | None | Unset): Until when the secret the last rotation replaced
                still verifies
                signatures; null when no replaced secret does any more.
     """

    created_at: datetime.datetime
    id: UUID
    name: str
    secret_created_at: datetime.datetime
    status: ChannelStatus
    previous_secret_valid_until: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        id = str(self.id)

        name = self.name

        secret_created_at = self.secret_created_at.isoformat()

        status = self.status.value

        previous_secret_valid_until: None | str | Unset
        if isinstance(self.previous_secret_valid_until, Unset):
            previous_secret_valid_until = UNSET
        elif isinstance(self.previous_secret_valid_until, datetime.datetime):
            previous_secret_valid_until = self.previous_secret_valid_until.isoformat()
        else:
            previous_secret_valid_until = self.previous_secret_valid_until


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "created_at": created_at,
            "id": id,
            "name": name,
            "secret_created_at": secret_created_at,
            "status": status,
        })
        if previous_secret_valid_until is not UNSET:
            field_dict["previous_secret_valid_until"] = previous_secret_valid_until

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))




        id = UUID(d.pop("id"))




        name = d.pop("name")

        secret_created_at = datetime.datetime.fromisoformat(d.pop("secret_created_at"))




        status = ChannelStatus(d.pop("status"))




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


        channel_view = cls(
            created_at=created_at,
            id=id,
            name=name,
            secret_created_at=secret_created_at,
            status=status,
            previous_secret_valid_until=previous_secret_valid_until,
        )


        channel_view.additional_properties = d
        return channel_view

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
