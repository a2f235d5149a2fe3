from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.job_status import JobStatus
from ..types import UNSET, Unset
from typing import cast
from uuid import UUID
import datetime






T = TypeVar("T", bound="JobView")



@_attrs_define
class JobView:
    """ A job and where it stands. Every line read ends in one of `blank`,
    `invalid`, `issued`, `over_limit`, `sold_out`, `cancelled`,
    `not_eligible` once the job is done.

        Attributes:
            blank (int):
            cancelled (int):
            chunks_done (int):
            created_at (datetime.datetime):
            invalid (int):
            issued (int):
            job_id (UUID):
            lines_read (int):
            not_eligible (int): Lines whose user is not on the template's allow-list (docs/design.md §15).
            notify (bool): Each user gets one `CouponsGranted` message once the job has ended
                (`?notify=true` on the upload).
            over_limit (int):
            sold_out (int):
            status (JobStatus): Where a job stands (contract names).
            template_sn (str):
            valid (int):
            chunks_total (int | None | Unset): Known once the upload ended.
            error (None | str | Unset):
            finished_at (datetime.datetime | None | Unset):
            lines_per_second (float | None | Unset): Lines decided per second since the first chunk was issued, to two
                decimals (more would be noise: the times are milliseconds apart).
            started_at (datetime.datetime | None | Unset):
     """

    blank: int
    cancelled: int
    chunks_done: int
    created_at: datetime.datetime
    invalid: int
    issued: int
    job_id: UUID
    lines_read: int
    not_eligible: int
    notify: bool
    over_limit: int
    sold_out: int
    status: JobStatus
    template_sn: str
    valid: int
    chunks_total: int | None | Unset = UNSET
    error: None | str | Unset = UNSET
    finished_at: datetime.datetime | None | Unset = UNSET
    lines_per_second: float | None | Unset = UNSET
    started_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        blank = self.blank

        cancelled = self.cancelled

        chunks_done = self.chunks_done

        created_at = self.created_at.isoformat()

        invalid = self.invalid

        issued = self.issued

        job_id = str(self.job_id)

        lines_read = self.lines_read

        not_eligible = self.not_eligible

        notify = self.notify

        over_limit = self.over_limit

        sold_out = self.sold_out

        status = self.status.value

        template_sn = self.template_sn

        valid = self.valid

        chunks_total: int | None | Unset
        if isinstance(self.chunks_total, Unset):
            chunks_total = UNSET
        else:
            chunks_total = self.chunks_total

        error: None | str | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        else:
            error = self.error

        finished_at: None | str | Unset
        if isinstance(self.finished_at, Unset):
            finished_at = UNSET
        elif isinstance(self.finished_at, datetime.datetime):
            finished_at = self.finished_at.isoformat()
        else:
            finished_at = self.finished_at

        lines_per_second: float | None | Unset
        if isinstance(self.lines_per_second, Unset):
            lines_per_second = UNSET
        else:
            lines_per_second = self.lines_per_second

        started_at: None | str | Unset
        if isinstance(self.started_at, Unset):
            started_at = UNSET
        elif isinstance(self.started_at, datetime.datetime):
            started_at = self.started_at.isoformat()
        else:
            started_at = self.started_at


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "blank": blank,
            "cancelled": cancelled,
            "chunks_done": chunks_done,
            "created_at": created_at,
            "invalid": invalid,
            "issued": issued,
            "job_id": job_id,
            "lines_read": lines_read,
            "not_eligible": not_eligible,
            "notify": notify,
            "over_limit": over_limit,
            "sold_out": sold_out,
            "status": status,
            "template_sn": template_sn,
            "valid": valid,
        })
        if chunks_total is not UNSET:
            field_dict["chunks_total"] = chunks_total
        if error is not UNSET:
            field_dict["error"] = error
        if finished_at is not UNSET:
            field_dict["finished_at"] = finished_at
        if lines_per_second is not UNSET:
            field_dict["lines_per_second"] = lines_per_second
        if started_at is not UNSET:
            field_dict["started_at"] = started_at

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        blank = d.pop("blank")

        cancelled = d.pop("cancelled")

        chunks_done = d.pop("chunks_done")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))




        invalid = d.pop("invalid")

        issued = d.pop("issued")

        job_id = UUID(d.pop("job_id"))




        lines_read = d.pop("lines_read")

        not_eligible = d.pop("not_eligible")

        notify = d.pop("notify")

        over_limit = d.pop("over_limit")

        sold_out = d.pop("sold_out")

        status = JobStatus(d.pop("status"))




        template_sn = d.pop("template_sn")

        valid = d.pop("valid")

        def _parse_chunks_total(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        chunks_total = _parse_chunks_total(d.pop("chunks_total", UNSET))


        def _parse_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error = _parse_error(d.pop("error", UNSET))


        def _parse_finished_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                finished_at_type_0 = datetime.datetime.fromisoformat(data)



                return finished_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        finished_at = _parse_finished_at(d.pop("finished_at", UNSET))


        def _parse_lines_per_second(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        lines_per_second = _parse_lines_per_second(d.pop("lines_per_second", UNSET))


        def _parse_started_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                started_at_type_0 = datetime.datetime.fromisoformat(data)



                return started_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        started_at = _parse_started_at(d.pop("started_at", UNSET))


        job_view = cls(
            blank=blank,
            cancelled=cancelled,
            chunks_done=chunks_done,
            created_at=created_at,
            invalid=invalid,
            issued=issued,
            job_id=job_id,
            lines_read=lines_read,
            not_eligible=not_eligible,
            notify=notify,
            over_limit=over_limit,
            sold_out=sold_out,
            status=status,
            template_sn=template_sn,
            valid=valid,
            chunks_total=chunks_total,
            error=error,
            finished_at=finished_at,
            lines_per_second=lines_per_second,
            started_at=started_at,
        )


        job_view.additional_properties = d
        return job_view

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
