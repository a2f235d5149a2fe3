from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
import datetime






T = TypeVar("T", bound="VerifyView")



@_attrs_define
class VerifyView:
    """ 
        Attributes:
            events (int):
            expected_head (bool): Whether a head kept outside the database was checked (`--expect`).
            finished_at (datetime.datetime):
            intact (bool):
            started_at (datetime.datetime):
            finding (None | str | Unset): The first thing that differed; null when intact.
            from_checkpoint (int | None | Unset):
            head (None | str | Unset):
     """

    events: int
    expected_head: bool
    finished_at: datetime.datetime
    intact: bool
    started_at: datetime.datetime
    finding: None | str | Unset = UNSET
    from_checkpoint: int | None | Unset = UNSET
    head: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        events = self.events

        expected_head = self.expected_head

        finished_at = self.finished_at.isoformat()

        intact = self.intact

        started_at = self.started_at.isoformat()

        finding: None | str | Unset
        if isinstance(self.finding, Unset):
            finding = UNSET
        else:
            finding = self.finding

        from_checkpoint: int | None | Unset
        if isinstance(self.from_checkpoint, Unset):
            from_checkpoint = UNSET
        else:
            from_checkpoint = self.from_checkpoint

        head: None | str | Unset
        if isinstance(self.head, Unset):
            head = UNSET
        else:
            head = self.head


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "events": events,
            "expected_head": expected_head,
            "finished_at": finished_at,
            "intact": intact,
            "started_at": started_at,
        })
        if finding is not UNSET:
            field_dict["finding"] = finding
        if from_checkpoint is not UNSET:
            field_dict["from_checkpoint"] = from_checkpoint
        if head is not UNSET:
            field_dict["head"] = head

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        events = d.pop("events")

        expected_head = d.pop("expected_head")

        finished_at = datetime.datetime.fromisoformat(d.pop("finished_at"))




        intact = d.pop("intact")

        started_at = datetime.datetime.fromisoformat(d.pop("started_at"))




        def _parse_finding(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        finding = _parse_finding(d.pop("finding", UNSET))


        def _parse_from_checkpoint(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        from_checkpoint = _parse_from_checkpoint(d.pop("from_checkpoint", UNSET))


        def _parse_head(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        head = _parse_head(d.pop("head", UNSET))


        verify_view = cls(
            events=events,
            expected_head=expected_head,
            finished_at=finished_at,
            intact=intact,
            started_at=started_at,
            finding=finding,
            from_checkpoint=from_checkpoint,
            head=head,
        )


        verify_view.additional_properties = d
        return verify_view

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
