from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.coupon_view import CouponView





T = TypeVar("T", bound="PackageClaimView")



@_attrs_define
class PackageClaimView:
    """ 
        Attributes:
            coupons (list[CouponView]):
            package_sn (str):
     """

    coupons: list[CouponView]
    package_sn: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.coupon_view import CouponView # noqa: PLC0415
        coupons = []
        for coupons_item_data in self.coupons:
            coupons_item = coupons_item_data.to_dict()
            coupons.append(coupons_item)



        package_sn = self.package_sn


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "coupons": coupons,
            "package_sn": package_sn,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.coupon_view import CouponView # noqa: PLC0415
        d = dict(src_dict)
        coupons = []
        _coupons = d.pop("coupons")
        for coupons_item_data in (_coupons):
            coupons_item = CouponView.from_dict(coupons_item_data)



            coupons.append(coupons_item)


        package_sn = d.pop("package_sn")

        package_claim_view = cls(
            coupons=coupons,
            package_sn=package_sn,
        )


        package_claim_view.additional_properties = d
        return package_claim_view

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
