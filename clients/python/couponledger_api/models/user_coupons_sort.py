from enum import StrEnum

class UserCouponsSort(StrEnum):
    EXPIRES_AT = "expires_at"
    FACE_VALUE = "face_value"
    ISSUED_AT = "issued_at"

    def __str__(self) -> str:
        return str(self.value)
