from enum import StrEnum

class CreateWebhookEventTypesType0Item(StrEnum):
    VALUE_0 = "*"

    def __str__(self) -> str:
        return str(self.value)
