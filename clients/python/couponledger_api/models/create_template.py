from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.kind import Kind
from ..models.refund_policy import RefundPolicy
from ..models.stacking import Stacking
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.eligibility import Eligibility
  from ..models.issue_window_view import IssueWindowView
  from ..models.rate_limit import RateLimit
  from ..models.raw_budget import RawBudget
  from ..models.raw_discount_type_0 import RawDiscountType0
  from ..models.raw_discount_type_1 import RawDiscountType1
  from ..models.raw_discount_type_2 import RawDiscountType2
  from ..models.raw_discount_type_3 import RawDiscountType3
  from ..models.raw_scope_entry import RawScopeEntry
  from ..models.raw_validity_type_0 import RawValidityType0
  from ..models.raw_validity_type_1 import RawValidityType1





T = TypeVar("T", bound="CreateTemplate")



@_attrs_define
class CreateTemplate:
    """ `POST /v1/templates` (docs/design.md §7). Amounts are strings ("20.00").

        Attributes:
            currency (str):
            discount (RawDiscountType0 | RawDiscountType1 | RawDiscountType2 | RawDiscountType3): The `discount` object of a
                template as it arrives (docs/design.md §7).
            issue_window (IssueWindowView): When coupons of the template (or a package) may be claimed.
            kind (Kind): What a template discounts: order lines or the shipping fee.
            name (str):
            stacking (Stacking): Whether a coupon may be combined with others.
            total (int):
            validity (RawValidityType0 | RawValidityType1): The `validity` object of a template as it arrives.
            budget (None | RawBudget | Unset):
            description (None | str | Unset): What the campaign is, as apps show it to users: at most 1,000
                characters.
            eligibility (Eligibility | None | Unset):
            face_value (None | str | Unset):
            per_user_limit (int | Unset):
            rate_limit (None | RateLimit | Unset):
            refund_policy (RefundPolicy | Unset): What a full refund does to a template's used coupon (fixed when the
                template is created): `restore` gives the coupon back to its owner,
                `reissue` ends it and issues a new one in its place.
            remind_days_before (int | list[int] | None | Unset):
            shop_id (None | str | Unset): The shop the template belongs to (1 to 64 visible ASCII, not
                `(platform)`): its coupons apply only to that shop's order lines, so
                `use_scope` gets `{"kind": "shop", "values": [shop_id]}` unless it
                lists exactly that shop already (another shop there: 400 naming
                `use_scope`). Absent: the platform's.
            use_scope (list[RawScopeEntry] | Unset):
     """

    currency: str
    discount: RawDiscountType0 | RawDiscountType1 | RawDiscountType2 | RawDiscountType3
    issue_window: IssueWindowView
    kind: Kind
    name: str
    stacking: Stacking
    total: int
    validity: RawValidityType0 | RawValidityType1
    budget: None | RawBudget | Unset = UNSET
    description: None | str | Unset = UNSET
    eligibility: Eligibility | None | Unset = UNSET
    face_value: None | str | Unset = UNSET
    per_user_limit: int | Unset = UNSET
    rate_limit: None | RateLimit | Unset = UNSET
    refund_policy: RefundPolicy | Unset = UNSET
    remind_days_before: int | list[int] | None | Unset = UNSET
    shop_id: None | str | Unset = UNSET
    use_scope: list[RawScopeEntry] | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.eligibility import Eligibility # noqa: PLC0415
        from ..models.issue_window_view import IssueWindowView # noqa: PLC0415
        from ..models.rate_limit import RateLimit # noqa: PLC0415
        from ..models.raw_budget import RawBudget # noqa: PLC0415
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


        issue_window = self.issue_window.to_dict()

        kind = self.kind.value

        name = self.name

        stacking = self.stacking.value

        total = self.total

        validity: dict[str, Any]
        if isinstance(self.validity, RawValidityType0):
            validity = self.validity.to_dict()
        else:
            validity = self.validity.to_dict()


        budget: dict[str, Any] | None | Unset
        if isinstance(self.budget, Unset):
            budget = UNSET
        elif isinstance(self.budget, RawBudget):
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

        face_value: None | str | Unset
        if isinstance(self.face_value, Unset):
            face_value = UNSET
        else:
            face_value = self.face_value

        per_user_limit = self.per_user_limit

        rate_limit: dict[str, Any] | None | Unset
        if isinstance(self.rate_limit, Unset):
            rate_limit = UNSET
        elif isinstance(self.rate_limit, RateLimit):
            rate_limit = self.rate_limit.to_dict()
        else:
            rate_limit = self.rate_limit

        refund_policy: str | Unset = UNSET
        if not isinstance(self.refund_policy, Unset):
            refund_policy = self.refund_policy.value


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

        use_scope: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.use_scope, Unset):
            use_scope = []
            for use_scope_item_data in self.use_scope:
                use_scope_item = use_scope_item_data.to_dict()
                use_scope.append(use_scope_item)




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "currency": currency,
            "discount": discount,
            "issue_window": issue_window,
            "kind": kind,
            "name": name,
            "stacking": stacking,
            "total": total,
            "validity": validity,
        })
        if budget is not UNSET:
            field_dict["budget"] = budget
        if description is not UNSET:
            field_dict["description"] = description
        if eligibility is not UNSET:
            field_dict["eligibility"] = eligibility
        if face_value is not UNSET:
            field_dict["face_value"] = face_value
        if per_user_limit is not UNSET:
            field_dict["per_user_limit"] = per_user_limit
        if rate_limit is not UNSET:
            field_dict["rate_limit"] = rate_limit
        if refund_policy is not UNSET:
            field_dict["refund_policy"] = refund_policy
        if remind_days_before is not UNSET:
            field_dict["remind_days_before"] = remind_days_before
        if shop_id is not UNSET:
            field_dict["shop_id"] = shop_id
        if use_scope is not UNSET:
            field_dict["use_scope"] = use_scope

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.eligibility import Eligibility # noqa: PLC0415
        from ..models.issue_window_view import IssueWindowView # noqa: PLC0415
        from ..models.rate_limit import RateLimit # noqa: PLC0415
        from ..models.raw_budget import RawBudget # noqa: PLC0415
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


        issue_window = IssueWindowView.from_dict(d.pop("issue_window"))




        kind = Kind(d.pop("kind"))




        name = d.pop("name")

        stacking = Stacking(d.pop("stacking"))




        total = d.pop("total")

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


        def _parse_budget(data: object) -> None | RawBudget | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                budget_type_1 = RawBudget.from_dict(data)



                return budget_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RawBudget | Unset, data)

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


        def _parse_face_value(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        face_value = _parse_face_value(d.pop("face_value", UNSET))


        per_user_limit = d.pop("per_user_limit", UNSET)

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


        _refund_policy = d.pop("refund_policy", UNSET)
        refund_policy: RefundPolicy | Unset
        if isinstance(_refund_policy,  Unset):
            refund_policy = UNSET
        else:
            refund_policy = RefundPolicy(_refund_policy)




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


        _use_scope = d.pop("use_scope", UNSET)
        use_scope: list[RawScopeEntry] | Unset = UNSET
        if _use_scope is not UNSET:
            use_scope = []
            for use_scope_item_data in _use_scope:
                use_scope_item = RawScopeEntry.from_dict(use_scope_item_data)



                use_scope.append(use_scope_item)


        create_template = cls(
            currency=currency,
            discount=discount,
            issue_window=issue_window,
            kind=kind,
            name=name,
            stacking=stacking,
            total=total,
            validity=validity,
            budget=budget,
            description=description,
            eligibility=eligibility,
            face_value=face_value,
            per_user_limit=per_user_limit,
            rate_limit=rate_limit,
            refund_policy=refund_policy,
            remind_days_before=remind_days_before,
            shop_id=shop_id,
            use_scope=use_scope,
        )

        return create_template

