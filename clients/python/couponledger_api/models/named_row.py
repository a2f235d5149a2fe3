from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="NamedRow")



@_attrs_define
class NamedRow:
    """ A row of the report, with the name of its template or channel beside
    the id it is grouped by (the CSV keeps the ids alone).

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
            name (None | str | Unset): The template's or the channel's name; absent for a day, a shop,
                coupons of no channel (`none`) and the total.
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
    name: None | str | Unset = UNSET
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

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name


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
        if name is not UNSET:
            field_dict["name"] = name

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

        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))


        named_row = cls(
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
            name=name,
        )


        named_row.additional_properties = d
        return named_row

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
