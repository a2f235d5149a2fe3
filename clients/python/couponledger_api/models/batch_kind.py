from enum import StrEnum

class BatchKind(StrEnum):
    GENERATED = "generated"
    PASSPHRASE = "passphrase"

    def __str__(self) -> str:
        return str(self.value)
