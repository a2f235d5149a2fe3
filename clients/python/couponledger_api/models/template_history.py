from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
import datetime

if TYPE_CHECKING:
  from ..models.history_bucket import HistoryBucket





T = TypeVar("T", bound="TemplateHistory")



@_attrs_define
class TemplateHistory:
    """ A template's coupons over time: every bucket from `from` to `to`, those
    without coupons included (zeros), oldest first.

        Attributes:
            bucket (str): `minute`, `hour` or `day`, cut in `time_zone`.
            buckets (list[HistoryBucket]):
            from_ (datetime.datetime): The first bucket's start (`from` rounded down to its bucket).
            template_sn (str):
            time_zone (str): The business time zone (`LEDGER_TZ`) the buckets are cut in.
            to (datetime.datetime): Where the last bucket ends (exclusive): `to` as asked, so the last
                bucket may be partial.
     """

    bucket: str
    buckets: list[HistoryBucket]
    from_: datetime.datetime
    template_sn: str
    time_zone: str
    to: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.history_bucket import HistoryBucket # noqa: PLC0415
        bucket = self.bucket

        buckets = []
        for buckets_item_data in self.buckets:
            buckets_item = buckets_item_data.to_dict()
            buckets.append(buckets_item)



        from_ = self.from_.isoformat()

        template_sn = self.template_sn

        time_zone = self.time_zone

        to = self.to.isoformat()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "bucket": bucket,
            "buckets": buckets,
            "from": from_,
            "template_sn": template_sn,
            "time_zone": time_zone,
            "to": to,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.history_bucket import HistoryBucket # noqa: PLC0415
        d = dict(src_dict)
        bucket = d.pop("bucket")

        buckets = []
        _buckets = d.pop("buckets")
        for buckets_item_data in (_buckets):
            buckets_item = HistoryBucket.from_dict(buckets_item_data)



            buckets.append(buckets_item)


        from_ = datetime.datetime.fromisoformat(d.pop("from"))




        template_sn = d.pop("template_sn")

        time_zone = d.pop("time_zone")

        to = datetime.datetime.fromisoformat(d.pop("to"))




        template_history = cls(
            bucket=bucket,
            buckets=buckets,
            from_=from_,
            template_sn=template_sn,
            time_zone=time_zone,
            to=to,
        )


        template_history.additional_properties = d
        return template_history

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
