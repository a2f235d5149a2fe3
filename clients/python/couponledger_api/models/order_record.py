from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.order_status import OrderStatus
from ..types import UNSET, Unset
from typing import cast
import datetime

if TYPE_CHECKING:
  from ..models.order_coupon import OrderCoupon
  from ..models.order_refund import OrderRefund
  from ..models.raw_order import RawOrder





T = TypeVar("T", bound="OrderRecord")



@_attrs_define
class OrderRecord:
    """ What the ledger holds for an order.

        Attributes:
            coupons (list[OrderCoupon]):
            order_id (str):
            refunds (list[OrderRefund]): Every refund, oldest first, as it was answered.
            status (OrderStatus):
            discount (None | str | Unset):
            lock_expires_at (datetime.datetime | None | Unset):
            locked_at (datetime.datetime | None | Unset):
            order (None | RawOrder | Unset):
            payable (None | str | Unset):
            settled_at (datetime.datetime | None | Unset): When it was confirmed, cancelled or released (its status says
                which).
            user_id (None | str | Unset): Absent for an order cancelled before any lock.
     """

    coupons: list[OrderCoupon]
    order_id: str
    refunds: list[OrderRefund]
    status: OrderStatus
    discount: None | str | Unset = UNSET
    lock_expires_at: datetime.datetime | None | Unset = UNSET
    locked_at: datetime.datetime | None | Unset = UNSET
    order: None | RawOrder | Unset = UNSET
    payable: None | str | Unset = UNSET
    settled_at: datetime.datetime | None | Unset = UNSET
    user_id: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.order_coupon import OrderCoupon # noqa: PLC0415
        from ..models.order_refund import OrderRefund # noqa: PLC0415
        from ..models.raw_order import RawOrder # noqa: PLC0415
        coupons = []
        for coupons_item_data in self.coupons:
            coupons_item = coupons_item_data.to_dict()
            coupons.append(coupons_item)



        order_id = self.order_id

        refunds = []
        for refunds_item_data in self.refunds:
            refunds_item = refunds_item_data.to_dict()
            refunds.append(refunds_item)



        status = self.status.value

        discount: None | str | Unset
        if isinstance(self.discount, Unset):
            discount = UNSET
        else:
            discount = self.discount

        lock_expires_at: None | str | Unset
        if isinstance(self.lock_expires_at, Unset):
            lock_expires_at = UNSET
        elif isinstance(self.lock_expires_at, datetime.datetime):
            lock_expires_at = self.lock_expires_at.isoformat()
        else:
            lock_expires_at = self.lock_expires_at

        locked_at: None | str | Unset
        if isinstance(self.locked_at, Unset):
            locked_at = UNSET
        elif isinstance(self.locked_at, datetime.datetime):
            locked_at = self.locked_at.isoformat()
        else:
            locked_at = self.locked_at

        order: dict[str, Any] | None | Unset
        if isinstance(self.order, Unset):
            order = UNSET
        elif isinstance(self.order, RawOrder):
            order = self.order.to_dict()
        else:
            order = self.order

        payable: None | str | Unset
        if isinstance(self.payable, Unset):
            payable = UNSET
        else:
            payable = self.payable

        settled_at: None | str | Unset
        if isinstance(self.settled_at, Unset):
            settled_at = UNSET
        elif isinstance(self.settled_at, datetime.datetime):
            settled_at = self.settled_at.isoformat()
        else:
            settled_at = self.settled_at

        user_id: None | str | Unset
        if isinstance(self.user_id, Unset):
            user_id = UNSET
        else:
            user_id = self.user_id


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "coupons": coupons,
            "order_id": order_id,
            "refunds": refunds,
            "status": status,
        })
        if discount is not UNSET:
            field_dict["discount"] = discount
        if lock_expires_at is not UNSET:
            field_dict["lock_expires_at"] = lock_expires_at
        if locked_at is not UNSET:
            field_dict["locked_at"] = locked_at
        if order is not UNSET:
            field_dict["order"] = order
        if payable is not UNSET:
            field_dict["payable"] = payable
        if settled_at is not UNSET:
            field_dict["settled_at"] = settled_at
        if user_id is not UNSET:
            field_dict["user_id"] = user_id

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.order_coupon import OrderCoupon # noqa: PLC0415
        from ..models.order_refund import OrderRefund # noqa: PLC0415
        from ..models.raw_order import RawOrder # noqa: PLC0415
        d = dict(src_dict)
        coupons = []
        _coupons = d.pop("coupons")
        for coupons_item_data in (_coupons):
            coupons_item = OrderCoupon.from_dict(coupons_item_data)



            coupons.append(coupons_item)


        order_id = d.pop("order_id")

        refunds = []
        _refunds = d.pop("refunds")
        for refunds_item_data in (_refunds):
            refunds_item = OrderRefund.from_dict(refunds_item_data)



            refunds.append(refunds_item)


        status = OrderStatus(d.pop("status"))




        def _parse_discount(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        discount = _parse_discount(d.pop("discount", UNSET))


        def _parse_lock_expires_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                lock_expires_at_type_0 = datetime.datetime.fromisoformat(data)



                return lock_expires_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        lock_expires_at = _parse_lock_expires_at(d.pop("lock_expires_at", UNSET))


        def _parse_locked_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                locked_at_type_0 = datetime.datetime.fromisoformat(data)



                return locked_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        locked_at = _parse_locked_at(d.pop("locked_at", UNSET))


        def _parse_order(data: object) -> None | RawOrder | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                order_type_1 = RawOrder.from_dict(data)



                return order_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RawOrder | Unset, data)

        order = _parse_order(d.pop("order", UNSET))


        def _parse_payable(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        payable = _parse_payable(d.pop("payable", UNSET))


        def _parse_settled_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                settled_at_type_0 = datetime.datetime.fromisoformat(data)



                return settled_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        settled_at = _parse_settled_at(d.pop("settled_at", UNSET))


        def _parse_user_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        user_id = _parse_user_id(d.pop("user_id", UNSET))


        order_record = cls(
            coupons=coupons,
            order_id=order_id,
            refunds=refunds,
            status=status,
            discount=discount,
            lock_expires_at=lock_expires_at,
            locked_at=locked_at,
            order=order,
            payable=payable,
            settled_at=settled_at,
            user_id=user_id,
        )


        order_record.additional_properties = d
        return order_record

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
