from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.coupon_status import CouponStatus
from ..types import UNSET, Unset
from typing import cast
from uuid import UUID
import datetime






T = TypeVar("T", bound="CouponView")



@_attrs_define
class CouponView:
    """ A coupon as the API shows it (docs/design.md §7).

        Attributes:
            effective_at (datetime.datetime):
            expires_at (datetime.datetime):
            id (UUID):
            issued_at (datetime.datetime):
            status (CouponStatus): A coupon's status; the names are those of the contract (and the rows').
            template_sn (str):
            user_id (str):
            channel_id (None | Unset | UUID):
            locked_at (datetime.datetime | None | Unset): When its order locked it: only while it is `locked`.
            order_id (None | str | Unset):
            refund_from (None | Unset | UUID):
            used_at (datetime.datetime | None | Unset): When its order used it: only while it is `used` (a refund's or a
                restore's time is in the coupon's events).
     """

    effective_at: datetime.datetime
    expires_at: datetime.datetime
    id: UUID
    issued_at: datetime.datetime
    status: CouponStatus
    template_sn: str
    user_id: str
    channel_id: None | Unset | UUID = UNSET
    locked_at: datetime.datetime | None | Unset = UNSET
    order_id: None | str | Unset = UNSET
    refund_from: None | Unset | UUID = UNSET
    used_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        effective_at = self.effective_at.isoformat()

        expires_at = self.expires_at.isoformat()

        id = str(self.id)

        issued_at = self.issued_at.isoformat()

        status = self.status.value

        template_sn = self.template_sn

        user_id = self.user_id

        channel_id: None | str | Unset
        if isinstance(self.channel_id, Unset):
            channel_id = UNSET
        elif isinstance(self.channel_id, UUID):
            channel_id = str(self.channel_id)
        else:
            channel_id = self.channel_id

        locked_at: None | str | Unset
        if isinstance(self.locked_at, Unset):
            locked_at = UNSET
        elif isinstance(self.locked_at, datetime.datetime):
            locked_at = self.locked_at.isoformat()
        else:
            locked_at = self.locked_at

        order_id: None | str | Unset
        if isinstance(self.order_id, Unset):
            order_id = UNSET
        else:
            order_id = self.order_id

        refund_from: None | str | Unset
        if isinstance(self.refund_from, Unset):
            refund_from = UNSET
        elif isinstance(self.refund_from, UUID):
            refund_from = str(self.refund_from)
        else:
            refund_from = self.refund_from

        used_at: None | str | Unset
        if isinstance(self.used_at, Unset):
            used_at = UNSET
        elif isinstance(self.used_at, datetime.datetime):
            used_at = self.used_at.isoformat()
        else:
            used_at = self.used_at


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "effective_at": effective_at,
            "expires_at": expires_at,
            "id": id,
            "issued_at": issued_at,
            "status": status,
            "template_sn": template_sn,
            "user_id": user_id,
        })
        if channel_id is not UNSET:
            field_dict["channel_id"] = channel_id
        if locked_at is not UNSET:
            field_dict["locked_at"] = locked_at
        if order_id is not UNSET:
            field_dict["order_id"] = order_id
        if refund_from is not UNSET:
            field_dict["refund_from"] = refund_from
        if used_at is not UNSET:
            field_dict["used_at"] = used_at

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        effective_at = datetime.datetime.fromisoformat(d.pop("effective_at"))




        expires_at = datetime.datetime.fromisoformat(d.pop("expires_at"))




        id = UUID(d.pop("id"))




        issued_at = datetime.datetime.fromisoformat(d.pop("issued_at"))




        status = CouponStatus(d.pop("status"))




        template_sn = d.pop("template_sn")

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


        def _parse_locked_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                locked_at_type_0 = datetime.datetime.fromisoformat(data)



                return locked_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        locked_at = _parse_locked_at(d.pop("locked_at", UNSET))


        def _parse_order_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        order_id = _parse_order_id(d.pop("order_id", UNSET))


        def _parse_refund_from(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                refund_from_type_0 = UUID(data)



                return refund_from_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        refund_from = _parse_refund_from(d.pop("refund_from", UNSET))


        def _parse_used_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                used_at_type_0 = datetime.datetime.fromisoformat(data)



                return used_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        used_at = _parse_used_at(d.pop("used_at", UNSET))


        coupon_view = cls(
            effective_at=effective_at,
            expires_at=expires_at,
            id=id,
            issued_at=issued_at,
            status=status,
            template_sn=template_sn,
            user_id=user_id,
            channel_id=channel_id,
            locked_at=locked_at,
            order_id=order_id,
            refund_from=refund_from,
            used_at=used_at,
        )


        coupon_view.additional_properties = d
        return coupon_view

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
