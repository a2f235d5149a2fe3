from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="RotateSecret")



@_attrs_define
class RotateSecret:
    """ 
        Attributes:
            overlap_secs (int | None | Unset):
     """

    overlap_secs: int | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        overlap_secs: int | None | Unset
        if isinstance(self.overlap_secs, Unset):
            overlap_secs = UNSET
        else:
            overlap_secs = self.overlap_secs


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if overlap_secs is not UNSET:
            field_dict["overlap_secs"] = overlap_secs

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_overlap_secs(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        overlap_secs = _parse_overlap_secs(d.pop("overlap_secs", UNSET))


        rotate_secret = cls(
            overlap_secs=overlap_secs,
        )

        return rotate_secret

