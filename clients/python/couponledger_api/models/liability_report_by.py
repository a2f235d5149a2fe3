from enum import StrEnum

class LiabilityReportBy(StrEnum):
    CHANNEL = "channel"
    DAY = "day"
    SHOP = "shop"
    TEMPLATE = "template"

    def __str__(self) -> str:
        return str(self.value)
