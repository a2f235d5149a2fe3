from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.raw_line import RawLine





T = TypeVar("T", bound="RawOrder")



@_attrs_define
class RawOrder:
    """ An order as it arrives: `{order_id, user_id, currency, region?,
    user_tags?, lines: [...], shipping_fee}`. A missing `shipping_fee` is `0.00`.

        Attributes:
            currency (str):
            lines (list[RawLine]):
            order_id (str):
            user_id (int | str):
            region (None | str | Unset):
            shipping_fee (None | str | Unset):
            user_tags (list[str] | None | Unset):
     """

    currency: str
    lines: list[RawLine]
    order_id: str
    user_id: int | str
    region: None | str | Unset = UNSET
    shipping_fee: None | str | Unset = UNSET
    user_tags: list[str] | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.raw_line import RawLine # noqa: PLC0415
        currency = self.currency

        lines = []
        for lines_item_data in self.lines:
            lines_item = lines_item_data.to_dict()
            lines.append(lines_item)



        order_id = self.order_id

        user_id: int | str
        user_id = self.user_id

        region: None | str | Unset
        if isinstance(self.region, Unset):
            region = UNSET
        else:
            region = self.region

        shipping_fee: None | str | Unset
        if isinstance(self.shipping_fee, Unset):
            shipping_fee = UNSET
        else:
            shipping_fee = self.shipping_fee

        user_tags: list[str] | None | Unset
        if isinstance(self.user_tags, Unset):
            user_tags = UNSET
        elif isinstance(self.user_tags, list):
            user_tags = self.user_tags


        else:
            user_tags = self.user_tags


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "currency": currency,
            "lines": lines,
            "order_id": order_id,
            "user_id": user_id,
        })
        if region is not UNSET:
            field_dict["region"] = region
        if shipping_fee is not UNSET:
            field_dict["shipping_fee"] = shipping_fee
        if user_tags is not UNSET:
            field_dict["user_tags"] = user_tags

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.raw_line import RawLine # noqa: PLC0415
        d = dict(src_dict)
        currency = d.pop("currency")

        lines = []
        _lines = d.pop("lines")
        for lines_item_data in (_lines):
            lines_item = RawLine.from_dict(lines_item_data)



            lines.append(lines_item)


        order_id = d.pop("order_id")

        def _parse_user_id(data: object) -> int | str:
            return cast(int | str, data)

        user_id = _parse_user_id(d.pop("user_id"))


        def _parse_region(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        region = _parse_region(d.pop("region", UNSET))


        def _parse_shipping_fee(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        shipping_fee = _parse_shipping_fee(d.pop("shipping_fee", UNSET))


        def _parse_user_tags(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                user_tags_type_0 = cast(list[str], data)

                return user_tags_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        user_tags = _parse_user_tags(d.pop("user_tags", UNSET))


        raw_order = cls(
            currency=currency,
            lines=lines,
            order_id=order_id,
            user_id=user_id,
            region=region,
            shipping_fee=shipping_fee,
            user_tags=user_tags,
        )

        return raw_order

