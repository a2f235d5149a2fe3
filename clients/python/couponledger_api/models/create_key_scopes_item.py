from enum import StrEnum

class CreateKeyScopesItem(StrEnum):
    ORDERS = "orders"
    REDEMPTIONS = "redemptions"
    REPORTSREAD = "reports:read"
    WALLETSREAD = "wallets:read"

    def __str__(self) -> str:
        return str(self.value)
