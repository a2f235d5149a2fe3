from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
import datetime






T = TypeVar("T", bound="DeliveryCounts")



@_attrs_define
class DeliveryCounts:
    """ 
        Attributes:
            delivered (int):
            failed (int):
            pending (int):
            oldest_pending_at (datetime.datetime | None | Unset): When the oldest pending delivery was queued (how far
                behind).
     """

    delivered: int
    failed: int
    pending: int
    oldest_pending_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        delivered = self.delivered

        failed = self.failed

        pending = self.pending

        oldest_pending_at: None | str | Unset
        if isinstance(self.oldest_pending_at, Unset):
            oldest_pending_at = UNSET
        elif isinstance(self.oldest_pending_at, datetime.datetime):
            oldest_pending_at = self.oldest_pending_at.isoformat()
        else:
            oldest_pending_at = self.oldest_pending_at


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "delivered": delivered,
            "failed": failed,
            "pending": pending,
        })
        if oldest_pending_at is not UNSET:
            field_dict["oldest_pending_at"] = oldest_pending_at

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        delivered = d.pop("delivered")

        failed = d.pop("failed")

        pending = d.pop("pending")

        def _parse_oldest_pending_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                oldest_pending_at_type_0 = datetime.datetime.fromisoformat(data)



                return oldest_pending_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        oldest_pending_at = _parse_oldest_pending_at(d.pop("oldest_pending_at", UNSET))


        delivery_counts = cls(
            delivered=delivered,
            failed=failed,
            pending=pending,
            oldest_pending_at=oldest_pending_at,
        )


        delivery_counts.additional_properties = d
        return delivery_counts

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
