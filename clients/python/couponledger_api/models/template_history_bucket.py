from enum import StrEnum

class TemplateHistoryBucket(StrEnum):
    DAY = "day"
    HOUR = "hour"
    MINUTE = "minute"

    def __str__(self) -> str:
        return str(self.value)
