from enum import StrEnum

class PackageStatus(StrEnum):
    ACTIVE = "active"
    DRAFT = "draft"
    STOPPED = "stopped"

    def __str__(self) -> str:
        return str(self.value)
