from enum import StrEnum

class AllowListFileStatus(StrEnum):
    DONE = "done"
    INCOMPLETE = "incomplete"
    UPLOADING = "uploading"

    def __str__(self) -> str:
        return str(self.value)
