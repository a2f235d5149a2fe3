from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
from uuid import UUID
import datetime

if TYPE_CHECKING:
  from ..models.not_reissued import NotReissued
  from ..models.refunded_line_view import RefundedLineView
  from ..models.reissued import Reissued





T = TypeVar("T", bound="OrderRefund")



@_attrs_define
class OrderRefund:
    """ A refund as it was answered, and when.

        Attributes:
            amount (str):
            coupon_cost_reversed (str):
            coupons_reissued (list[Reissued]):
            coupons_returned (list[UUID]): Coupons given back under the `restore` policy or reissued.
            lines (list[RefundedLineView]):
            refund_id (str):
            refunded_at (datetime.datetime):
            coupons_not_reissued (list[NotReissued] | Unset): Coupons of the `reissue` policy that expired before the
                refund: they
                are refunded and nothing replaces them.
            shipping_amount (None | str | Unset):
     """

    amount: str
    coupon_cost_reversed: str
    coupons_reissued: list[Reissued]
    coupons_returned: list[UUID]
    lines: list[RefundedLineView]
    refund_id: str
    refunded_at: datetime.datetime
    coupons_not_reissued: list[NotReissued] | Unset = UNSET
    shipping_amount: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.not_reissued import NotReissued # noqa: PLC0415
        from ..models.refunded_line_view import RefundedLineView # noqa: PLC0415
        from ..models.reissued import Reissued # noqa: PLC0415
        amount = self.amount

        coupon_cost_reversed = self.coupon_cost_reversed

        coupons_reissued = []
        for coupons_reissued_item_data in self.coupons_reissued:
            coupons_reissued_item = coupons_reissued_item_data.to_dict()
            coupons_reissued.append(coupons_reissued_item)



        coupons_returned = []
        for coupons_returned_item_data in self.coupons_returned:
            coupons_returned_item = str(coupons_returned_item_data)
            coupons_returned.append(coupons_returned_item)



        lines = []
        for lines_item_data in self.lines:
            lines_item = lines_item_data.to_dict()
            lines.append(lines_item)



        refund_id = self.refund_id

        refunded_at = self.refunded_at.isoformat()

        coupons_not_reissued: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.coupons_not_reissued, Unset):
            coupons_not_reissued = []
            for coupons_not_reissued_item_data in self.coupons_not_reissued:
                coupons_not_reissued_item = coupons_not_reissued_item_data.to_dict()
                coupons_not_reissued.append(coupons_not_reissued_item)



        shipping_amount: None | str | Unset
        if isinstance(self.shipping_amount, Unset):
            shipping_amount = UNSET
        else:
            shipping_amount = self.shipping_amount


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "amount": amount,
            "coupon_cost_reversed": coupon_cost_reversed,
            "coupons_reissued": coupons_reissued,
            "coupons_returned": coupons_returned,
            "lines": lines,
            "refund_id": refund_id,
            "refunded_at": refunded_at,
        })
        if coupons_not_reissued is not UNSET:
            field_dict["coupons_not_reissued"] = coupons_not_reissued
        if shipping_amount is not UNSET:
            field_dict["shipping_amount"] = shipping_amount

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.not_reissued import NotReissued # noqa: PLC0415
        from ..models.refunded_line_view import RefundedLineView # noqa: PLC0415
        from ..models.reissued import Reissued # noqa: PLC0415
        d = dict(src_dict)
        amount = d.pop("amount")

        coupon_cost_reversed = d.pop("coupon_cost_reversed")

        coupons_reissued = []
        _coupons_reissued = d.pop("coupons_reissued")
        for coupons_reissued_item_data in (_coupons_reissued):
            coupons_reissued_item = Reissued.from_dict(coupons_reissued_item_data)



            coupons_reissued.append(coupons_reissued_item)


        coupons_returned = []
        _coupons_returned = d.pop("coupons_returned")
        for coupons_returned_item_data in (_coupons_returned):
            coupons_returned_item = UUID(coupons_returned_item_data)



            coupons_returned.append(coupons_returned_item)


        lines = []
        _lines = d.pop("lines")
        for lines_item_data in (_lines):
            lines_item = RefundedLineView.from_dict(lines_item_data)



            lines.append(lines_item)


        refund_id = d.pop("refund_id")

        refunded_at = datetime.datetime.fromisoformat(d.pop("refunded_at"))




        _coupons_not_reissued = d.pop("coupons_not_reissued", UNSET)
        coupons_not_reissued: list[NotReissued] | Unset = UNSET
        if _coupons_not_reissued is not UNSET:
            coupons_not_reissued = []
            for coupons_not_reissued_item_data in _coupons_not_reissued:
                coupons_not_reissued_item = NotReissued.from_dict(coupons_not_reissued_item_data)



                coupons_not_reissued.append(coupons_not_reissued_item)


        def _parse_shipping_amount(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        shipping_amount = _parse_shipping_amount(d.pop("shipping_amount", UNSET))


        order_refund = cls(
            amount=amount,
            coupon_cost_reversed=coupon_cost_reversed,
            coupons_reissued=coupons_reissued,
            coupons_returned=coupons_returned,
            lines=lines,
            refund_id=refund_id,
            refunded_at=refunded_at,
            coupons_not_reissued=coupons_not_reissued,
            shipping_amount=shipping_amount,
        )


        order_refund.additional_properties = d
        return order_refund

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
