from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.raw_order import RawOrder





T = TypeVar("T", bound="QuoteRequest")



@_attrs_define
class QuoteRequest:
    """ 
        Attributes:
            order (RawOrder): An order as it arrives: `{order_id, user_id, currency, region?,
                user_tags?, lines: [...], shipping_fee}`. A missing `shipping_fee` is `0.00`.
            user_id (int | str):
     """

    order: RawOrder
    user_id: int | str





    def to_dict(self) -> dict[str, Any]:
        from ..models.raw_order import RawOrder # noqa: PLC0415
        order = self.order.to_dict()

        user_id: int | str
        user_id = self.user_id


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "order": order,
            "user_id": user_id,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.raw_order import RawOrder # noqa: PLC0415
        d = dict(src_dict)
        order = RawOrder.from_dict(d.pop("order"))




        def _parse_user_id(data: object) -> int | str:
            return cast(int | str, data)

        user_id = _parse_user_id(d.pop("user_id"))


        quote_request = cls(
            order=order,
            user_id=user_id,
        )

        return quote_request

