from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.refund_policy import RefundPolicy
from ..models.template_status import TemplateStatus
from ..types import UNSET, Unset
from typing import cast
from uuid import UUID
import datetime

if TYPE_CHECKING:
  from ..models.budget_view import BudgetView
  from ..models.eligibility import Eligibility
  from ..models.issue_window_view import IssueWindowView
  from ..models.rate_limit import RateLimit
  from ..models.raw_discount_type_0 import RawDiscountType0
  from ..models.raw_discount_type_1 import RawDiscountType1
  from ..models.raw_discount_type_2 import RawDiscountType2
  from ..models.raw_discount_type_3 import RawDiscountType3
  from ..models.raw_scope_entry import RawScopeEntry
  from ..models.raw_validity_type_0 import RawValidityType0
  from ..models.raw_validity_type_1 import RawValidityType1





T = TypeVar("T", bound="TemplateView")



@_attrs_define
class TemplateView:
    """ A template as the API shows it.

        Attributes:
            currency (str):
            discount (RawDiscountType0 | RawDiscountType1 | RawDiscountType2 | RawDiscountType3): The `discount` object of a
                template as it arrives (docs/design.md §7).
            kind (str): `goods` | `shipping`
            stacking (str): `exclusive` | `stackable`
            use_scope (list[RawScopeEntry]):
            validity (RawValidityType0 | RawValidityType1): The `validity` object of a template as it arrives.
            channels (list[UUID]):
            created_at (datetime.datetime):
            issue_window (IssueWindowView): When coupons of the template (or a package) may be claimed.
            issued (int):
            name (str):
            per_user_limit (int):
            refund_policy (RefundPolicy): What a full refund does to a template's used coupon (fixed when the
                template is created): `restore` gives the coupon back to its owner,
                `reissue` ends it and issues a new one in its place.
            sn (str):
            status (TemplateStatus):
            total (int):
            face_value (None | str | Unset):
            budget (BudgetView | None | Unset):
            description (None | str | Unset): What the campaign is, as apps show it; absent: none.
            eligibility (Eligibility | None | Unset):
            rate_limit (None | RateLimit | Unset):
            remind_days_before (int | list[int] | None | Unset):
            shop_id (None | str | Unset): The shop the template belongs to; absent: the platform's.
            unused_left (int | None | Unset): A void template's coupons still to be voided (docs/design.md §15):
                0 once voiding is done; absent unless the template is void.
     """

    currency: str
    discount: RawDiscountType0 | RawDiscountType1 | RawDiscountType2 | RawDiscountType3
    kind: str
    stacking: str
    use_scope: list[RawScopeEntry]
    validity: RawValidityType0 | RawValidityType1
    channels: list[UUID]
    created_at: datetime.datetime
    issue_window: IssueWindowView
    issued: int
    name: str
    per_user_limit: int
    refund_policy: RefundPolicy
    sn: str
    status: TemplateStatus
    total: int
    face_value: None | str | Unset = UNSET
    budget: BudgetView | None | Unset = UNSET
    description: None | str | Unset = UNSET
    eligibility: Eligibility | None | Unset = UNSET
    rate_limit: None | RateLimit | Unset = UNSET
    remind_days_before: int | list[int] | None | Unset = UNSET
    shop_id: None | str | Unset = UNSET
    unused_left: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.budget_view import BudgetView # noqa: PLC0415
        from ..models.eligibility import Eligibility # noqa: PLC0415
        from ..models.issue_window_view import IssueWindowView # noqa: PLC0415
        from ..models.rate_limit import RateLimit # noqa: PLC0415
        from ..models.raw_discount_type_0 import RawDiscountType0 # noqa: PLC0415
        from ..models.raw_discount_type_1 import RawDiscountType1 # noqa: PLC0415
        from ..models.raw_discount_type_2 import RawDiscountType2 # noqa: PLC0415
        from ..models.raw_discount_type_3 import RawDiscountType3 # noqa: PLC0415
        from ..models.raw_scope_entry import RawScopeEntry # noqa: PLC0415
        from ..models.raw_validity_type_0 import RawValidityType0 # noqa: PLC0415
        from ..models.raw_validity_type_1 import RawValidityType1 # noqa: PLC0415
        currency = self.currency

        discount: dict[str, Any]
        if isinstance(self.discount, RawDiscountType0):
            discount = self.discount.to_dict()
        elif isinstance(self.discount, RawDiscountType1):
            discount = self.discount.to_dict()
        elif isinstance(self.discount, RawDiscountType2):
            discount = self.discount.to_dict()
        else:
            discount = self.discount.to_dict()


        kind = self.kind

        stacking = self.stacking

        use_scope = []
        for use_scope_item_data in self.use_scope:
            use_scope_item = use_scope_item_data.to_dict()
            use_scope.append(use_scope_item)



        validity: dict[str, Any]
        if isinstance(self.validity, RawValidityType0):
            validity = self.validity.to_dict()
        else:
            validity = self.validity.to_dict()


        channels = []
        for channels_item_data in self.channels:
            channels_item = str(channels_item_data)
            channels.append(channels_item)



        created_at = self.created_at.isoformat()

        issue_window = self.issue_window.to_dict()

        issued = self.issued

        name = self.name

        per_user_limit = self.per_user_limit

        refund_policy = self.refund_policy.value

        sn = self.sn

        status = self.status.value

        total = self.total

        face_value: None | str | Unset
        if isinstance(self.face_value, Unset):
            face_value = UNSET
        else:
            face_value = self.face_value

        budget: dict[str, Any] | None | Unset
        if isinstance(self.budget, Unset):
            budget = UNSET
        elif isinstance(self.budget, BudgetView):
            budget = self.budget.to_dict()
        else:
            budget = self.budget

        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        eligibility: dict[str, Any] | None | Unset
        if isinstance(self.eligibility, Unset):
            eligibility = UNSET
        elif isinstance(self.eligibility, Eligibility):
            eligibility = self.eligibility.to_dict()
        else:
            eligibility = self.eligibility

        rate_limit: dict[str, Any] | None | Unset
        if isinstance(self.rate_limit, Unset):
            rate_limit = UNSET
        elif isinstance(self.rate_limit, RateLimit):
            rate_limit = self.rate_limit.to_dict()
        else:
            rate_limit = self.rate_limit

        remind_days_before: int | list[int] | None | Unset
        if isinstance(self.remind_days_before, Unset):
            remind_days_before = UNSET
        elif isinstance(self.remind_days_before, list):
            remind_days_before = self.remind_days_before


        else:
            remind_days_before = self.remind_days_before

        shop_id: None | str | Unset
        if isinstance(self.shop_id, Unset):
            shop_id = UNSET
        else:
            shop_id = self.shop_id

        unused_left: int | None | Unset
        if isinstance(self.unused_left, Unset):
            unused_left = UNSET
        else:
            unused_left = self.unused_left


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "currency": currency,
            "discount": discount,
            "kind": kind,
            "stacking": stacking,
            "use_scope": use_scope,
            "validity": validity,
            "channels": channels,
            "created_at": created_at,
            "issue_window": issue_window,
            "issued": issued,
            "name": name,
            "per_user_limit": per_user_limit,
            "refund_policy": refund_policy,
            "sn": sn,
            "status": status,
            "total": total,
        })
        if face_value is not UNSET:
            field_dict["face_value"] = face_value
        if budget is not UNSET:
            field_dict["budget"] = budget
        if description is not UNSET:
            field_dict["description"] = description
        if eligibility is not UNSET:
            field_dict["eligibility"] = eligibility
        if rate_limit is not UNSET:
            field_dict["rate_limit"] = rate_limit
        if remind_days_before is not UNSET:
            field_dict["remind_days_before"] = remind_days_before
        if shop_id is not UNSET:
            field_dict["shop_id"] = shop_id
        if unused_left is not UNSET:
            field_dict["unused_left"] = unused_left

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.budget_view import BudgetView # noqa: PLC0415
        from ..models.eligibility import Eligibility # noqa: PLC0415
        from ..models.issue_window_view import IssueWindowView # noqa: PLC0415
        from ..models.rate_limit import RateLimit # noqa: PLC0415
        from ..models.raw_discount_type_0 import RawDiscountType0 # noqa: PLC0415
        from ..models.raw_discount_type_1 import RawDiscountType1 # noqa: PLC0415
        from ..models.raw_discount_type_2 import RawDiscountType2 # noqa: PLC0415
        from ..models.raw_discount_type_3 import RawDiscountType3 # noqa: PLC0415
        from ..models.raw_scope_entry import RawScopeEntry # noqa: PLC0415
        from ..models.raw_validity_type_0 import RawValidityType0 # noqa: PLC0415
        from ..models.raw_validity_type_1 import RawValidityType1 # noqa: PLC0415
        d = dict(src_dict)
        currency = d.pop("currency")

        def _parse_discount(data: object) -> RawDiscountType0 | RawDiscountType1 | RawDiscountType2 | RawDiscountType3:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_raw_discount_type_0 = RawDiscountType0.from_dict(data)



                return componentsschemas_raw_discount_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_raw_discount_type_1 = RawDiscountType1.from_dict(data)



                return componentsschemas_raw_discount_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_raw_discount_type_2 = RawDiscountType2.from_dict(data)



                return componentsschemas_raw_discount_type_2
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            componentsschemas_raw_discount_type_3 = RawDiscountType3.from_dict(data)



            return componentsschemas_raw_discount_type_3

        discount = _parse_discount(d.pop("discount"))


        kind = d.pop("kind")

        stacking = d.pop("stacking")

        use_scope = []
        _use_scope = d.pop("use_scope")
        for use_scope_item_data in (_use_scope):
            use_scope_item = RawScopeEntry.from_dict(use_scope_item_data)



            use_scope.append(use_scope_item)


        def _parse_validity(data: object) -> RawValidityType0 | RawValidityType1:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_raw_validity_type_0 = RawValidityType0.from_dict(data)



                return componentsschemas_raw_validity_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            componentsschemas_raw_validity_type_1 = RawValidityType1.from_dict(data)



            return componentsschemas_raw_validity_type_1

        validity = _parse_validity(d.pop("validity"))


        channels = []
        _channels = d.pop("channels")
        for channels_item_data in (_channels):
            channels_item = UUID(channels_item_data)



            channels.append(channels_item)


        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))




        issue_window = IssueWindowView.from_dict(d.pop("issue_window"))




        issued = d.pop("issued")

        name = d.pop("name")

        per_user_limit = d.pop("per_user_limit")

        refund_policy = RefundPolicy(d.pop("refund_policy"))




        sn = d.pop("sn")

        status = TemplateStatus(d.pop("status"))




        total = d.pop("total")

        def _parse_face_value(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        face_value = _parse_face_value(d.pop("face_value", UNSET))


        def _parse_budget(data: object) -> BudgetView | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                budget_type_1 = BudgetView.from_dict(data)



                return budget_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(BudgetView | None | Unset, data)

        budget = _parse_budget(d.pop("budget", UNSET))


        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))


        def _parse_eligibility(data: object) -> Eligibility | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                eligibility_type_1 = Eligibility.from_dict(data)



                return eligibility_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Eligibility | None | Unset, data)

        eligibility = _parse_eligibility(d.pop("eligibility", UNSET))


        def _parse_rate_limit(data: object) -> None | RateLimit | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                rate_limit_type_1 = RateLimit.from_dict(data)



                return rate_limit_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RateLimit | Unset, data)

        rate_limit = _parse_rate_limit(d.pop("rate_limit", UNSET))


        def _parse_remind_days_before(data: object) -> int | list[int] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                componentsschemas_raw_remind_days_type_1 = cast(list[int], data)

                return componentsschemas_raw_remind_days_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(int | list[int] | None | Unset, data)

        remind_days_before = _parse_remind_days_before(d.pop("remind_days_before", UNSET))


        def _parse_shop_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        shop_id = _parse_shop_id(d.pop("shop_id", UNSET))


        def _parse_unused_left(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        unused_left = _parse_unused_left(d.pop("unused_left", UNSET))


        template_view = cls(
            currency=currency,
            discount=discount,
            kind=kind,
            stacking=stacking,
            use_scope=use_scope,
            validity=validity,
            channels=channels,
            created_at=created_at,
            issue_window=issue_window,
            issued=issued,
            name=name,
            per_user_limit=per_user_limit,
            refund_policy=refund_policy,
            sn=sn,
            status=status,
            total=total,
            face_value=face_value,
            budget=budget,
            description=description,
            eligibility=eligibility,
            rate_limit=rate_limit,
            remind_days_before=remind_days_before,
            shop_id=shop_id,
            unused_left=unused_left,
        )


        template_view.additional_properties = d
        return template_view

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
