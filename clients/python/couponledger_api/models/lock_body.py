from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
from uuid import UUID

if TYPE_CHECKING:
  from ..models.raw_order import RawOrder





T = TypeVar("T", bound="LockBody")



@_attrs_define
class LockBody:
    """ 
        Attributes:
            coupon_ids (list[UUID]):
            expected_payable (str):
            order (RawOrder): An order as it arrives: `{order_id, user_id, currency, region?,
                user_tags?, lines: [...], shipping_fee}`. A missing `shipping_fee` is `0.00`.
            lock_ttl_seconds (int | None | Unset):
     """

    coupon_ids: list[UUID]
    expected_payable: str
    order: RawOrder
    lock_ttl_seconds: int | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.raw_order import RawOrder # noqa: PLC0415
        coupon_ids = []
        for coupon_ids_item_data in self.coupon_ids:
            coupon_ids_item = str(coupon_ids_item_data)
            coupon_ids.append(coupon_ids_item)



        expected_payable = self.expected_payable

        order = self.order.to_dict()

        lock_ttl_seconds: int | None | Unset
        if isinstance(self.lock_ttl_seconds, Unset):
            lock_ttl_seconds = UNSET
        else:
            lock_ttl_seconds = self.lock_ttl_seconds


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "coupon_ids": coupon_ids,
            "expected_payable": expected_payable,
            "order": order,
        })
        if lock_ttl_seconds is not UNSET:
            field_dict["lock_ttl_seconds"] = lock_ttl_seconds

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.raw_order import RawOrder # noqa: PLC0415
        d = dict(src_dict)
        coupon_ids = []
        _coupon_ids = d.pop("coupon_ids")
        for coupon_ids_item_data in (_coupon_ids):
            coupon_ids_item = UUID(coupon_ids_item_data)



            coupon_ids.append(coupon_ids_item)


        expected_payable = d.pop("expected_payable")

        order = RawOrder.from_dict(d.pop("order"))




        def _parse_lock_ttl_seconds(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        lock_ttl_seconds = _parse_lock_ttl_seconds(d.pop("lock_ttl_seconds", UNSET))


        lock_body = cls(
            coupon_ids=coupon_ids,
            expected_payable=expected_payable,
            order=order,
            lock_ttl_seconds=lock_ttl_seconds,
        )

        return lock_body

