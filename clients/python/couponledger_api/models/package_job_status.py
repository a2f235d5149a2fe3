from enum import StrEnum

class PackageJobStatus(StrEnum):
    DONE = "done"
    FAILED = "failed"
    QUEUED = "queued"
    REFUSED = "refused"

    def __str__(self) -> str:
        return str(self.value)
