from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.refund_line import RefundLine





T = TypeVar("T", bound="RefundBody")



@_attrs_define
class RefundBody:
    """ 
        Attributes:
            lines (list[RefundLine]):
            refund_id (str):
     """

    lines: list[RefundLine]
    refund_id: str





    def to_dict(self) -> dict[str, Any]:
        from ..models.refund_line import RefundLine # noqa: PLC0415
        lines = []
        for lines_item_data in self.lines:
            lines_item = lines_item_data.to_dict()
            lines.append(lines_item)



        refund_id = self.refund_id


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "lines": lines,
            "refund_id": refund_id,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.refund_line import RefundLine # noqa: PLC0415
        d = dict(src_dict)
        lines = []
        _lines = d.pop("lines")
        for lines_item_data in (_lines):
            lines_item = RefundLine.from_dict(lines_item_data)



            lines.append(lines_item)


        refund_id = d.pop("refund_id")

        refund_body = cls(
            lines=lines,
            refund_id=refund_id,
        )

        return refund_body

