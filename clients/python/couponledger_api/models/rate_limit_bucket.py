from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="RateLimitBucket")



@_attrs_define
class RateLimitBucket:
    """ One token bucket: a steady rate and the burst allowed above it.

        Attributes:
            burst (int): Claims allowed at once after a quiet spell, 1 to 1,000,000.
            per_second (int): Claims a second, 1 to 1,000,000.
     """

    burst: int
    per_second: int





    def to_dict(self) -> dict[str, Any]:
        burst = self.burst

        per_second = self.per_second


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "burst": burst,
            "per_second": per_second,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        burst = d.pop("burst")

        per_second = d.pop("per_second")

        rate_limit_bucket = cls(
            burst=burst,
            per_second=per_second,
        )

        return rate_limit_bucket

