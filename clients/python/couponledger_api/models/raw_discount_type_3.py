from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.raw_discount_type_3_type import RawDiscountType3Type
from typing import cast

if TYPE_CHECKING:
  from ..models.raw_tier import RawTier





T = TypeVar("T", bound="RawDiscountType3")



@_attrs_define
class RawDiscountType3:
    """ 
        Attributes:
            tiers (list[RawTier]):
            type_ (RawDiscountType3Type):
     """

    tiers: list[RawTier]
    type_: RawDiscountType3Type





    def to_dict(self) -> dict[str, Any]:
        from ..models.raw_tier import RawTier # noqa: PLC0415
        tiers = []
        for tiers_item_data in self.tiers:
            tiers_item = tiers_item_data.to_dict()
            tiers.append(tiers_item)



        type_ = self.type_.value


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "tiers": tiers,
            "type": type_,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.raw_tier import RawTier # noqa: PLC0415
        d = dict(src_dict)
        tiers = []
        _tiers = d.pop("tiers")
        for tiers_item_data in (_tiers):
            tiers_item = RawTier.from_dict(tiers_item_data)



            tiers.append(tiers_item)


        type_ = RawDiscountType3Type(d.pop("type"))




        raw_discount_type_3 = cls(
            tiers=tiers,
            type_=type_,
        )

        return raw_discount_type_3

