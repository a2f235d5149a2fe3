from enum import StrEnum

class RawValidityType1Type(StrEnum):
    RELATIVE = "relative"

    def __str__(self) -> str:
        return str(self.value)
