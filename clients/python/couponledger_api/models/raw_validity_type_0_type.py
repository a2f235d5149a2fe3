from enum import StrEnum

class RawValidityType0Type(StrEnum):
    ABSOLUTE = "absolute"

    def __str__(self) -> str:
        return str(self.value)
