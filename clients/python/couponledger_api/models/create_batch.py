from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.batch_kind import BatchKind
from ..types import UNSET, Unset
from typing import cast
import datetime






T = TypeVar("T", bound="CreateBatch")



@_attrs_define
class CreateBatch:
    """ 
        Attributes:
            code (None | str | Unset):
            count (int | None | Unset):
            expires_at (datetime.datetime | None | Unset): After it the batch's codes are refused (422); none: no end.
            kind (BatchKind | None | Unset):
            package_sn (None | str | Unset):
            per_user (int | None | Unset):
            template_sn (None | str | Unset):
            uses (int | None | Unset):
            uses_per_code (int | None | Unset):
     """

    code: None | str | Unset = UNSET
    count: int | None | Unset = UNSET
    expires_at: datetime.datetime | None | Unset = UNSET
    kind: BatchKind | None | Unset = UNSET
    package_sn: None | str | Unset = UNSET
    per_user: int | None | Unset = UNSET
    template_sn: None | str | Unset = UNSET
    uses: int | None | Unset = UNSET
    uses_per_code: int | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        code: None | str | Unset
        if isinstance(self.code, Unset):
            code = UNSET
        else:
            code = self.code

        count: int | None | Unset
        if isinstance(self.count, Unset):
            count = UNSET
        else:
            count = self.count

        expires_at: None | str | Unset
        if isinstance(self.expires_at, Unset):
            expires_at = UNSET
        elif isinstance(self.expires_at, datetime.datetime):
            expires_at = self.expires_at.isoformat()
        else:
            expires_at = self.expires_at

        kind: None | str | Unset
        if isinstance(self.kind, Unset):
            kind = UNSET
        elif isinstance(self.kind, BatchKind):
            kind = self.kind.value
        else:
            kind = self.kind

        package_sn: None | str | Unset
        if isinstance(self.package_sn, Unset):
            package_sn = UNSET
        else:
            package_sn = self.package_sn

        per_user: int | None | Unset
        if isinstance(self.per_user, Unset):
            per_user = UNSET
        else:
            per_user = self.per_user

        template_sn: None | str | Unset
        if isinstance(self.template_sn, Unset):
            template_sn = UNSET
        else:
            template_sn = self.template_sn

        uses: int | None | Unset
        if isinstance(self.uses, Unset):
            uses = UNSET
        else:
            uses = self.uses

        uses_per_code: int | None | Unset
        if isinstance(self.uses_per_code, Unset):
            uses_per_code = UNSET
        else:
            uses_per_code = self.uses_per_code


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if code is not UNSET:
            field_dict["code"] = code
        if count is not UNSET:
            field_dict["count"] = count
        if expires_at is not UNSET:
            field_dict["expires_at"] = expires_at
        if kind is not UNSET:
            field_dict["kind"] = kind
        if package_sn is not UNSET:
            field_dict["package_sn"] = package_sn
        if per_user is not UNSET:
            field_dict["per_user"] = per_user
        if template_sn is not UNSET:
            field_dict["template_sn"] = template_sn
        if uses is not UNSET:
            field_dict["uses"] = uses
        if uses_per_code is not UNSET:
            field_dict["uses_per_code"] = uses_per_code

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_code(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        code = _parse_code(d.pop("code", UNSET))


        def _parse_count(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        count = _parse_count(d.pop("count", UNSET))


        def _parse_expires_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                expires_at_type_0 = datetime.datetime.fromisoformat(data)



                return expires_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        expires_at = _parse_expires_at(d.pop("expires_at", UNSET))


        def _parse_kind(data: object) -> BatchKind | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                kind_type_1 = BatchKind(data)



                return kind_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(BatchKind | None | Unset, data)

        kind = _parse_kind(d.pop("kind", UNSET))


        def _parse_package_sn(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        package_sn = _parse_package_sn(d.pop("package_sn", UNSET))


        def _parse_per_user(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        per_user = _parse_per_user(d.pop("per_user", UNSET))


        def _parse_template_sn(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        template_sn = _parse_template_sn(d.pop("template_sn", UNSET))


        def _parse_uses(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        uses = _parse_uses(d.pop("uses", UNSET))


        def _parse_uses_per_code(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        uses_per_code = _parse_uses_per_code(d.pop("uses_per_code", UNSET))


        create_batch = cls(
            code=code,
            count=count,
            expires_at=expires_at,
            kind=kind,
            package_sn=package_sn,
            per_user=per_user,
            template_sn=template_sn,
            uses=uses,
            uses_per_code=uses_per_code,
        )

        return create_batch

