from enum import StrEnum

class CodeBatchCodesFormat(StrEnum):
    CSV = "csv"
    TEXT = "text"

    def __str__(self) -> str:
        return str(self.value)
