from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="RawLine")



@_attrs_define
class RawLine:
    """ One order line as it arrives.

        Attributes:
            category (str):
            line_id (str):
            quantity (int):
            sku (str):
            unit_price (str):
            shop_id (None | str | Unset):
     """

    category: str
    line_id: str
    quantity: int
    sku: str
    unit_price: str
    shop_id: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        category = self.category

        line_id = self.line_id

        quantity = self.quantity

        sku = self.sku

        unit_price = self.unit_price

        shop_id: None | str | Unset
        if isinstance(self.shop_id, Unset):
            shop_id = UNSET
        else:
            shop_id = self.shop_id


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "category": category,
            "line_id": line_id,
            "quantity": quantity,
            "sku": sku,
            "unit_price": unit_price,
        })
        if shop_id is not UNSET:
            field_dict["shop_id"] = shop_id

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        category = d.pop("category")

        line_id = d.pop("line_id")

        quantity = d.pop("quantity")

        sku = d.pop("sku")

        unit_price = d.pop("unit_price")

        def _parse_shop_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        shop_id = _parse_shop_id(d.pop("shop_id", UNSET))


        raw_line = cls(
            category=category,
            line_id=line_id,
            quantity=quantity,
            sku=sku,
            unit_price=unit_price,
            shop_id=shop_id,
        )

        return raw_line

