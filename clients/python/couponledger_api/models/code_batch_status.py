from enum import StrEnum

class CodeBatchStatus(StrEnum):
    ACTIVE = "active"
    STOPPED = "stopped"

    def __str__(self) -> str:
        return str(self.value)
