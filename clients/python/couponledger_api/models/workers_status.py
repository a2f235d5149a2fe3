from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.cluster_view import ClusterView
  from ..models.consumer_lag import ConsumerLag
  from ..models.dead_letter import DeadLetter
  from ..models.queue_state import QueueState





T = TypeVar("T", bound="WorkersStatus")



@_attrs_define
class WorkersStatus:
    """ 
        Attributes:
            cluster (ClusterView):
            consumers (list[ConsumerLag]): Each relay route (`relay:<route>`) and projection, behind the head.
            dead_letters (list[DeadLetter]): The newest dead letters waiting (at most 10), newest first.
            head_position (int): Position of the last event in the store's read order (0: none).
            broker_error (None | str | Unset): Why RabbitMQ's management API could not be read, if so.
            queues (list[QueueState] | None | Unset): The contract queues; null when the management API could not be read.
     """

    cluster: ClusterView
    consumers: list[ConsumerLag]
    dead_letters: list[DeadLetter]
    head_position: int
    broker_error: None | str | Unset = UNSET
    queues: list[QueueState] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.cluster_view import ClusterView # noqa: PLC0415
        from ..models.consumer_lag import ConsumerLag # noqa: PLC0415
        from ..models.dead_letter import DeadLetter # noqa: PLC0415
        from ..models.queue_state import QueueState # noqa: PLC0415
        cluster = self.cluster.to_dict()

        consumers = []
        for consumers_item_data in self.consumers:
            consumers_item = consumers_item_data.to_dict()
            consumers.append(consumers_item)



        dead_letters = []
        for dead_letters_item_data in self.dead_letters:
            dead_letters_item = dead_letters_item_data.to_dict()
            dead_letters.append(dead_letters_item)



        head_position = self.head_position

        broker_error: None | str | Unset
        if isinstance(self.broker_error, Unset):
            broker_error = UNSET
        else:
            broker_error = self.broker_error

        queues: list[dict[str, Any]] | None | Unset
        if isinstance(self.queues, Unset):
            queues = UNSET
        elif isinstance(self.queues, list):
            queues = []
            for queues_type_0_item_data in self.queues:
                queues_type_0_item = queues_type_0_item_data.to_dict()
                queues.append(queues_type_0_item)


        else:
            queues = self.queues


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "cluster": cluster,
            "consumers": consumers,
            "dead_letters": dead_letters,
            "head_position": head_position,
        })
        if broker_error is not UNSET:
            field_dict["broker_error"] = broker_error
        if queues is not UNSET:
            field_dict["queues"] = queues

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.cluster_view import ClusterView # noqa: PLC0415
        from ..models.consumer_lag import ConsumerLag # noqa: PLC0415
        from ..models.dead_letter import DeadLetter # noqa: PLC0415
        from ..models.queue_state import QueueState # noqa: PLC0415
        d = dict(src_dict)
        cluster = ClusterView.from_dict(d.pop("cluster"))




        consumers = []
        _consumers = d.pop("consumers")
        for consumers_item_data in (_consumers):
            consumers_item = ConsumerLag.from_dict(consumers_item_data)



            consumers.append(consumers_item)


        dead_letters = []
        _dead_letters = d.pop("dead_letters")
        for dead_letters_item_data in (_dead_letters):
            dead_letters_item = DeadLetter.from_dict(dead_letters_item_data)



            dead_letters.append(dead_letters_item)


        head_position = d.pop("head_position")

        def _parse_broker_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        broker_error = _parse_broker_error(d.pop("broker_error", UNSET))


        def _parse_queues(data: object) -> list[QueueState] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                queues_type_0 = []
                _queues_type_0 = data
                for queues_type_0_item_data in (_queues_type_0):
                    queues_type_0_item = QueueState.from_dict(queues_type_0_item_data)



                    queues_type_0.append(queues_type_0_item)

                return queues_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[QueueState] | None | Unset, data)

        queues = _parse_queues(d.pop("queues", UNSET))


        workers_status = cls(
            cluster=cluster,
            consumers=consumers,
            dead_letters=dead_letters,
            head_position=head_position,
            broker_error=broker_error,
            queues=queues,
        )


        workers_status.additional_properties = d
        return workers_status

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
