from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="RefundLine")



@_attrs_define
class RefundLine:
    """ One line of a refund request: `{line_id, quantity}`.

        Attributes:
            line_id (str):
            quantity (int):
     """

    line_id: str
    quantity: int





    def to_dict(self) -> dict[str, Any]:
        line_id = self.line_id

        quantity = self.quantity


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "line_id": line_id,
            "quantity": quantity,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        line_id = d.pop("line_id")

        quantity = d.pop("quantity")

        refund_line = cls(
            line_id=line_id,
            quantity=quantity,
        )

        return refund_line

