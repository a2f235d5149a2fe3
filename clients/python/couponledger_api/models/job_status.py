from enum import StrEnum

class JobStatus(StrEnum):
    CANCELLED = "cancelled"
    DONE = "done"
    FAILED = "failed"
    INCOMPLETE = "incomplete"
    QUEUED = "queued"
    RUNNING = "running"
    UPLOADING = "uploading"

    def __str__(self) -> str:
        return str(self.value)
