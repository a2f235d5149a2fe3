from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.create_key_scopes_item import CreateKeyScopesItem
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.rate_limit_bucket import RateLimitBucket





T = TypeVar("T", bound="CreateKey")



@_attrs_define
class CreateKey:
    """ 
        Attributes:
            name (str):
            scopes (list[CreateKeyScopesItem]):
            rate_limit (None | RateLimitBucket | Unset):
     """

    name: str
    scopes: list[CreateKeyScopesItem]
    rate_limit: None | RateLimitBucket | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.rate_limit_bucket import RateLimitBucket # noqa: PLC0415
        name = self.name

        scopes = []
        for scopes_item_data in self.scopes:
            scopes_item = scopes_item_data.value
            scopes.append(scopes_item)



        rate_limit: dict[str, Any] | None | Unset
        if isinstance(self.rate_limit, Unset):
            rate_limit = UNSET
        elif isinstance(self.rate_limit, RateLimitBucket):
            rate_limit = self.rate_limit.to_dict()
        else:
            rate_limit = self.rate_limit


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "name": name,
            "scopes": scopes,
        })
        if rate_limit is not UNSET:
            field_dict["rate_limit"] = rate_limit

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.rate_limit_bucket import RateLimitBucket # noqa: PLC0415
        d = dict(src_dict)
        name = d.pop("name")

        scopes = []
        _scopes = d.pop("scopes")
        for scopes_item_data in (_scopes):
            scopes_item = CreateKeyScopesItem(scopes_item_data)



            scopes.append(scopes_item)


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


        create_key = cls(
            name=name,
            scopes=scopes,
            rate_limit=rate_limit,
        )

        return create_key

