from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.queue_leader import QueueLeader
  from ..models.rabbit_node import RabbitNode





T = TypeVar("T", bound="ClusterView")



@_attrs_define
class ClusterView:
    """ 
        Attributes:
            queue_leaders (list[QueueLeader]): The ledger's quorum queues: their leader and members.
            rabbitmq_nodes (list[RabbitNode]): The RabbitMQ nodes the management API lists (empty: not read).
            reads_on_replica (bool): Whether lag-tolerant reads go to the replica now.
            postgres_primary (None | str | Unset): The Postgres server the writer's connections reach (`address:port`).
            redis_primary (None | str | Unset): The Redis server in use (behind Sentinels: the primary they named).
            replica_lag_ms (int | None | Unset): The replica's lag in milliseconds (null: no replica, or it did not answer).
     """

    queue_leaders: list[QueueLeader]
    rabbitmq_nodes: list[RabbitNode]
    reads_on_replica: bool
    postgres_primary: None | str | Unset = UNSET
    redis_primary: None | str | Unset = UNSET
    replica_lag_ms: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.queue_leader import QueueLeader # noqa: PLC0415
        from ..models.rabbit_node import RabbitNode # noqa: PLC0415
        queue_leaders = []
        for queue_leaders_item_data in self.queue_leaders:
            queue_leaders_item = queue_leaders_item_data.to_dict()
            queue_leaders.append(queue_leaders_item)



        rabbitmq_nodes = []
        for rabbitmq_nodes_item_data in self.rabbitmq_nodes:
            rabbitmq_nodes_item = rabbitmq_nodes_item_data.to_dict()
            rabbitmq_nodes.append(rabbitmq_nodes_item)



        reads_on_replica = self.reads_on_replica

        postgres_primary: None | str | Unset
        if isinstance(self.postgres_primary, Unset):
            postgres_primary = UNSET
        else:
            postgres_primary = self.postgres_primary

        redis_primary: None | str | Unset
        if isinstance(self.redis_primary, Unset):
            redis_primary = UNSET
        else:
            redis_primary = self.redis_primary

        replica_lag_ms: int | None | Unset
        if isinstance(self.replica_lag_ms, Unset):
            replica_lag_ms = UNSET
        else:
            replica_lag_ms = self.replica_lag_ms


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "queue_leaders": queue_leaders,
            "rabbitmq_nodes": rabbitmq_nodes,
            "reads_on_replica": reads_on_replica,
        })
        if postgres_primary is not UNSET:
            field_dict["postgres_primary"] = postgres_primary
        if redis_primary is not UNSET:
            field_dict["redis_primary"] = redis_primary
        if replica_lag_ms is not UNSET:
            field_dict["replica_lag_ms"] = replica_lag_ms

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.queue_leader import QueueLeader # noqa: PLC0415
        from ..models.rabbit_node import RabbitNode # noqa: PLC0415
        d = dict(src_dict)
        queue_leaders = []
        _queue_leaders = d.pop("queue_leaders")
        for queue_leaders_item_data in (_queue_leaders):
            queue_leaders_item = QueueLeader.from_dict(queue_leaders_item_data)



            queue_leaders.append(queue_leaders_item)


        rabbitmq_nodes = []
        _rabbitmq_nodes = d.pop("rabbitmq_nodes")
        for rabbitmq_nodes_item_data in (_rabbitmq_nodes):
            rabbitmq_nodes_item = RabbitNode.from_dict(rabbitmq_nodes_item_data)



            rabbitmq_nodes.append(rabbitmq_nodes_item)


        reads_on_replica = d.pop("reads_on_replica")

        def _parse_postgres_primary(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        postgres_primary = _parse_postgres_primary(d.pop("postgres_primary", UNSET))


        def _parse_redis_primary(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        redis_primary = _parse_redis_primary(d.pop("redis_primary", UNSET))


        def _parse_replica_lag_ms(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        replica_lag_ms = _parse_replica_lag_ms(d.pop("replica_lag_ms", UNSET))


        cluster_view = cls(
            queue_leaders=queue_leaders,
            rabbitmq_nodes=rabbitmq_nodes,
            reads_on_replica=reads_on_replica,
            postgres_primary=postgres_primary,
            redis_primary=redis_primary,
            replica_lag_ms=replica_lag_ms,
        )


        cluster_view.additional_properties = d
        return cluster_view

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
