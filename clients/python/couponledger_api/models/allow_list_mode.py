from enum import StrEnum

class AllowListMode(StrEnum):
    ADD = "add"
    REMOVE = "remove"

    def __str__(self) -> str:
        return str(self.value)
