from enum import StrEnum

class CouponStatus(StrEnum):
    EXPIRED = "expired"
    LOCKED = "locked"
    REFUNDED = "refunded"
    UNUSED = "unused"
    USED = "used"
    VOID = "void"

    def __str__(self) -> str:
        return str(self.value)
