from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.package_job_status import PackageJobStatus
from ..types import UNSET, Unset
from typing import cast
from uuid import UUID
import datetime

if TYPE_CHECKING:
  from ..models.job_error import JobError





T = TypeVar("T", bound="PackageJobView")



@_attrs_define
class PackageJobView:
    """ A package claim run as a job.

        Attributes:
            coupon_ids (list[UUID]): Done: the coupons' ids, in the package's item order, one page of
                them (`?offset=&limit=`, at most [`MAX_COUPON_PAGE`]).
            coupons_issued (int): Coupons issued: all the package's once done, else 0.
            created_at (datetime.datetime):
            job_id (UUID):
            package_sn (str):
            status (PackageJobStatus): Where a package job stands.
            user_id (str):
            channel_id (None | Unset | UUID): The channel that asked; absent for the service.
            code_batch_id (None | Unset | UUID): The redemption code that asked (its batch and serial), for a package's
                code.
            code_serial (int | None | Unset):
            error (JobError | None | Unset):
            finished_at (datetime.datetime | None | Unset):
            next_offset (int | None | Unset): Where the next page of `coupon_ids` starts, while one follows.
     """

    coupon_ids: list[UUID]
    coupons_issued: int
    created_at: datetime.datetime
    job_id: UUID
    package_sn: str
    status: PackageJobStatus
    user_id: str
    channel_id: None | Unset | UUID = UNSET
    code_batch_id: None | Unset | UUID = UNSET
    code_serial: int | None | Unset = UNSET
    error: JobError | None | Unset = UNSET
    finished_at: datetime.datetime | None | Unset = UNSET
    next_offset: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.job_error import JobError # noqa: PLC0415
        coupon_ids = []
        for coupon_ids_item_data in self.coupon_ids:
            coupon_ids_item = str(coupon_ids_item_data)
            coupon_ids.append(coupon_ids_item)



        coupons_issued = self.coupons_issued

        created_at = self.created_at.isoformat()

        job_id = str(self.job_id)

        package_sn = self.package_sn

        status = self.status.value

        user_id = self.user_id

        channel_id: None | str | Unset
        if isinstance(self.channel_id, Unset):
            channel_id = UNSET
        elif isinstance(self.channel_id, UUID):
            channel_id = str(self.channel_id)
        else:
            channel_id = self.channel_id

        code_batch_id: None | str | Unset
        if isinstance(self.code_batch_id, Unset):
            code_batch_id = UNSET
        elif isinstance(self.code_batch_id, UUID):
            code_batch_id = str(self.code_batch_id)
        else:
            code_batch_id = self.code_batch_id

        code_serial: int | None | Unset
        if isinstance(self.code_serial, Unset):
            code_serial = UNSET
        else:
            code_serial = self.code_serial

        error: dict[str, Any] | None | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        elif isinstance(self.error, JobError):
            error = self.error.to_dict()
        else:
            error = self.error

        finished_at: None | str | Unset
        if isinstance(self.finished_at, Unset):
            finished_at = UNSET
        elif isinstance(self.finished_at, datetime.datetime):
            finished_at = self.finished_at.isoformat()
        else:
            finished_at = self.finished_at

        next_offset: int | None | Unset
        if isinstance(self.next_offset, Unset):
            next_offset = UNSET
        else:
            next_offset = self.next_offset


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "coupon_ids": coupon_ids,
            "coupons_issued": coupons_issued,
            "created_at": created_at,
            "job_id": job_id,
            "package_sn": package_sn,
            "status": status,
            "user_id": user_id,
        })
        if channel_id is not UNSET:
            field_dict["channel_id"] = channel_id
        if code_batch_id is not UNSET:
            field_dict["code_batch_id"] = code_batch_id
        if code_serial is not UNSET:
            field_dict["code_serial"] = code_serial
        if error is not UNSET:
            field_dict["error"] = error
        if finished_at is not UNSET:
            field_dict["finished_at"] = finished_at
        if next_offset is not UNSET:
            field_dict["next_offset"] = next_offset

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.job_error import JobError # noqa: PLC0415
        d = dict(src_dict)
        coupon_ids = []
        _coupon_ids = d.pop("coupon_ids")
        for coupon_ids_item_data in (_coupon_ids):
            coupon_ids_item = UUID(coupon_ids_item_data)



            coupon_ids.append(coupon_ids_item)


        coupons_issued = d.pop("coupons_issued")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))




        job_id = UUID(d.pop("job_id"))




        package_sn = d.pop("package_sn")

        status = PackageJobStatus(d.pop("status"))




        user_id = d.pop("user_id")

        def _parse_channel_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                channel_id_type_0 = UUID(data)



                return channel_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        channel_id = _parse_channel_id(d.pop("channel_id", UNSET))


        def _parse_code_batch_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                code_batch_id_type_0 = UUID(data)



                return code_batch_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        code_batch_id = _parse_code_batch_id(d.pop("code_batch_id", UNSET))


        def _parse_code_serial(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        code_serial = _parse_code_serial(d.pop("code_serial", UNSET))


        def _parse_error(data: object) -> JobError | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                error_type_1 = JobError.from_dict(data)



                return error_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(JobError | None | Unset, data)

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


        def _parse_next_offset(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        next_offset = _parse_next_offset(d.pop("next_offset", UNSET))


        package_job_view = cls(
            coupon_ids=coupon_ids,
            coupons_issued=coupons_issued,
            created_at=created_at,
            job_id=job_id,
            package_sn=package_sn,
            status=status,
            user_id=user_id,
            channel_id=channel_id,
            code_batch_id=code_batch_id,
            code_serial=code_serial,
            error=error,
            finished_at=finished_at,
            next_offset=next_offset,
        )


        package_job_view.additional_properties = d
        return package_job_view

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
