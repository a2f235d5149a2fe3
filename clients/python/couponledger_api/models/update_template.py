from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.eligibility import Eligibility
  from ..models.rate_limit import RateLimit
  from ..models.raw_budget import RawBudget
  from ..models.raw_validity_type_0 import RawValidityType0
  from ..models.raw_validity_type_1 import RawValidityType1
  from ..models.window_change import WindowChange





T = TypeVar("T", bound="UpdateTemplate")



@_attrs_define
class UpdateTemplate:
    """ `PATCH /v1/templates/{sn}`: the template's attributes, and its
    campaign's window, per-user limit and validity (docs/design.md §15).

        Attributes:
            budget (RawBudget | Unset): A budget as a request gives it: amounts written as strings.
            description (None | str | Unset): The text apps show (at most 1,000 characters), or null (or "") to
                remove it.
            eligibility (Eligibility | None | Unset):
            issue_window (WindowChange | Unset): A moved issue window: an end left out stays as it is.
            name (str | Unset):
            per_user_limit (int | Unset):
            rate_limit (None | RateLimit | Unset):
            remind_days_before (int | list[int] | None | Unset):
            validity (RawValidityType0 | RawValidityType1 | Unset): The `validity` object of a template as it arrives.
     """

    budget: RawBudget | Unset = UNSET
    description: None | str | Unset = UNSET
    eligibility: Eligibility | None | Unset = UNSET
    issue_window: WindowChange | Unset = UNSET
    name: str | Unset = UNSET
    per_user_limit: int | Unset = UNSET
    rate_limit: None | RateLimit | Unset = UNSET
    remind_days_before: int | list[int] | None | Unset = UNSET
    validity: RawValidityType0 | RawValidityType1 | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.eligibility import Eligibility # noqa: PLC0415
        from ..models.rate_limit import RateLimit # noqa: PLC0415
        from ..models.raw_budget import RawBudget # noqa: PLC0415
        from ..models.raw_validity_type_0 import RawValidityType0 # noqa: PLC0415
        from ..models.raw_validity_type_1 import RawValidityType1 # noqa: PLC0415
        from ..models.window_change import WindowChange # noqa: PLC0415
        budget: dict[str, Any] | Unset = UNSET
        if not isinstance(self.budget, Unset):
            budget = self.budget.to_dict()

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

        issue_window: dict[str, Any] | Unset = UNSET
        if not isinstance(self.issue_window, Unset):
            issue_window = self.issue_window.to_dict()

        name = self.name

        per_user_limit = self.per_user_limit

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

        validity: dict[str, Any] | Unset
        if isinstance(self.validity, Unset):
            validity = UNSET
        elif isinstance(self.validity, RawValidityType0):
            validity = self.validity.to_dict()
        else:
            validity = self.validity.to_dict()



        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if budget is not UNSET:
            field_dict["budget"] = budget
        if description is not UNSET:
            field_dict["description"] = description
        if eligibility is not UNSET:
            field_dict["eligibility"] = eligibility
        if issue_window is not UNSET:
            field_dict["issue_window"] = issue_window
        if name is not UNSET:
            field_dict["name"] = name
        if per_user_limit is not UNSET:
            field_dict["per_user_limit"] = per_user_limit
        if rate_limit is not UNSET:
            field_dict["rate_limit"] = rate_limit
        if remind_days_before is not UNSET:
            field_dict["remind_days_before"] = remind_days_before
        if validity is not UNSET:
            field_dict["validity"] = validity

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.eligibility import Eligibility # noqa: PLC0415
        from ..models.rate_limit import RateLimit # noqa: PLC0415
        from ..models.raw_budget import RawBudget # noqa: PLC0415
        from ..models.raw_validity_type_0 import RawValidityType0 # noqa: PLC0415
        from ..models.raw_validity_type_1 import RawValidityType1 # noqa: PLC0415
        from ..models.window_change import WindowChange # noqa: PLC0415
        d = dict(src_dict)
        _budget = d.pop("budget", UNSET)
        budget: RawBudget | Unset
        if isinstance(_budget,  Unset):
            budget = UNSET
        else:
            budget = RawBudget.from_dict(_budget)




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


        _issue_window = d.pop("issue_window", UNSET)
        issue_window: WindowChange | Unset
        if isinstance(_issue_window,  Unset):
            issue_window = UNSET
        else:
            issue_window = WindowChange.from_dict(_issue_window)




        name = d.pop("name", UNSET)

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


        def _parse_validity(data: object) -> RawValidityType0 | RawValidityType1 | Unset:
            if isinstance(data, Unset):
                return data
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

        validity = _parse_validity(d.pop("validity", UNSET))


        update_template = cls(
            budget=budget,
            description=description,
            eligibility=eligibility,
            issue_window=issue_window,
            name=name,
            per_user_limit=per_user_limit,
            rate_limit=rate_limit,
            remind_days_before=remind_days_before,
            validity=validity,
        )

        return update_template

