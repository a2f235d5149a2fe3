from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
import datetime

if TYPE_CHECKING:
  from ..models.action_api_key_type_0 import ActionApiKeyType0





T = TypeVar("T", bound="Action")



@_attrs_define
class Action:
    """ 
        Attributes:
            actor (str): `admin` (an operator) or `service` (an app key).
            event_type (str):
            occurred_at (datetime.datetime):
            position (int):
            stream_id (str):
            api_key (ActionApiKeyType0 | None | Unset): `{id, name}` of the app key.
            correlation_id (None | str | Unset): The request's id: the events of one request share it.
            operator (None | str | Unset):
            role (None | str | Unset):
     """

    actor: str
    event_type: str
    occurred_at: datetime.datetime
    position: int
    stream_id: str
    api_key: ActionApiKeyType0 | None | Unset = UNSET
    correlation_id: None | str | Unset = UNSET
    operator: None | str | Unset = UNSET
    role: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.action_api_key_type_0 import ActionApiKeyType0 # noqa: PLC0415
        actor = self.actor

        event_type = self.event_type

        occurred_at = self.occurred_at.isoformat()

        position = self.position

        stream_id = self.stream_id

        api_key: dict[str, Any] | None | Unset
        if isinstance(self.api_key, Unset):
            api_key = UNSET
        elif isinstance(self.api_key, ActionApiKeyType0):
            api_key = self.api_key.to_dict()
        else:
            api_key = self.api_key

        correlation_id: None | str | Unset
        if isinstance(self.correlation_id, Unset):
            correlation_id = UNSET
        else:
            correlation_id = self.correlation_id

        operator: None | str | Unset
        if isinstance(self.operator, Unset):
            operator = UNSET
        else:
            operator = self.operator

        role: None | str | Unset
        if isinstance(self.role, Unset):
            role = UNSET
        else:
            role = self.role


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "actor": actor,
            "event_type": event_type,
            "occurred_at": occurred_at,
            "position": position,
            "stream_id": stream_id,
        })
        if api_key is not UNSET:
            field_dict["api_key"] = api_key
        if correlation_id is not UNSET:
            field_dict["correlation_id"] = correlation_id
        if operator is not UNSET:
            field_dict["operator"] = operator
        if role is not UNSET:
            field_dict["role"] = role

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.action_api_key_type_0 import ActionApiKeyType0 # noqa: PLC0415
        d = dict(src_dict)
        actor = d.pop("actor")

        event_type = d.pop("event_type")

        occurred_at = datetime.datetime.fromisoformat(d.pop("occurred_at"))




        position = d.pop("position")

        stream_id = d.pop("stream_id")

        def _parse_api_key(data: object) -> ActionApiKeyType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                api_key_type_0 = ActionApiKeyType0.from_dict(data)



                return api_key_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ActionApiKeyType0 | None | Unset, data)

        api_key = _parse_api_key(d.pop("api_key", UNSET))


        def _parse_correlation_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        correlation_id = _parse_correlation_id(d.pop("correlation_id", UNSET))


        def _parse_operator(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        operator = _parse_operator(d.pop("operator", UNSET))


        def _parse_role(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        role = _parse_role(d.pop("role", UNSET))


        action = cls(
            actor=actor,
            event_type=event_type,
            occurred_at=occurred_at,
            position=position,
            stream_id=stream_id,
            api_key=api_key,
            correlation_id=correlation_id,
            operator=operator,
            role=role,
        )


        action.additional_properties = d
        return action

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
