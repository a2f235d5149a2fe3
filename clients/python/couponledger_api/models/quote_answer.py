from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.best_view import BestView
  from ..models.coupon_quote_view import CouponQuoteView





T = TypeVar("T", bound="QuoteAnswer")



@_attrs_define
class QuoteAnswer:
    """ A quote: each of the user's unused coupons alone, and the best combination.

        Attributes:
            best (BestView): The combination that leaves the least to pay.
            coupons (list[CouponQuoteView]): The coupons that could apply, one per template (the one the search
                uses: of a template's copies, the one expiring first), each alone;
                when truncated, the highest single discounts searched.
            truncated (bool): More of the user's templates could apply than one quote searches
                (200): the highest single discounts were searched.
     """

    best: BestView
    coupons: list[CouponQuoteView]
    truncated: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.best_view import BestView # noqa: PLC0415
        from ..models.coupon_quote_view import CouponQuoteView # noqa: PLC0415
        best = self.best.to_dict()

        coupons = []
        for coupons_item_data in self.coupons:
            coupons_item = coupons_item_data.to_dict()
            coupons.append(coupons_item)



        truncated = self.truncated


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "best": best,
            "coupons": coupons,
            "truncated": truncated,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.best_view import BestView # noqa: PLC0415
        from ..models.coupon_quote_view import CouponQuoteView # noqa: PLC0415
        d = dict(src_dict)
        best = BestView.from_dict(d.pop("best"))




        coupons = []
        _coupons = d.pop("coupons")
        for coupons_item_data in (_coupons):
            coupons_item = CouponQuoteView.from_dict(coupons_item_data)



            coupons.append(coupons_item)


        truncated = d.pop("truncated")

        quote_answer = cls(
            best=best,
            coupons=coupons,
            truncated=truncated,
        )


        quote_answer.additional_properties = d
        return quote_answer

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
