from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
import datetime

if TYPE_CHECKING:
  from ..models.named_row import NamedRow





T = TypeVar("T", bound="LiabilityReport")



@_attrs_define
class LiabilityReport:
    """ The report: one row per group, then the total.

        Attributes:
            as_of (datetime.datetime):
            by (str): `template`, `channel`, `day` or `shop`.
            events_folded (int): Events folded after it.
            rows (list[NamedRow]):
            from_snapshot (int | None | Unset): The liability snapshot (its checkpoint) the report started from;
                null: from the first event.
     """

    as_of: datetime.datetime
    by: str
    events_folded: int
    rows: list[NamedRow]
    from_snapshot: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.named_row import NamedRow # noqa: PLC0415
        as_of = self.as_of.isoformat()

        by = self.by

        events_folded = self.events_folded

        rows = []
        for rows_item_data in self.rows:
            rows_item = rows_item_data.to_dict()
            rows.append(rows_item)



        from_snapshot: int | None | Unset
        if isinstance(self.from_snapshot, Unset):
            from_snapshot = UNSET
        else:
            from_snapshot = self.from_snapshot


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "as_of": as_of,
            "by": by,
            "events_folded": events_folded,
            "rows": rows,
        })
        if from_snapshot is not UNSET:
            field_dict["from_snapshot"] = from_snapshot

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.named_row import NamedRow # noqa: PLC0415
        d = dict(src_dict)
        as_of = datetime.datetime.fromisoformat(d.pop("as_of"))




        by = d.pop("by")

        events_folded = d.pop("events_folded")

        rows = []
        _rows = d.pop("rows")
        for rows_item_data in (_rows):
            rows_item = NamedRow.from_dict(rows_item_data)



            rows.append(rows_item)


        def _parse_from_snapshot(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        from_snapshot = _parse_from_snapshot(d.pop("from_snapshot", UNSET))


        liability_report = cls(
            as_of=as_of,
            by=by,
            events_folded=events_folded,
            rows=rows,
            from_snapshot=from_snapshot,
        )


        liability_report.additional_properties = d
        return liability_report

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
