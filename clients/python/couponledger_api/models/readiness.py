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





T = TypeVar("T", bound="Readiness")



@_attrs_define
class Readiness:
    """ 
        Attributes:
            down (list[str]): The dependencies that are down.
            postgres (bool):
            rabbitmq (bool):
            redis (bool):
            status (str):
            cluster (ClusterView | None | Unset):
            lag (list[ConsumerLag] | None | Unset): How far the relay and each projection are behind the log (empty when
                Postgres did not answer in time). Lag does not make the API unready:
                it answers from the write model; alert on it instead (docs/reference/messaging.md).
                Only for a caller whose token grants `workers:read` (the details
                name queues and hosts; docs/design.md §19).
     """

    down: list[str]
    postgres: bool
    rabbitmq: bool
    redis: bool
    status: str
    cluster: ClusterView | None | Unset = UNSET
    lag: list[ConsumerLag] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.cluster_view import ClusterView # noqa: PLC0415
        from ..models.consumer_lag import ConsumerLag # noqa: PLC0415
        down = self.down



        postgres = self.postgres

        rabbitmq = self.rabbitmq

        redis = self.redis

        status = self.status

        cluster: dict[str, Any] | None | Unset
        if isinstance(self.cluster, Unset):
            cluster = UNSET
        elif isinstance(self.cluster, ClusterView):
            cluster = self.cluster.to_dict()
        else:
            cluster = self.cluster

        lag: list[dict[str, Any]] | None | Unset
        if isinstance(self.lag, Unset):
            lag = UNSET
        elif isinstance(self.lag, list):
            lag = []
            for lag_type_0_item_data in self.lag:
                lag_type_0_item = lag_type_0_item_data.to_dict()
                lag.append(lag_type_0_item)


        else:
            lag = self.lag


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "down": down,
            "postgres": postgres,
            "rabbitmq": rabbitmq,
            "redis": redis,
            "status": status,
        })
        if cluster is not UNSET:
            field_dict["cluster"] = cluster
        if lag is not UNSET:
            field_dict["lag"] = lag

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.cluster_view import ClusterView # noqa: PLC0415
        from ..models.consumer_lag import ConsumerLag # noqa: PLC0415
        d = dict(src_dict)
        down = cast(list[str], d.pop("down"))


        postgres = d.pop("postgres")

        rabbitmq = d.pop("rabbitmq")

        redis = d.pop("redis")

        status = d.pop("status")

        def _parse_cluster(data: object) -> ClusterView | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                cluster_type_1 = ClusterView.from_dict(data)



                return cluster_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ClusterView | None | Unset, data)

        cluster = _parse_cluster(d.pop("cluster", UNSET))


        def _parse_lag(data: object) -> list[ConsumerLag] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                lag_type_0 = []
                _lag_type_0 = data
                for lag_type_0_item_data in (_lag_type_0):
                    lag_type_0_item = ConsumerLag.from_dict(lag_type_0_item_data)



                    lag_type_0.append(lag_type_0_item)

                return lag_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ConsumerLag] | None | Unset, data)

        lag = _parse_lag(d.pop("lag", UNSET))


        readiness = cls(
            down=down,
            postgres=postgres,
            rabbitmq=rabbitmq,
            redis=redis,
            status=status,
            cluster=cluster,
            lag=lag,
        )


        readiness.additional_properties = d
        return readiness

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
