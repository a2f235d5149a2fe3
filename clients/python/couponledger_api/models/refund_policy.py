from enum import StrEnum

class RefundPolicy(StrEnum):
    REISSUE = "reissue"
    RESTORE = "restore"

    def __str__(self) -> str:
        return str(self.value)
