from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.tag_rule_type_0 import TagRuleType0
  from ..models.tag_rule_type_1 import TagRuleType1





T = TypeVar("T", bound="Eligibility")



@_attrs_define
class Eligibility:
    """ A template's eligibility as it arrives, and as events and rows hold it
    (the canonical form: absent parts are no restriction).

        Attributes:
            allow_list (bool | Unset): Only users on the template's allow-list (uploaded as a file).
            new_users_only (bool | Unset): Only claims the channel marks `new_user: true`.
            regions (list[str] | Unset):
            user_tags (None | TagRuleType0 | TagRuleType1 | Unset):
     """

    allow_list: bool | Unset = UNSET
    new_users_only: bool | Unset = UNSET
    regions: list[str] | Unset = UNSET
    user_tags: None | TagRuleType0 | TagRuleType1 | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.tag_rule_type_0 import TagRuleType0 # noqa: PLC0415
        from ..models.tag_rule_type_1 import TagRuleType1 # noqa: PLC0415
        allow_list = self.allow_list

        new_users_only = self.new_users_only

        regions: list[str] | Unset = UNSET
        if not isinstance(self.regions, Unset):
            regions = self.regions



        user_tags: dict[str, Any] | None | Unset
        if isinstance(self.user_tags, Unset):
            user_tags = UNSET
        elif isinstance(self.user_tags, TagRuleType0):
            user_tags = self.user_tags.to_dict()
        elif isinstance(self.user_tags, TagRuleType1):
            user_tags = self.user_tags.to_dict()
        else:
            user_tags = self.user_tags


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if allow_list is not UNSET:
            field_dict["allow_list"] = allow_list
        if new_users_only is not UNSET:
            field_dict["new_users_only"] = new_users_only
        if regions is not UNSET:
            field_dict["regions"] = regions
        if user_tags is not UNSET:
            field_dict["user_tags"] = user_tags

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.tag_rule_type_0 import TagRuleType0 # noqa: PLC0415
        from ..models.tag_rule_type_1 import TagRuleType1 # noqa: PLC0415
        d = dict(src_dict)
        allow_list = d.pop("allow_list", UNSET)

        new_users_only = d.pop("new_users_only", UNSET)

        regions = cast(list[str], d.pop("regions", UNSET))


        def _parse_user_tags(data: object) -> None | TagRuleType0 | TagRuleType1 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_tag_rule_type_0 = TagRuleType0.from_dict(data)



                return componentsschemas_tag_rule_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_tag_rule_type_1 = TagRuleType1.from_dict(data)



                return componentsschemas_tag_rule_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TagRuleType0 | TagRuleType1 | Unset, data)

        user_tags = _parse_user_tags(d.pop("user_tags", UNSET))


        eligibility = cls(
            allow_list=allow_list,
            new_users_only=new_users_only,
            regions=regions,
            user_tags=user_tags,
        )

        return eligibility

