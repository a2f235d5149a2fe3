from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.order_status import OrderStatus
from typing import cast
from uuid import UUID






T = TypeVar("T", bound="OrderAnswer")



@_attrs_define
class OrderAnswer:
    """ The answer to a confirm or cancel: the order's status and its coupons.

        Attributes:
            coupon_ids (list[UUID]):
            order_id (str):
            status (OrderStatus):
     """

    coupon_ids: list[UUID]
    order_id: str
    status: OrderStatus
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        coupon_ids = []
        for coupon_ids_item_data in self.coupon_ids:
            coupon_ids_item = str(coupon_ids_item_data)
            coupon_ids.append(coupon_ids_item)



        order_id = self.order_id

        status = self.status.value


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "coupon_ids": coupon_ids,
            "order_id": order_id,
            "status": status,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        coupon_ids = []
        _coupon_ids = d.pop("coupon_ids")
        for coupon_ids_item_data in (_coupon_ids):
            coupon_ids_item = UUID(coupon_ids_item_data)



            coupon_ids.append(coupon_ids_item)


        order_id = d.pop("order_id")

        status = OrderStatus(d.pop("status"))




        order_answer = cls(
            coupon_ids=coupon_ids,
            order_id=order_id,
            status=status,
        )


        order_answer.additional_properties = d
        return order_answer

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
