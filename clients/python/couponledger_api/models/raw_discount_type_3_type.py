from enum import StrEnum

class RawDiscountType3Type(StrEnum):
    LADDER = "ladder"

    def __str__(self) -> str:
        return str(self.value)
