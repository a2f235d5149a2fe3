from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.wallet_coupon import WalletCoupon





T = TypeVar("T", bound="WalletPage")



@_attrs_define
class WalletPage:
    """ A page of a user's coupons in the order asked, each with its terms.

        Attributes:
            coupons (list[WalletCoupon]):
            limit (int):
            offset (int):
            total (int): How many coupons match the filters (every page's, not this one's).
            next_after (None | str | Unset): The `after` of the next page; absent on the last page.
     """

    coupons: list[WalletCoupon]
    limit: int
    offset: int
    total: int
    next_after: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.wallet_coupon import WalletCoupon # noqa: PLC0415
        coupons = []
        for coupons_item_data in self.coupons:
            coupons_item = coupons_item_data.to_dict()
            coupons.append(coupons_item)



        limit = self.limit

        offset = self.offset

        total = self.total

        next_after: None | str | Unset
        if isinstance(self.next_after, Unset):
            next_after = UNSET
        else:
            next_after = self.next_after


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "coupons": coupons,
            "limit": limit,
            "offset": offset,
            "total": total,
        })
        if next_after is not UNSET:
            field_dict["next_after"] = next_after

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.wallet_coupon import WalletCoupon # noqa: PLC0415
        d = dict(src_dict)
        coupons = []
        _coupons = d.pop("coupons")
        for coupons_item_data in (_coupons):
            coupons_item = WalletCoupon.from_dict(coupons_item_data)



            coupons.append(coupons_item)


        limit = d.pop("limit")

        offset = d.pop("offset")

        total = d.pop("total")

        def _parse_next_after(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        next_after = _parse_next_after(d.pop("next_after", UNSET))


        wallet_page = cls(
            coupons=coupons,
            limit=limit,
            offset=offset,
            total=total,
            next_after=next_after,
        )


        wallet_page.additional_properties = d
        return wallet_page

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
