from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.template_view import TemplateView





T = TypeVar("T", bound="TemplatePage")



@_attrs_define
class TemplatePage:
    """ A page of templates, newest first, with the count of all that match.

        Attributes:
            limit (int):
            offset (int):
            templates (list[TemplateView]):
            total (int):
     """

    limit: int
    offset: int
    templates: list[TemplateView]
    total: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.template_view import TemplateView # noqa: PLC0415
        limit = self.limit

        offset = self.offset

        templates = []
        for templates_item_data in self.templates:
            templates_item = templates_item_data.to_dict()
            templates.append(templates_item)



        total = self.total


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "limit": limit,
            "offset": offset,
            "templates": templates,
            "total": total,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.template_view import TemplateView # noqa: PLC0415
        d = dict(src_dict)
        limit = d.pop("limit")

        offset = d.pop("offset")

        templates = []
        _templates = d.pop("templates")
        for templates_item_data in (_templates):
            templates_item = TemplateView.from_dict(templates_item_data)



            templates.append(templates_item)


        total = d.pop("total")

        template_page = cls(
            limit=limit,
            offset=offset,
            templates=templates,
            total=total,
        )


        template_page.additional_properties = d
        return template_page

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
