from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.reflects import Reflects
  from ..models.template_stats_by_status import TemplateStatsByStatus





T = TypeVar("T", bound="TemplateStats")



@_attrs_define
class TemplateStats:
    """ 
        Attributes:
            by_status (TemplateStatsByStatus):
            cost (str): Discounts of used coupons, net of refund reversals. Example: 120.00.
            expired (int):
            issued (int):
            liability (str): Face value of unused and locked coupons. Example: 2000.00.
            locked (int):
            reflects (Reflects): Where a projection stands: the position of the last event it applied
                and how many events it has been given (0 and 0 before the first).
            refunded (int):
            sn (str):
            used (int):
            void (int): Coupons in status `void` (the status's one word).
     """

    by_status: TemplateStatsByStatus
    cost: str
    expired: int
    issued: int
    liability: str
    locked: int
    reflects: Reflects
    refunded: int
    sn: str
    used: int
    void: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.reflects import Reflects # noqa: PLC0415
        from ..models.template_stats_by_status import TemplateStatsByStatus # noqa: PLC0415
        by_status = self.by_status.to_dict()

        cost = self.cost

        expired = self.expired

        issued = self.issued

        liability = self.liability

        locked = self.locked

        reflects = self.reflects.to_dict()

        refunded = self.refunded

        sn = self.sn

        used = self.used

        void = self.void


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "by_status": by_status,
            "cost": cost,
            "expired": expired,
            "issued": issued,
            "liability": liability,
            "locked": locked,
            "reflects": reflects,
            "refunded": refunded,
            "sn": sn,
            "used": used,
            "void": void,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.reflects import Reflects # noqa: PLC0415
        from ..models.template_stats_by_status import TemplateStatsByStatus # noqa: PLC0415
        d = dict(src_dict)
        by_status = TemplateStatsByStatus.from_dict(d.pop("by_status"))




        cost = d.pop("cost")

        expired = d.pop("expired")

        issued = d.pop("issued")

        liability = d.pop("liability")

        locked = d.pop("locked")

        reflects = Reflects.from_dict(d.pop("reflects"))




        refunded = d.pop("refunded")

        sn = d.pop("sn")

        used = d.pop("used")

        void = d.pop("void")

        template_stats = cls(
            by_status=by_status,
            cost=cost,
            expired=expired,
            issued=issued,
            liability=liability,
            locked=locked,
            reflects=reflects,
            refunded=refunded,
            sn=sn,
            used=used,
            void=void,
        )


        template_stats.additional_properties = d
        return template_stats

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
