from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.batch_view import BatchView





T = TypeVar("T", bound="BatchPage")



@_attrs_define
class BatchPage:
    """ 
        Attributes:
            batches (list[BatchView]):
            limit (int):
            offset (int):
            total (int): Batches matching the query in all.
     """

    batches: list[BatchView]
    limit: int
    offset: int
    total: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.batch_view import BatchView # noqa: PLC0415
        batches = []
        for batches_item_data in self.batches:
            batches_item = batches_item_data.to_dict()
            batches.append(batches_item)



        limit = self.limit

        offset = self.offset

        total = self.total


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "batches": batches,
            "limit": limit,
            "offset": offset,
            "total": total,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.batch_view import BatchView # noqa: PLC0415
        d = dict(src_dict)
        batches = []
        _batches = d.pop("batches")
        for batches_item_data in (_batches):
            batches_item = BatchView.from_dict(batches_item_data)



            batches.append(batches_item)


        limit = d.pop("limit")

        offset = d.pop("offset")

        total = d.pop("total")

        batch_page = cls(
            batches=batches,
            limit=limit,
            offset=offset,
            total=total,
        )


        batch_page.additional_properties = d
        return batch_page

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
