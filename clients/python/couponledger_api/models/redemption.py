from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
from uuid import UUID

if TYPE_CHECKING:
  from ..models.coupon_view import CouponView





T = TypeVar("T", bound="Redemption")



@_attrs_define
class Redemption:
    """ 
        Attributes:
            batch_id (UUID):
            coupons (list[CouponView]): The template's coupon, or the package's coupons.
            serial (int):
            uses (int): The code's uses after this one.
            uses_left (int):
     """

    batch_id: UUID
    coupons: list[CouponView]
    serial: int
    uses: int
    uses_left: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.coupon_view import CouponView # noqa: PLC0415
        batch_id = str(self.batch_id)

        coupons = []
        for coupons_item_data in self.coupons:
            coupons_item = coupons_item_data.to_dict()
            coupons.append(coupons_item)



        serial = self.serial

        uses = self.uses

        uses_left = self.uses_left


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "batch_id": batch_id,
            "coupons": coupons,
            "serial": serial,
            "uses": uses,
            "uses_left": uses_left,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.coupon_view import CouponView # noqa: PLC0415
        d = dict(src_dict)
        batch_id = UUID(d.pop("batch_id"))




        coupons = []
        _coupons = d.pop("coupons")
        for coupons_item_data in (_coupons):
            coupons_item = CouponView.from_dict(coupons_item_data)



            coupons.append(coupons_item)


        serial = d.pop("serial")

        uses = d.pop("uses")

        uses_left = d.pop("uses_left")

        redemption = cls(
            batch_id=batch_id,
            coupons=coupons,
            serial=serial,
            uses=uses,
            uses_left=uses_left,
        )


        redemption.additional_properties = d
        return redemption

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
