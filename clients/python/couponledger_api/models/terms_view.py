from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.raw_discount_type_0 import RawDiscountType0
  from ..models.raw_discount_type_1 import RawDiscountType1
  from ..models.raw_discount_type_2 import RawDiscountType2
  from ..models.raw_discount_type_3 import RawDiscountType3
  from ..models.raw_scope_entry import RawScopeEntry
  from ..models.raw_validity_type_0 import RawValidityType0
  from ..models.raw_validity_type_1 import RawValidityType1





T = TypeVar("T", bound="TermsView")



@_attrs_define
class TermsView:
    """ The terms inside a template's answer: the fields of `RawTerms`, in a
    schema that, unlike the request's, lets the template's other fields sit
    beside them (a flattened `RawTerms` would forbid them).

        Attributes:
            currency (str):
            discount (RawDiscountType0 | RawDiscountType1 | RawDiscountType2 | RawDiscountType3): The `discount` object of a
                template as it arrives (docs/design.md §7).
            kind (str): `goods` | `shipping`
            stacking (str): `exclusive` | `stackable`
            use_scope (list[RawScopeEntry]):
            validity (RawValidityType0 | RawValidityType1): The `validity` object of a template as it arrives.
            face_value (None | str | Unset):
     """

    currency: str
    discount: RawDiscountType0 | RawDiscountType1 | RawDiscountType2 | RawDiscountType3
    kind: str
    stacking: str
    use_scope: list[RawScopeEntry]
    validity: RawValidityType0 | RawValidityType1
    face_value: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
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


        face_value: None | str | Unset
        if isinstance(self.face_value, Unset):
            face_value = UNSET
        else:
            face_value = self.face_value


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "currency": currency,
            "discount": discount,
            "kind": kind,
            "stacking": stacking,
            "use_scope": use_scope,
            "validity": validity,
        })
        if face_value is not UNSET:
            field_dict["face_value"] = face_value

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
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


        def _parse_face_value(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        face_value = _parse_face_value(d.pop("face_value", UNSET))


        terms_view = cls(
            currency=currency,
            discount=discount,
            kind=kind,
            stacking=stacking,
            use_scope=use_scope,
            validity=validity,
            face_value=face_value,
        )


        terms_view.additional_properties = d
        return terms_view

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
