from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.template_status import TemplateStatus
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.eligibility import Eligibility
  from ..models.issue_window_view import IssueWindowView
  from ..models.raw_discount_type_0 import RawDiscountType0
  from ..models.raw_discount_type_1 import RawDiscountType1
  from ..models.raw_discount_type_2 import RawDiscountType2
  from ..models.raw_discount_type_3 import RawDiscountType3
  from ..models.raw_scope_entry import RawScopeEntry
  from ..models.raw_validity_type_0 import RawValidityType0
  from ..models.raw_validity_type_1 import RawValidityType1





T = TypeVar("T", bound="TemplateTerms")



@_attrs_define
class TemplateTerms:
    """ What a user may see of a template.

        Attributes:
            currency (str):
            discount (RawDiscountType0 | RawDiscountType1 | RawDiscountType2 | RawDiscountType3): The `discount` object of a
                template as it arrives (docs/design.md §7).
            face_value (str):
            issue_window (IssueWindowView): When coupons of the template (or a package) may be claimed.
            kind (str): `goods` (order lines) or `shipping` (the shipping fee).
            name (str):
            rule_text (str): The rule in words, e.g. "20.00 off orders of 199.00 or more".
            sn (str):
            stacking (str): `exclusive` or `stackable`.
            status (TemplateStatus):
            use_scope (list[RawScopeEntry]): Where the coupon applies: entries of one kind OR, of different kinds AND.
            validity (RawValidityType0 | RawValidityType1): The `validity` object of a template as it arrives.
            description (None | str | Unset): What the campaign is, in the operator's words; absent: none.
            eligibility (Eligibility | None | Unset):
            shop_id (None | str | Unset): The shop whose lines it applies to; absent: the platform's.
     """

    currency: str
    discount: RawDiscountType0 | RawDiscountType1 | RawDiscountType2 | RawDiscountType3
    face_value: str
    issue_window: IssueWindowView
    kind: str
    name: str
    rule_text: str
    sn: str
    stacking: str
    status: TemplateStatus
    use_scope: list[RawScopeEntry]
    validity: RawValidityType0 | RawValidityType1
    description: None | str | Unset = UNSET
    eligibility: Eligibility | None | Unset = UNSET
    shop_id: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.eligibility import Eligibility # noqa: PLC0415
        from ..models.issue_window_view import IssueWindowView # noqa: PLC0415
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


        face_value = self.face_value

        issue_window = self.issue_window.to_dict()

        kind = self.kind

        name = self.name

        rule_text = self.rule_text

        sn = self.sn

        stacking = self.stacking

        status = self.status.value

        use_scope = []
        for use_scope_item_data in self.use_scope:
            use_scope_item = use_scope_item_data.to_dict()
            use_scope.append(use_scope_item)



        validity: dict[str, Any]
        if isinstance(self.validity, RawValidityType0):
            validity = self.validity.to_dict()
        else:
            validity = self.validity.to_dict()


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

        shop_id: None | str | Unset
        if isinstance(self.shop_id, Unset):
            shop_id = UNSET
        else:
            shop_id = self.shop_id


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "currency": currency,
            "discount": discount,
            "face_value": face_value,
            "issue_window": issue_window,
            "kind": kind,
            "name": name,
            "rule_text": rule_text,
            "sn": sn,
            "stacking": stacking,
            "status": status,
            "use_scope": use_scope,
            "validity": validity,
        })
        if description is not UNSET:
            field_dict["description"] = description
        if eligibility is not UNSET:
            field_dict["eligibility"] = eligibility
        if shop_id is not UNSET:
            field_dict["shop_id"] = shop_id

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.eligibility import Eligibility # noqa: PLC0415
        from ..models.issue_window_view import IssueWindowView # noqa: PLC0415
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


        face_value = d.pop("face_value")

        issue_window = IssueWindowView.from_dict(d.pop("issue_window"))




        kind = d.pop("kind")

        name = d.pop("name")

        rule_text = d.pop("rule_text")

        sn = d.pop("sn")

        stacking = d.pop("stacking")

        status = TemplateStatus(d.pop("status"))




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


        def _parse_shop_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        shop_id = _parse_shop_id(d.pop("shop_id", UNSET))


        template_terms = cls(
            currency=currency,
            discount=discount,
            face_value=face_value,
            issue_window=issue_window,
            kind=kind,
            name=name,
            rule_text=rule_text,
            sn=sn,
            stacking=stacking,
            status=status,
            use_scope=use_scope,
            validity=validity,
            description=description,
            eligibility=eligibility,
            shop_id=shop_id,
        )


        template_terms.additional_properties = d
        return template_terms

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
