from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="Row")



@_attrs_define
class Row:
    """ One row of the report: a group (template sn, channel id or `none`,
    business day, shop id or `(platform)`) or the `total`.

        Attributes:
            cost (str): Discounts granted on confirmed orders, net of refunds, to the cent. Example: 240.00.
            expired (int):
            face_value_outstanding (str): Face value of the unused and locked coupons, to the cent. Example: 1980.00.
            group (str):
            issued (int):
            locked (int):
            refunded (int):
            unused (int):
            used (int):
            void (int):
     """

    cost: str
    expired: int
    face_value_outstanding: str
    group: str
    issued: int
    locked: int
    refunded: int
    unused: int
    used: int
    void: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        cost = self.cost

        expired = self.expired

        face_value_outstanding = self.face_value_outstanding

        group = self.group

        issued = self.issued

        locked = self.locked

        refunded = self.refunded

        unused = self.unused

        used = self.used

        void = self.void


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "cost": cost,
            "expired": expired,
            "face_value_outstanding": face_value_outstanding,
            "group": group,
            "issued": issued,
            "locked": locked,
            "refunded": refunded,
            "unused": unused,
            "used": used,
            "void": void,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        cost = d.pop("cost")

        expired = d.pop("expired")

        face_value_outstanding = d.pop("face_value_outstanding")

        group = d.pop("group")

        issued = d.pop("issued")

        locked = d.pop("locked")

        refunded = d.pop("refunded")

        unused = d.pop("unused")

        used = d.pop("used")

        void = d.pop("void")

        row = cls(
            cost=cost,
            expired=expired,
            face_value_outstanding=face_value_outstanding,
            group=group,
            issued=issued,
            locked=locked,
            refunded=refunded,
            unused=unused,
            used=used,
            void=void,
        )


        row.additional_properties = d
        return row

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
