from enum import StrEnum

class RawDiscountType0Type(StrEnum):
    FIXED_OFF = "fixed_off"

    def __str__(self) -> str:
        return str(self.value)
