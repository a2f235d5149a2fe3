from enum import StrEnum

class Stacking(StrEnum):
    EXCLUSIVE = "exclusive"
    STACKABLE = "stackable"

    def __str__(self) -> str:
        return str(self.value)
