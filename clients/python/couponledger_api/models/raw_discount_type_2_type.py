from enum import StrEnum

class RawDiscountType2Type(StrEnum):
    RATE = "rate"

    def __str__(self) -> str:
        return str(self.value)
