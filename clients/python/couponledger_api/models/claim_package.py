from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="ClaimPackage")



@_attrs_define
class ClaimPackage:
    """ 
        Attributes:
            user_id (int | str):
            new_user (bool | None | Unset): Whether the caller vouches the user is new, for
                `eligibility.new_users_only` (absent: not known to be new).
            region (str | Unset):
            user_tags (list[str] | Unset):
     """

    user_id: int | str
    new_user: bool | None | Unset = UNSET
    region: str | Unset = UNSET
    user_tags: list[str] | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        user_id: int | str
        user_id = self.user_id

        new_user: bool | None | Unset
        if isinstance(self.new_user, Unset):
            new_user = UNSET
        else:
            new_user = self.new_user

        region = self.region

        user_tags: list[str] | Unset = UNSET
        if not isinstance(self.user_tags, Unset):
            user_tags = self.user_tags




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "user_id": user_id,
        })
        if new_user is not UNSET:
            field_dict["new_user"] = new_user
        if region is not UNSET:
            field_dict["region"] = region
        if user_tags is not UNSET:
            field_dict["user_tags"] = user_tags

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_user_id(data: object) -> int | str:
            return cast(int | str, data)

        user_id = _parse_user_id(d.pop("user_id"))


        def _parse_new_user(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        new_user = _parse_new_user(d.pop("new_user", UNSET))


        region = d.pop("region", UNSET)

        user_tags = cast(list[str], d.pop("user_tags", UNSET))


        claim_package = cls(
            user_id=user_id,
            new_user=new_user,
            region=region,
            user_tags=user_tags,
        )

        return claim_package

