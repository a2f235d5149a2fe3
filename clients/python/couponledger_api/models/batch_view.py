from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.batch_kind import BatchKind
from ..models.code_batch_status import CodeBatchStatus
from ..types import UNSET, Unset
from typing import cast
from uuid import UUID
import datetime






T = TypeVar("T", bound="BatchView")



@_attrs_define
class BatchView:
    """ 
        Attributes:
            count (int):
            created_at (datetime.datetime):
            first_serial (int):
            id (UUID):
            key_id (str):
            kind (BatchKind): A batch's codes: generated (printed, each proving itself) or one
                passphrase chosen by hand (口令).
            per_user (int):
            redeemed (int): Redemptions so far.
            status (CodeBatchStatus): A code batch's status: `active` from its creation, `stopped` for good
                once stopped (its codes are refused).
            uses_per_code (int):
            code (None | str | Unset): A passphrase batch's code, as it was chosen.
            expires_at (datetime.datetime | None | Unset):
            package_sn (None | str | Unset):
            template_sn (None | str | Unset):
     """

    count: int
    created_at: datetime.datetime
    first_serial: int
    id: UUID
    key_id: str
    kind: BatchKind
    per_user: int
    redeemed: int
    status: CodeBatchStatus
    uses_per_code: int
    code: None | str | Unset = UNSET
    expires_at: datetime.datetime | None | Unset = UNSET
    package_sn: None | str | Unset = UNSET
    template_sn: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        count = self.count

        created_at = self.created_at.isoformat()

        first_serial = self.first_serial

        id = str(self.id)

        key_id = self.key_id

        kind = self.kind.value

        per_user = self.per_user

        redeemed = self.redeemed

        status = self.status.value

        uses_per_code = self.uses_per_code

        code: None | str | Unset
        if isinstance(self.code, Unset):
            code = UNSET
        else:
            code = self.code

        expires_at: None | str | Unset
        if isinstance(self.expires_at, Unset):
            expires_at = UNSET
        elif isinstance(self.expires_at, datetime.datetime):
            expires_at = self.expires_at.isoformat()
        else:
            expires_at = self.expires_at

        package_sn: None | str | Unset
        if isinstance(self.package_sn, Unset):
            package_sn = UNSET
        else:
            package_sn = self.package_sn

        template_sn: None | str | Unset
        if isinstance(self.template_sn, Unset):
            template_sn = UNSET
        else:
            template_sn = self.template_sn


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "count": count,
            "created_at": created_at,
            "first_serial": first_serial,
            "id": id,
            "key_id": key_id,
            "kind": kind,
            "per_user": per_user,
            "redeemed": redeemed,
            "status": status,
            "uses_per_code": uses_per_code,
        })
        if code is not UNSET:
            field_dict["code"] = code
        if expires_at is not UNSET:
            field_dict["expires_at"] = expires_at
        if package_sn is not UNSET:
            field_dict["package_sn"] = package_sn
        if template_sn is not UNSET:
            field_dict["template_sn"] = template_sn

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        count = d.pop("count")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))




        first_serial = d.pop("first_serial")

        id = UUID(d.pop("id"))




        key_id = d.pop("key_id")

        kind = BatchKind(d.pop("kind"))




        per_user = d.pop("per_user")

        redeemed = d.pop("redeemed")

        status = CodeBatchStatus(d.pop("status"))




        uses_per_code = d.pop("uses_per_code")

        def _parse_code(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        code = _parse_code(d.pop("code", UNSET))


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


        def _parse_package_sn(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        package_sn = _parse_package_sn(d.pop("package_sn", UNSET))


        def _parse_template_sn(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        template_sn = _parse_template_sn(d.pop("template_sn", UNSET))


        batch_view = cls(
            count=count,
            created_at=created_at,
            first_serial=first_serial,
            id=id,
            key_id=key_id,
            kind=kind,
            per_user=per_user,
            redeemed=redeemed,
            status=status,
            uses_per_code=uses_per_code,
            code=code,
            expires_at=expires_at,
            package_sn=package_sn,
            template_sn=template_sn,
        )


        batch_view.additional_properties = d
        return batch_view

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
