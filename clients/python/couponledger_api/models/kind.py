from enum import StrEnum

class Kind(StrEnum):
    GOODS = "goods"
    SHIPPING = "shipping"

    def __str__(self) -> str:
        return str(self.value)
