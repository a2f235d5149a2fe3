from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.rate_limit_bucket import RateLimitBucket





T = TypeVar("T", bound="RateLimit")



@_attrs_define
class RateLimit:
    """ `rate_limit` of a template: either bucket may be absent (no limit).

        Attributes:
            per_channel (None | RateLimitBucket | Unset):
            per_user (None | RateLimitBucket | Unset):
     """

    per_channel: None | RateLimitBucket | Unset = UNSET
    per_user: None | RateLimitBucket | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.rate_limit_bucket import RateLimitBucket # noqa: PLC0415
        per_channel: dict[str, Any] | None | Unset
        if isinstance(self.per_channel, Unset):
            per_channel = UNSET
        elif isinstance(self.per_channel, RateLimitBucket):
            per_channel = self.per_channel.to_dict()
        else:
            per_channel = self.per_channel

        per_user: dict[str, Any] | None | Unset
        if isinstance(self.per_user, Unset):
            per_user = UNSET
        elif isinstance(self.per_user, RateLimitBucket):
            per_user = self.per_user.to_dict()
        else:
            per_user = self.per_user


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if per_channel is not UNSET:
            field_dict["per_channel"] = per_channel
        if per_user is not UNSET:
            field_dict["per_user"] = per_user

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.rate_limit_bucket import RateLimitBucket # noqa: PLC0415
        d = dict(src_dict)
        def _parse_per_channel(data: object) -> None | RateLimitBucket | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                per_channel_type_1 = RateLimitBucket.from_dict(data)



                return per_channel_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RateLimitBucket | Unset, data)

        per_channel = _parse_per_channel(d.pop("per_channel", UNSET))


        def _parse_per_user(data: object) -> None | RateLimitBucket | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                per_user_type_1 = RateLimitBucket.from_dict(data)



                return per_user_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RateLimitBucket | Unset, data)

        per_user = _parse_per_user(d.pop("per_user", UNSET))


        rate_limit = cls(
            per_channel=per_channel,
            per_user=per_user,
        )

        return rate_limit

