from enum import StrEnum

class OrderStatus(StrEnum):
    CANCELLED = "cancelled"
    CANCELLED_BEFORE_LOCK = "cancelled_before_lock"
    CONFIRMED = "confirmed"
    LOCKED = "locked"
    LOCKING = "locking"
    RELEASED = "released"

    def __str__(self) -> str:
        return str(self.value)
