from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.allocation_view import AllocationView





T = TypeVar("T", bound="LockAnswer")



@_attrs_define
class LockAnswer:
    """ The answer to a lock: what the order pays and how each coupon's
    discount is split. Stored with the order, so a repeated lock gets it again.

        Attributes:
            allocations (list[AllocationView]):
            discount (str):
            order_id (str):
            payable (str):
     """

    allocations: list[AllocationView]
    discount: str
    order_id: str
    payable: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.allocation_view import AllocationView # noqa: PLC0415
        allocations = []
        for allocations_item_data in self.allocations:
            allocations_item = allocations_item_data.to_dict()
            allocations.append(allocations_item)



        discount = self.discount

        order_id = self.order_id

        payable = self.payable


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "allocations": allocations,
            "discount": discount,
            "order_id": order_id,
            "payable": payable,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.allocation_view import AllocationView # noqa: PLC0415
        d = dict(src_dict)
        allocations = []
        _allocations = d.pop("allocations")
        for allocations_item_data in (_allocations):
            allocations_item = AllocationView.from_dict(allocations_item_data)



            allocations.append(allocations_item)


        discount = d.pop("discount")

        order_id = d.pop("order_id")

        payable = d.pop("payable")

        lock_answer = cls(
            allocations=allocations,
            discount=discount,
            order_id=order_id,
            payable=payable,
        )


        lock_answer.additional_properties = d
        return lock_answer

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
