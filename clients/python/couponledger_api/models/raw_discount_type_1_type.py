from enum import StrEnum

class RawDiscountType1Type(StrEnum):
    PER_THRESHOLD_OFF = "per_threshold_off"

    def __str__(self) -> str:
        return str(self.value)
