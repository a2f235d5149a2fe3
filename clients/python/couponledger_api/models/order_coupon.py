from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.coupon_status import CouponStatus
from ..types import UNSET, Unset
from typing import cast
from uuid import UUID

if TYPE_CHECKING:
  from ..models.line_share import LineShare





T = TypeVar("T", bound="OrderCoupon")



@_attrs_define
class OrderCoupon:
    """ One coupon of the order: its status now and its share of each line.

        Attributes:
            allocations (list[LineShare]):
            coupon_id (UUID):
            discount (str):
            status (CouponStatus | None | Unset):
            template_sn (None | str | Unset): Absent only if the coupon's row was purged (docs/design.md §16).
     """

    allocations: list[LineShare]
    coupon_id: UUID
    discount: str
    status: CouponStatus | None | Unset = UNSET
    template_sn: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.line_share import LineShare # noqa: PLC0415
        allocations = []
        for allocations_item_data in self.allocations:
            allocations_item = allocations_item_data.to_dict()
            allocations.append(allocations_item)



        coupon_id = str(self.coupon_id)

        discount = self.discount

        status: None | str | Unset
        if isinstance(self.status, Unset):
            status = UNSET
        elif isinstance(self.status, CouponStatus):
            status = self.status.value
        else:
            status = self.status

        template_sn: None | str | Unset
        if isinstance(self.template_sn, Unset):
            template_sn = UNSET
        else:
            template_sn = self.template_sn


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "allocations": allocations,
            "coupon_id": coupon_id,
            "discount": discount,
        })
        if status is not UNSET:
            field_dict["status"] = status
        if template_sn is not UNSET:
            field_dict["template_sn"] = template_sn

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.line_share import LineShare # noqa: PLC0415
        d = dict(src_dict)
        allocations = []
        _allocations = d.pop("allocations")
        for allocations_item_data in (_allocations):
            allocations_item = LineShare.from_dict(allocations_item_data)



            allocations.append(allocations_item)


        coupon_id = UUID(d.pop("coupon_id"))




        discount = d.pop("discount")

        def _parse_status(data: object) -> CouponStatus | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                status_type_1 = CouponStatus(data)



                return status_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CouponStatus | None | Unset, data)

        status = _parse_status(d.pop("status", UNSET))


        def _parse_template_sn(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        template_sn = _parse_template_sn(d.pop("template_sn", UNSET))


        order_coupon = cls(
            allocations=allocations,
            coupon_id=coupon_id,
            discount=discount,
            status=status,
            template_sn=template_sn,
        )


        order_coupon.additional_properties = d
        return order_coupon

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
