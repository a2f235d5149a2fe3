from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.allow_list_file_status import AllowListFileStatus
from ..models.allow_list_mode import AllowListMode
from ..types import UNSET, Unset
from typing import cast
from uuid import UUID
import datetime

if TYPE_CHECKING:
  from ..models.invalid_line import InvalidLine





T = TypeVar("T", bound="AllowListFileView")



@_attrs_define
class AllowListFileView:
    """ An uploaded file and what it did.

        Attributes:
            blank (int):
            changed (int): Ids whose membership the file changed (added ones were not on the
                list, removed ones were).
            created_at (datetime.datetime):
            file_id (UUID):
            invalid (int):
            lines_read (int):
            mode (AllowListMode): What an uploaded allow-list file does to the list.
            status (AllowListFileStatus): Where an uploaded allow-list file stands.
            template_sn (str):
            valid (int):
            error (None | str | Unset):
            errors (list[InvalidLine] | None | Unset): The first invalid lines (at most 1,000), with their 1-based number:
                in the answer to one file, not in a list's.
            finished_at (datetime.datetime | None | Unset):
            operator (None | str | Unset):
     """

    blank: int
    changed: int
    created_at: datetime.datetime
    file_id: UUID
    invalid: int
    lines_read: int
    mode: AllowListMode
    status: AllowListFileStatus
    template_sn: str
    valid: int
    error: None | str | Unset = UNSET
    errors: list[InvalidLine] | None | Unset = UNSET
    finished_at: datetime.datetime | None | Unset = UNSET
    operator: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.invalid_line import InvalidLine # noqa: PLC0415
        blank = self.blank

        changed = self.changed

        created_at = self.created_at.isoformat()

        file_id = str(self.file_id)

        invalid = self.invalid

        lines_read = self.lines_read

        mode = self.mode.value

        status = self.status.value

        template_sn = self.template_sn

        valid = self.valid

        error: None | str | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        else:
            error = self.error

        errors: list[dict[str, Any]] | None | Unset
        if isinstance(self.errors, Unset):
            errors = UNSET
        elif isinstance(self.errors, list):
            errors = []
            for errors_type_0_item_data in self.errors:
                errors_type_0_item = errors_type_0_item_data.to_dict()
                errors.append(errors_type_0_item)


        else:
            errors = self.errors

        finished_at: None | str | Unset
        if isinstance(self.finished_at, Unset):
            finished_at = UNSET
        elif isinstance(self.finished_at, datetime.datetime):
            finished_at = self.finished_at.isoformat()
        else:
            finished_at = self.finished_at

        operator: None | str | Unset
        if isinstance(self.operator, Unset):
            operator = UNSET
        else:
            operator = self.operator


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "blank": blank,
            "changed": changed,
            "created_at": created_at,
            "file_id": file_id,
            "invalid": invalid,
            "lines_read": lines_read,
            "mode": mode,
            "status": status,
            "template_sn": template_sn,
            "valid": valid,
        })
        if error is not UNSET:
            field_dict["error"] = error
        if errors is not UNSET:
            field_dict["errors"] = errors
        if finished_at is not UNSET:
            field_dict["finished_at"] = finished_at
        if operator is not UNSET:
            field_dict["operator"] = operator

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.invalid_line import InvalidLine # noqa: PLC0415
        d = dict(src_dict)
        blank = d.pop("blank")

        changed = d.pop("changed")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))




        file_id = UUID(d.pop("file_id"))




        invalid = d.pop("invalid")

        lines_read = d.pop("lines_read")

        mode = AllowListMode(d.pop("mode"))




        status = AllowListFileStatus(d.pop("status"))




        template_sn = d.pop("template_sn")

        valid = d.pop("valid")

        def _parse_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error = _parse_error(d.pop("error", UNSET))


        def _parse_errors(data: object) -> list[InvalidLine] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                errors_type_0 = []
                _errors_type_0 = data
                for errors_type_0_item_data in (_errors_type_0):
                    errors_type_0_item = InvalidLine.from_dict(errors_type_0_item_data)



                    errors_type_0.append(errors_type_0_item)

                return errors_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[InvalidLine] | None | Unset, data)

        errors = _parse_errors(d.pop("errors", UNSET))


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


        def _parse_operator(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        operator = _parse_operator(d.pop("operator", UNSET))


        allow_list_file_view = cls(
            blank=blank,
            changed=changed,
            created_at=created_at,
            file_id=file_id,
            invalid=invalid,
            lines_read=lines_read,
            mode=mode,
            status=status,
            template_sn=template_sn,
            valid=valid,
            error=error,
            errors=errors,
            finished_at=finished_at,
            operator=operator,
        )


        allow_list_file_view.additional_properties = d
        return allow_list_file_view

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
