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
  from ..models.rate_limit_bucket import RateLimitBucket





T = TypeVar("T", bound="ApiKeyView")



@_attrs_define
class ApiKeyView:
    """ An app key: its scopes and times, never the key.

        Attributes:
            created_at (datetime.datetime):
            id (UUID):
            name (str):
            scopes (list[str]):
            last_used_at (datetime.datetime | None | Unset): The last request with it (written at most once a minute).
            previous_valid_until (datetime.datetime | None | Unset): Until when the secret the last rotation replaced still
                opens; null
                when none does.
            rate_limit (None | RateLimitBucket | Unset):
            revoked_at (datetime.datetime | None | Unset):
     """

    created_at: datetime.datetime
    id: UUID
    name: str
    scopes: list[str]
    last_used_at: datetime.datetime | None | Unset = UNSET
    previous_valid_until: datetime.datetime | None | Unset = UNSET
    rate_limit: None | RateLimitBucket | Unset = UNSET
    revoked_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.rate_limit_bucket import RateLimitBucket # noqa: PLC0415
        created_at = self.created_at.isoformat()

        id = str(self.id)

        name = self.name

        scopes = self.scopes



        last_used_at: None | str | Unset
        if isinstance(self.last_used_at, Unset):
            last_used_at = UNSET
        elif isinstance(self.last_used_at, datetime.datetime):
            last_used_at = self.last_used_at.isoformat()
        else:
            last_used_at = self.last_used_at

        previous_valid_until: None | str | Unset
        if isinstance(self.previous_valid_until, Unset):
            previous_valid_until = UNSET
        elif isinstance(self.previous_valid_until, datetime.datetime):
            previous_valid_until = self.previous_valid_until.isoformat()
        else:
            previous_valid_until = self.previous_valid_until

        rate_limit: dict[str, Any] | None | Unset
        if isinstance(self.rate_limit, Unset):
            rate_limit = UNSET
        elif isinstance(self.rate_limit, RateLimitBucket):
            rate_limit = self.rate_limit.to_dict()
        else:
            rate_limit = self.rate_limit

        revoked_at: None | str | Unset
        if isinstance(self.revoked_at, Unset):
            revoked_at = UNSET
        elif isinstance(self.revoked_at, datetime.datetime):
            revoked_at = self.revoked_at.isoformat()
        else:
            revoked_at = self.revoked_at


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "created_at": created_at,
            "id": id,
            "name": name,
            "scopes": scopes,
        })
        if last_used_at is not UNSET:
            field_dict["last_used_at"] = last_used_at
        if previous_valid_until is not UNSET:
            field_dict["previous_valid_until"] = previous_valid_until
        if rate_limit is not UNSET:
            field_dict["rate_limit"] = rate_limit
        if revoked_at is not UNSET:
            field_dict["revoked_at"] = revoked_at

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.rate_limit_bucket import RateLimitBucket # noqa: PLC0415
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))




        id = UUID(d.pop("id"))




        name = d.pop("name")

        scopes = cast(list[str], d.pop("scopes"))


        def _parse_last_used_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                last_used_at_type_0 = datetime.datetime.fromisoformat(data)



                return last_used_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        last_used_at = _parse_last_used_at(d.pop("last_used_at", UNSET))


        def _parse_previous_valid_until(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                previous_valid_until_type_0 = datetime.datetime.fromisoformat(data)



                return previous_valid_until_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        previous_valid_until = _parse_previous_valid_until(d.pop("previous_valid_until", UNSET))


        def _parse_rate_limit(data: object) -> None | RateLimitBucket | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                rate_limit_type_1 = RateLimitBucket.from_dict(data)



                return rate_limit_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RateLimitBucket | Unset, data)

        rate_limit = _parse_rate_limit(d.pop("rate_limit", UNSET))


        def _parse_revoked_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                revoked_at_type_0 = datetime.datetime.fromisoformat(data)



                return revoked_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        revoked_at = _parse_revoked_at(d.pop("revoked_at", UNSET))


        api_key_view = cls(
            created_at=created_at,
            id=id,
            name=name,
            scopes=scopes,
            last_used_at=last_used_at,
            previous_valid_until=previous_valid_until,
            rate_limit=rate_limit,
            revoked_at=revoked_at,
        )


        api_key_view.additional_properties = d
        return api_key_view

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
