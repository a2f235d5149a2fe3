from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.checkpoint_view import CheckpointView
  from ..models.verify_view import VerifyView





T = TypeVar("T", bound="AuditStatus")



@_attrs_define
class AuditStatus:
    """ 
        Attributes:
            sealed_events (int): Events the sealer has chained.
            last_checkpoint (CheckpointView | None | Unset):
            last_verify (None | Unset | VerifyView):
     """

    sealed_events: int
    last_checkpoint: CheckpointView | None | Unset = UNSET
    last_verify: None | Unset | VerifyView = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.checkpoint_view import CheckpointView # noqa: PLC0415
        from ..models.verify_view import VerifyView # noqa: PLC0415
        sealed_events = self.sealed_events

        last_checkpoint: dict[str, Any] | None | Unset
        if isinstance(self.last_checkpoint, Unset):
            last_checkpoint = UNSET
        elif isinstance(self.last_checkpoint, CheckpointView):
            last_checkpoint = self.last_checkpoint.to_dict()
        else:
            last_checkpoint = self.last_checkpoint

        last_verify: dict[str, Any] | None | Unset
        if isinstance(self.last_verify, Unset):
            last_verify = UNSET
        elif isinstance(self.last_verify, VerifyView):
            last_verify = self.last_verify.to_dict()
        else:
            last_verify = self.last_verify


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "sealed_events": sealed_events,
        })
        if last_checkpoint is not UNSET:
            field_dict["last_checkpoint"] = last_checkpoint
        if last_verify is not UNSET:
            field_dict["last_verify"] = last_verify

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.checkpoint_view import CheckpointView # noqa: PLC0415
        from ..models.verify_view import VerifyView # noqa: PLC0415
        d = dict(src_dict)
        sealed_events = d.pop("sealed_events")

        def _parse_last_checkpoint(data: object) -> CheckpointView | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                last_checkpoint_type_1 = CheckpointView.from_dict(data)



                return last_checkpoint_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CheckpointView | None | Unset, data)

        last_checkpoint = _parse_last_checkpoint(d.pop("last_checkpoint", UNSET))


        def _parse_last_verify(data: object) -> None | Unset | VerifyView:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                last_verify_type_1 = VerifyView.from_dict(data)



                return last_verify_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | VerifyView, data)

        last_verify = _parse_last_verify(d.pop("last_verify", UNSET))


        audit_status = cls(
            sealed_events=sealed_events,
            last_checkpoint=last_checkpoint,
            last_verify=last_verify,
        )


        audit_status.additional_properties = d
        return audit_status

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
