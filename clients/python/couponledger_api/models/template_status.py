from enum import StrEnum

class TemplateStatus(StrEnum):
    ACTIVE = "active"
    DRAFT = "draft"
    STOPPED = "stopped"
    VOID = "void"

    def __str__(self) -> str:
        return str(self.value)
